//! The pipeline on a fork of a node: `evaluate` (pass 1, verify, sign, pass 2 and its other
//! runs) prefetches what it reads in a few batched round trips instead of one request per
//! account field and storage slot: at most 3 on a cold fork for a transfer and for the demo's
//! approve + Uniswap V2 swap, and none on a warm one.

use crate::door::evaluate;
use alloy_primitives::B256;
use pace_evm::InProcessEvm;
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_simulator::{SimulateOptions, simulate_with};
use pace_testkit::{ether, on_node::world_on_anvil};
use pace_types::{CompiledPolicy, Intent};
use pace_world::{World, default_policy, scenarios};

fn round_trips(fork: &InProcessEvm) -> u64 {
    fork.backend().rpc().expect("a fork").stats().round_trips
}

#[test]
fn evaluate_on_a_fork_prefetches_the_state_it_reads() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let world = World::new(signer.address()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (anvil, _client) = runtime.block_on(world_on_anvil(&world.evm)).unwrap();
    let a = world.addrs;
    let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
    let swap = scenarios(&world)
        .into_iter()
        .find(|s| s.name == "benign swap")
        .expect("the demo's swap")
        .intent;
    let transfer = pace_testkit::intents::dai_to_payee(&world, ether(5));
    let cases: [(&str, Intent); 2] = [("transfer", transfer), ("swap", swap)];

    for (name, intent) in cases {
        // The same simulation on a fresh fork without the prefetch: one round trip per key.
        let plain = InProcessEvm::fork(anvil.url(), None).unwrap();
        let start = round_trips(&plain);
        simulate_with(&plain, &intent, &SimulateOptions::for_policy(&policy)).unwrap();
        let unbatched = round_trips(&plain) - start;

        let fork = InProcessEvm::fork(anvil.url(), None).unwrap();
        let start = round_trips(&fork);
        let eval = evaluate(&fork, &intent, &policy, &signer, &PipelineConfig::default()).unwrap();
        let cold = round_trips(&fork) - start;
        assert!(
            eval.decision.approved(),
            "{name}: {:?}",
            eval.decision.violations
        );
        assert!(eval.checked.is_some(), "{name}: {:?}", eval.refused);

        // The same intent again on the same fork: everything it reads is held.
        let start = round_trips(&fork);
        let again = evaluate(&fork, &intent, &policy, &signer, &PipelineConfig::default()).unwrap();
        let warm = round_trips(&fork) - start;
        assert!(again.decision.approved());

        println!(
            "evaluate {name}: {cold} round trips cold, {warm} warm; \
             the simulation alone without prefetch: {unbatched}"
        );
        assert!(
            cold <= 3 && cold * 3 <= unbatched && warm == 0,
            "{name}: evaluate made {cold} round trips cold and {warm} warm; \
             the simulation alone without prefetch {unbatched}"
        );
    }
    drop(anvil);
}
