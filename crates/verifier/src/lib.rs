//! The PACE policy verifier: a pure function from (intent, policy, simulation report, clock)
//! to a [`Decision`](pace_types::Decision).
//!
//! [`verify`] never does I/O, never reads a clock (the caller passes `now`), never consults a
//! model and uses no randomness: the same inputs give a byte-identical decision. It reports
//! every violation it finds, in a fixed order, and approves only when there are none.
//!
//! Field provenance: the facts it judges (which tokens leave the account and how much,
//! which approvals are granted and to whom, where swap output goes, slippage, price impact,
//! touched contracts) come from [`decode`]d calldata and the trusted simulator's trace. The
//! agent's claims are compared against them and can only make a bound stricter.
//!
//! The checks and their codes are listed in `docs/violation-codes.md`.

mod checks;
pub mod decode;
mod facts;
mod normalize;
mod value;
mod verify;

pub use verify::{MAX_CALLS, MAX_LIST_LEN, MAX_REPORT_LIST_LEN, verify, verify_hashed};
