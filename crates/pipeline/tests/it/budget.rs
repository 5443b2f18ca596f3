//! With spending budgets on the account, the pipeline still executes (through the batch entry
//! point) and a run of individually approved transfers stops at the budget on-chain. With the
//! budget also in the policy, the verifier refuses the over-budget leg before signing, from
//! the budget state the simulator reads off the account.

use crate::door::{evaluate, execute};
use alloy_primitives::{B256, U256};
use pace_contracts::bindings::PaceAccount;
use pace_pipeline::{ExecutionResult, PipelineConfig};
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{CompiledPolicy, Intent, PeriodBudget, ViolationCode};
use pace_world::{World, default_policy};

/// The world, with the owner's daily DAI budget of `limit` set when given.
fn world(signer: &PdrSigner, limit: Option<U256>) -> World {
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    if let Some(limit) = limit {
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
    }
    world
}

/// One leg of the drain: `leg` DAI to the (allow-listed) payee.
fn transfer(world: &World, leg: U256) -> Intent {
    pace_testkit::intents::dai_to_payee(world, leg)
}

#[test]
fn approved_legs_stop_at_the_on_chain_budget() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let limit = ether(50_000); // one intent's cap, as a daily budget
    let mut world = world(&signer, Some(limit));
    let a = world.addrs;
    let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
    let leg = ether(20_000);
    let intent = transfer(&world, leg);
    // Without outcome bounds the PDR is a single unbounded call: the lean entry point, which a
    // budgeted account refuses, so the pipeline must pick the batch one.
    let config = PipelineConfig {
        outcome_bounds: false,
        ..PipelineConfig::default()
    };
    let mut results = Vec::new();
    for _ in 0..5 {
        let eval = evaluate(&world.evm, &intent, &policy, &signer, &config).unwrap();
        assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
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

#[test]
fn a_policy_budget_refuses_the_over_budget_leg_before_signing() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let limit = ether(50_000);
    let mut world = world(&signer, Some(limit));
    let a = world.addrs;
    let mut policy = default_policy(&a);
    policy.budgets.push(PeriodBudget {
        token: a.dai,
        limit,
        period_secs: 86_400,
    });
    let policy = CompiledPolicy::try_from(policy).unwrap();
    let leg = ether(20_000);
    let intent = transfer(&world, leg);
    let config = PipelineConfig::default();
    let mut decisions = Vec::new();
    for _ in 0..3 {
        let eval = evaluate(&world.evm, &intent, &policy, &signer, &config).unwrap();
        decisions.push(eval.decision.codes().collect::<Vec<_>>());
        if let Some(signed) = eval.record.signed() {
            world.advance(1);
            let result = execute(&mut world.evm, a.relayer, signed, &[a.dai]).unwrap();
            assert!(
                matches!(result, ExecutionResult::Executed { .. }),
                "{result:?}"
            );
        }
    }
    // The report carried the account's period: 40,000 spent of 50,000 after two legs.
    assert_eq!(
        decisions,
        vec![vec![], vec![], vec![ViolationCode::BudgetExceeded]]
    );
    let report = evaluate(&world.evm, &intent, &policy, &signer, &config)
        .unwrap()
        .report;
    assert_eq!(report.budgets.len(), 1);
    assert_eq!(report.budgets[0].spent, leg * U256::from(2u64));
    assert_eq!(report.budgets[0].limit, limit);
    assert_eq!(world.balance_of(a.dai, a.payee), leg * U256::from(2u64));

    // The same policy on an account whose owner never set the budget: nothing is signed.
    let bare = self::world(&signer, None);
    let eval = evaluate(&bare.evm, &transfer(&bare, leg), &policy, &signer, &config).unwrap();
    assert_eq!(
        eval.decision.codes().collect::<Vec<_>>(),
        vec![ViolationCode::BudgetNotEnforced]
    );
    assert!(eval.record.signed().is_none());
}
