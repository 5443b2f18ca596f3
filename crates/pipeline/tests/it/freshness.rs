//! The PDR's signed maximum simulation age against the policy's freshness window: a decision
//! the verifier makes at exactly `max_simulation_age_secs` must still be executable in the
//! next block, on the pipeline's default configuration.

use crate::door::execute;
use alloy_primitives::{Address, B256, U256};
use pace_pipeline::{
    Evidence, ExecutionResult, Nonce, PdrRecord, Pipeline, Relayer, next_sequence,
};
use pace_types::{CompiledPolicy, Intent, ViolationCode};
use pace_world::{World, default_policy};

/// Seconds per block of the embedded world.
const BLOCK_SECS: u64 = 12;

fn dai_transfer(world: &World) -> Intent {
    let amount = U256::from(10u64).pow(U256::from(18u64)) * U256::from(25u64);
    pace_testkit::intents::dai_to_payee(world, amount)
}

/// Simulates on the world's block, lets `age_secs` pass (whole blocks), decides then and
/// submits in the block after the decision.
fn decide_after(age_secs: u64) -> (pace_pipeline::Evaluation, Option<ExecutionResult>) {
    let pipeline = Pipeline::from_key(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(pipeline.verifier()).unwrap();
    let pipeline =
        pipeline.with_relayer(Relayer::free(world.addrs.relayer, world.evm.tx_gas_limit()));
    let a = world.addrs;
    let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
    assert_eq!(policy.max_simulation_age_secs % BLOCK_SECS, 0);
    let intent = dai_transfer(&world);
    let simulated = pipeline.simulate(&world.evm, intent, &policy).unwrap();
    let report = simulated.report().get().clone();
    let simulated_on = world.evm.clone();

    let (block, time) = (world.evm.block_number(), world.evm.timestamp());
    let blocks = age_secs / BLOCK_SECS;
    world.evm.set_block(block + blocks, time + age_secs);
    let now = world.evm.timestamp();
    let assessed = pipeline.decide(Evidence::Simulated(simulated), &policy, now);
    let (record, checked) = if assessed.approved() {
        let nonce = Nonce {
            key: 0,
            sequence: next_sequence(&world.evm, a.account, 0).unwrap(),
        };
        let signed = pipeline.sign(&assessed, &policy, nonce, &[]).unwrap();
        let checked = pipeline
            .preflight(&simulated_on, &policy, &assessed, &signed)
            .unwrap();
        let record = PdrRecord::Signed {
            decision: assessed.decision().clone(),
            pdr: Box::new(signed),
        };
        (record, Some(checked))
    } else {
        let record = PdrRecord::Unsigned {
            decision: assessed.decision().clone(),
        };
        (record, None)
    };
    let eval = pace_pipeline::Evaluation {
        report,
        decision: assessed.into_decision(),
        record,
        checked,
        refused: None,
    };
    let outcome = eval.checked.as_ref().map(|signed| {
        world
            .evm
            .set_block(block + blocks + 1, time + age_secs + BLOCK_SECS);
        execute(&mut world.evm, a.relayer, signed, &[a.dai]).unwrap()
    });
    (eval, outcome)
}

#[test]
fn a_decision_at_the_policys_freshness_limit_executes_in_the_next_block() {
    let policy = default_policy(&World::new(Address::repeat_byte(1)).unwrap().addrs);
    let (eval, outcome) = decide_after(policy.max_simulation_age_secs);
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    assert!(
        matches!(outcome, Some(ExecutionResult::Executed { .. })),
        "a PDR approved at the freshness limit must land in the next block: {outcome:?}"
    );
}

#[test]
fn one_block_past_the_limit_is_refused_off_chain() {
    let policy = default_policy(&World::new(Address::repeat_byte(1)).unwrap().addrs);
    let (eval, outcome) = decide_after(policy.max_simulation_age_secs + BLOCK_SECS);
    assert!(
        eval.decision
            .codes()
            .any(|c| c == ViolationCode::SimulationStale),
        "{:?}",
        eval.decision.violations
    );
    assert!(outcome.is_none());
}
