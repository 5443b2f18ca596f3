//! The PACE pipeline, end to end, behind one door, [`Pipeline`]:
//!
//! ```text
//! intent ──► simulate (revm) ──► decide (pure) ──► sign PDR (approve only) ──► submit ──► PaceAccount
//! ```
//!
//! [`Pipeline::simulate`] runs the trusted simulator with what the policy asks it to read;
//! [`Pipeline::decide`] is the verifier's decision on that simulation (or on a presented
//! report, or none); [`Pipeline::sign`] builds and signs the PDR, only for an approval
//! (`pace_verifier::ApprovedIntent`, which nothing else can make), on a nonce the caller
//! supplies ([`next_sequence`] reads it); [`Pipeline::submit`] sends it through the account on
//! a [`Chain`] and reports what the chain did as an [`ExecutionResult`] that never claims
//! success without the transaction's own result and never claims failure for one that may
//! have landed.
//!
//! It links no compiler and no fixture world (a test walks its dependency graph): the CLI,
//! the benchmark and the service bring their own states.

pub mod account;
mod chain;
mod documents;
mod error;
mod outcome;
mod perturb;
mod pipeline;
mod submission;

pub use account::{
    AccountState, ENTRY_POINT, VERIFICATION_GAS_LIMIT, account_state_reads,
    calldata::{pdr_transaction, submission_calldata},
    max_gas_cost, route_for,
    sequence::{lane_sequence, next_sequence, sequence_for},
};
pub use chain::{Chain, InProcessChain, SUBMISSION_GAS_LIMIT};
pub use error::{Error, Result};
pub use outcome::{ExecutionResult, RevertCause};
/// The account kinds and entry paths, as `pace_types::account` defines them.
pub use pace_types::{AccountKind, Entry};
pub use pipeline::{
    Assessed, Evaluation, Evidence, Nonce, Pipeline, PipelineConfig, Simulated, Simulator,
};
pub use submission::{Checked, Relayer, simulation_key};

/// What the pipeline signs with and hands out, for its callers: the verifier key, the signed
/// PDR and its audit record, and the outcome bounds of changes a person confirmed.
pub use pace_signer::{DEV_VERIFIER_KEY, PdrRecord, PdrSigner, SignedPdr, bounds_from_changes};
