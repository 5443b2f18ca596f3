//! The PACE policy verifier: a pure function from (intent, policy, simulation report, clock)
//! to a [`Decision`](pace_types::Decision).
//!
//! [`verify`] never does I/O, never reads a clock (the caller passes `now`), never consults a
//! model and uses no randomness: the same inputs give a byte-identical decision. It reports
//! every violation it finds, in a fixed order, and approves only when there are none.
//!
//! An approval is a type, not a flag. A [`Decision`](pace_types::Decision) is a record that
//! anyone can read or rebuild; what `pace-signer` signs a PDR for is an [`ApprovedIntent`],
//! and only this crate makes one:
//!
//! - [`verify`] / [`verify_hashed`] judge and return the decision (for callers that only
//!   judge: `pace verify`, baselines, re-checks);
//! - [`approve`] / [`approve_hashed`] judge the same way and return a [`Verdict`]:
//!   [`Verdict::Approved`] with the [`ApprovedIntent`] (the intent, its approving decision and
//!   `now`, held together and immutable) when there are no violations, else
//!   [`Verdict::Rejected`] with the decision.
//!
//! An `ApprovedIntent` has no public constructor and no `Deserialize`, and a decision's
//! `approved` cannot be set, so no caller can fabricate an approval (`tests/compile_fail/`
//! holds the forgeries that must not compile).
//!
//! Field provenance: the facts it judges (which tokens leave the account and how much,
//! which approvals are granted and to whom, where swap output goes, slippage, price impact,
//! touched contracts) come from [`decode`]d calldata and the trusted simulator's trace. The
//! agent's claims are compared against them and can only make a bound stricter.
//!
//! The checks and their codes are listed in `docs/violation-codes.md`.

mod approval;
mod checks;
mod declared;
pub mod decode;
mod facts;
mod items;
mod normalize;
mod relied;
mod signatures;
mod value;
mod verify;

/// A list held inline up to `N` entries: most intents touch a handful of tokens and
/// counterparties, and deciding on them allocates nothing for those lists.
pub(crate) type Few<T, const N: usize> = smallvec::SmallVec<[T; N]>;

pub use approval::{ApprovedIntent, Verdict};
pub use value::outflow_value;
pub use verify::{
    MAX_CALLS, MAX_LIST_LEN, MAX_PRICE_LEGS, MAX_REPORT_LIST_LEN, approve, approve_hashed, verify,
    verify_hashed,
};
