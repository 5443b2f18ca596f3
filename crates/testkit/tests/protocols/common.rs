//! The bed every test starts from, and reading an owner-path batch's failure.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolInterface};
use pace_contracts::bindings::PaceAccount;
use pace_evm::Outcome;
use pace_testkit::protocols::{Protocols, world_with_protocols};
use pace_types::Call;
use pace_world::World;

/// The verifier key address of the tests' world.
pub(crate) const VERIFIER: Address = Address::repeat_byte(0x5e);

/// A fresh copy of the world with the bed (deployed once per process).
pub(crate) fn bed() -> (World, Protocols) {
    world_with_protocols(VERIFIER).unwrap_or_else(|e| panic!("deploy the protocols: {e}"))
}

/// Executes `calls` through the owner path and panics, naming the failure, unless it succeeds.
pub(crate) fn execute(world: &mut World, calls: &[Call]) -> Outcome {
    let outcome = owner_batch(world, calls);
    assert!(
        outcome.success,
        "owner batch reverted: {:?}",
        failed_call(&outcome).map_or_else(
            || outcome.output.to_string(),
            |(i, r)| format!("call {i}: {r}")
        )
    );
    outcome
}

/// Executes `calls` through the owner path (`executeBatch` from the owner), committed.
pub(crate) fn owner_batch(world: &mut World, calls: &[Call]) -> Outcome {
    let a = world.addrs;
    let batch = PaceAccount::executeBatchCall {
        calls: calls
            .iter()
            .map(|c| PaceAccount::Call {
                target: c.target,
                value: c.value,
                data: c.data.clone(),
            })
            .collect(),
    };
    world
        .evm
        .call(a.owner, a.account, U256::ZERO, batch.abi_encode().into())
        .expect("the EVM runs the batch")
}

/// The failed call of a reverted batch: its index and its own revert data.
pub(crate) fn failed_call(outcome: &Outcome) -> Option<(u64, Bytes)> {
    match PaceAccount::PaceAccountErrors::abi_decode(&outcome.output).ok()? {
        PaceAccount::PaceAccountErrors::PaceAccountCallFailed(f) => Some((f.index.to(), f.reason)),
        _ => None,
    }
}

/// `|a - b| <= tolerance`.
pub(crate) fn close(a: U256, b: U256, tolerance: U256) -> bool {
    a.abs_diff(b) <= tolerance
}
