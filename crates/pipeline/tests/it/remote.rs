//! The pipeline on a fork of a node: `evaluate` prefetches what the simulation reads in a few
//! batched round trips instead of one request per account field and storage slot.

use crate::door::evaluate;
use alloy_primitives::B256;
use pace_evm::InProcessEvm;
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_simulator::{SimulateOptions, simulate_with};
use pace_testkit::{ether, on_node::world_on_anvil};
use pace_types::CompiledPolicy;
use pace_world::{World, default_policy};

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
    let intent = pace_testkit::intents::dai_to_payee(&world, ether(5));

    // The same simulation on a fresh fork without the prefetch: one round trip per key.
    let plain = InProcessEvm::fork(anvil.url(), None).unwrap();
    let start = round_trips(&plain);
    simulate_with(&plain, &intent, &SimulateOptions::for_policy(&policy)).unwrap();
    let unbatched = round_trips(&plain) - start;

    let fork = InProcessEvm::fork(anvil.url(), None).unwrap();
    let start = round_trips(&fork);
    let eval = evaluate(&fork, &intent, &policy, &signer, &PipelineConfig::default()).unwrap();
    let batched = round_trips(&fork) - start;
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    assert!(eval.record.signed().is_some());
    // Simulate, verify and sign (which reads the account's nonce lane) together.
    println!("evaluate: {batched} round trips; simulate without prefetch: {unbatched}");
    assert!(
        batched <= 5 && batched * 3 <= unbatched,
        "evaluate made {batched} round trips; the simulation alone without prefetch {unbatched}"
    );
    drop(anvil);
}
