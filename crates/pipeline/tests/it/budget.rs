//! With spending budgets on the account, the pipeline still executes (through the batch entry
//! point) and a run of individually approved transfers stops at the budget on-chain; a leg
//! simulated after the budget is spent fails in the simulation, which runs the account's own
//! metering. With the budget also in the policy, the verifier refuses the over-budget leg
//! before signing, from the budget state the simulator reads off the account.

use crate::door::{evaluate, execute};
use alloy_primitives::{B256, U256};
use pace_contracts::bindings::PaceAccount;
use pace_pipeline::{ExecutionResult, Pipeline, PipelineConfig, Relayer};
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
    let pipeline = Pipeline::new(signer)
        .with_config(config)
        .with_relayer(Relayer::free(a.relayer, world.evm.tx_gas_limit()));
    // Three legs decided and signed on the same state, one lane each: each fits the budget
    // alone, so each is approved and checked.
    let checked: Vec<_> = (0..3)
        .map(|lane| {
            let eval = pipeline
                .evaluate(&world.evm, &intent, &policy, lane)
                .unwrap();
            assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
            eval.checked.unwrap()
        })
        .collect();
    world.advance(1);
    let results: Vec<_> = checked
        .iter()
        .map(|c| execute(&mut world.evm, a.relayer, c, &[a.dai]).unwrap())
        .collect();
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

    // A fourth leg is simulated as the account runs it, under its budget: refused before
    // anything is signed.
    let eval = pipeline.evaluate(&world.evm, &intent, &policy, 3).unwrap();
    assert!(eval.record.signed().is_none());
    assert!(
        eval.report
            .revert_reason
            .as_deref()
            .is_some_and(|r| r.contains("PaceAccountBudgetExceeded")),
        "{:?}",
        eval.report.revert_reason
    );
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
        if let Some(checked) = &eval.checked {
            world.advance(1);
            let result = execute(&mut world.evm, a.relayer, checked, &[a.dai]).unwrap();
            assert!(
                matches!(result, ExecutionResult::Executed { .. }),
                "{result:?}"
            );
        }
    }
    // The report carried the account's period: 40,000 spent of 50,000 after two legs; the
    // third leg's simulation, run as the account runs it, also hits the on-chain budget.
    assert_eq!(decisions[..2], [vec![], vec![]]);
    assert!(
        decisions[2].contains(&ViolationCode::BudgetExceeded)
            && decisions[2].contains(&ViolationCode::SimulationFailed),
        "{decisions:?}"
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
