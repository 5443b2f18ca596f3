//! Builds the EIP-712 Policy Decision Record (PDR) for a decision and signs it with the
//! verifier's secp256k1 key.
//!
//! A PDR is signed **only** for an approved decision: [`attest`] turns a rejected decision into
//! an unsigned [`PdrRecord::Unsigned`] kept for the audit trail, so a valid signature always
//! attests an approval. The signed digest is the one `contracts/PaceAccount.sol` recomputes
//! (see [`pace_types::pdr`]); signatures are RFC 6979 deterministic, low-s, and travel in the
//! EIP-2098 compact form `(r, vs)` the account takes.
//!
//! Outcome bounds come from the simulation ([`bounds_from_report`]) so the account can reject
//! an execution whose realised balance changes stray from what was approved.

mod bounds;
mod error;
mod key;
mod record;

pub use bounds::bounds_from_report;
pub use error::{Error, Result};
pub use key::{CompactSignature, PdrSigner};
pub use record::{PdrRecord, SignedPdr, attest};
