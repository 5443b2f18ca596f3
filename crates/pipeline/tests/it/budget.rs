//! With spending budgets on the account, the pipeline still executes (through the batch entry
//! point) and a run of individually approved transfers stops at the budget on-chain.

use alloy_primitives::{B256, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_pipeline::{ExecutionResult, PipelineConfig, evaluate, execute};
use pace_signer::PdrSigner;
use pace_types::{Call, Claims, CompiledPolicy, Intent, TokenAmount};
use pace_world::{World, default_policy};

#[test]
fn approved_legs_stop_at_the_on_chain_budget() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
    let e18 = U256::from(10u64).pow(U256::from(18u64));
    let limit = U256::from(50_000u64) * e18; // one intent's cap, as a daily budget
    world
        .evm
        .call_sol(
            a.owner,
            a.account,
            U256::ZERO,
            &PaceAccount::setBudgetCall {
                token: a.dai,
                limit: limit.to(),
                period: 86_400,
            },
        )
        .unwrap();

    let leg = U256::from(20_000u64) * e18;
    let intent = Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls: vec![Call {
            target: a.dai,
            value: U256::ZERO,
            data: Bytes::from(
                IERC20::transferCall {
                    to: a.payee,
                    value: leg,
                }
                .abi_encode(),
            ),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount {
                token: a.dai,
                amount: leg,
            }],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    // Without outcome bounds the PDR is a single unbounded call: the lean entry point, which a
    // budgeted account refuses, so the pipeline must pick the batch one.
    let config = PipelineConfig {
        outcome_bounds: false,
        ..PipelineConfig::default()
    };
    let mut results = Vec::new();
    for _ in 0..5 {
        let eval = evaluate(&world.evm, &intent, &policy, &signer, &config).unwrap();
        assert!(eval.decision.approved, "{:?}", eval.decision.violations);
        world.advance(1);
        results.push(
            execute(
                &mut world.evm,
                a.relayer,
                eval.record.signed().unwrap(),
                &[a.dai],
            )
            .unwrap(),
        );
    }
    let executed = results
        .iter()
        .filter(|r| matches!(r, ExecutionResult::Executed { .. }))
        .count();
    assert_eq!(executed, 2, "{results:?}");
    match &results[2] {
        ExecutionResult::Reverted { error, .. } => {
            assert!(error.contains("PaceAccountBudgetExceeded"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(world.balance_of(a.dai, a.payee), leg * U256::from(2u64));
}
