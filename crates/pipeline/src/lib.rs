//! The PACE pipeline, end to end:
//!
//! ```text
//! intent ──► simulate (revm) ──► verify (pure) ──► sign PDR (approve only) ──► PaceAccount
//! ```
//!
//! [`evaluate`] runs the trusted, off-chain half on a world's current state and returns the
//! report, the decision and the PDR record. [`sign_pdr`] is its one PDR builder: it signs
//! only for a verifier's approval (`pace_verifier::ApprovedIntent`, which nothing else can
//! make). [`execute`] submits a signed PDR through the account and reports what the chain
//! did, as an [`ExecutionResult`] that never claims success without the transaction's own
//! result and never claims failure for one that may have landed.
//! [`demo`] is the scripted agent behind `pace demo`.

mod chain;
pub mod demo;
mod error;
mod evaluate;
mod execute;
mod sequence;
mod submit;

pub use chain::{Chain, InProcessChain, SUBMISSION_GAS_LIMIT, execution_result, submit};
pub use error::{Error, Result};
pub use evaluate::{Evaluation, Pipeline, PipelineConfig, evaluate, evaluate_with, sign_pdr};
pub use execute::{
    ExecutionResult, RevertCause, execute, execute_calldata, execute_on_node, submit_pdr,
};
pub use sequence::next_sequence;
pub use submit::{submission_calldata, submission_calldata_for, tampered};
