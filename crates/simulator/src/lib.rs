//! The trusted PACE simulator: runs an [`Intent`](pace_types::Intent) on a fork of an
//! [`InProcessEvm`](pace_evm::InProcessEvm) world and derives its
//! [`SimulationReport`](pace_types::SimulationReport) from the execution itself.
//!
//! Field provenance: every fact in the report comes from the EVM (call frames seen by an
//! inspector, the logs of the successful execution, `balanceOf` / `allowance` / `getReserves` /
//! `healthFactor` reads before and after) and from the calldata decoded by
//! [`pace_abi::decode_call_from`]. Nothing is copied from the intent's `claimed` fields.
//!
//! Its ABIs come from `pace-abi` only: it must never depend on `pace-contracts` (the compiler)
//! or on the verifier (`tests/it/deps.rs` checks).
//!
//! What it must never do: mutate the world it is given (the calls run on a copy-on-write
//! overlay over it), read a clock, use randomness or do I/O. The same world and intent give a
//! byte-identical report.
//!
//! A reverting intent is not an error: its report says `success: false` with the decoded
//! reason. The simulator decodes the standard reasons, the ERC-20 and `SafeERC20` errors and the
//! account's errors by itself; other contracts' custom errors through the
//! [`RevertDecoder`](pace_abi::revert::RevertDecoder) the caller passes in [`SimulateOptions`].
//! It knows no mock contract. [`Error`] is for what cannot be simulated at all (an invalid intent, another chain, an EVM failure, a forked world
//! whose node cannot answer a read, in the calls or in any view around them).
//!
//! Where the trace and the balances disagree (a token whose `Transfer` logs do not add up to
//! the account's balance change, an allowance that moved without an `Approval` log), the
//! disagreement is returned as a [`Discrepancy`] by [`simulate_detailed`].
//!
//! ```no_run
//! # fn demo(world: &pace_evm::InProcessEvm, intent: &pace_types::Intent) -> Result<(), pace_simulator::Error> {
//! let report = pace_simulator::simulate(world, intent)?;
//! assert_eq!(report.intent_hash, intent.intent_hash());
//! # Ok(()) }
//! ```

mod adapters;
mod balances;
mod budgets;
mod discrepancy;
mod error;
mod execute;
mod fork;
mod grants;
mod health;
mod logs;
mod members;
mod positions;
mod precompile;
mod prefetch;
mod prices;
mod rights;
mod simulate;
mod submission;
mod swap;
mod tracer;

pub use discrepancy::Discrepancy;
pub use error::{Error, Result};
pub use precompile::is_precompile;
pub use prefetch::{Prefetch, prefetch, prefetch_with};
pub use simulate::{
    SimulateOptions, Simulation, policy_tokens, simulate, simulate_detailed, simulate_hashed,
    simulate_submission, simulate_submission_effects, simulate_with,
};
pub use submission::{BLOCK_TIME_SECS, Submission, SubmissionBlock};
