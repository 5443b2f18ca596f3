//! Builds the EIP-712 Policy Decision Record (PDR) for an approval and signs it with the
//! verifier's secp256k1 key.
//!
//! A PDR is signed **only** for an approval: [`attest`] takes a
//! [`pace_verifier::ApprovedIntent`], which only the verifier makes (from a decision without
//! violations), and signs the calls of the intent it holds. A `Decision` alone cannot be
//! signed, whatever it says, so a valid signature always attests an approval the verifier
//! made. A rejection is kept unsigned for the audit trail ([`PdrRecord::Unsigned`]). The
//! signed digest is the one `contracts/PaceAccount.sol` recomputes
//! (see [`pace_types::pdr`]); signatures are RFC 6979 deterministic, low-s, and travel in the
//! EIP-2098 compact form `(r, vs)` the account takes.
//!
//! Outcome bounds come from the simulation ([`bounds_from_report`]) so the account can reject
//! an execution whose realised balance changes stray from what was approved, and
//! post-conditions from the facts the approval rested on ([`post_conditions`]) so it can
//! reject one that changed them.

mod bounds;
mod error;
mod key;
mod post_conditions;
mod public_nonce;
mod record;

pub use bounds::{Bounds, bounds_from_changes, bounds_from_report, tightest};
pub use error::{Error, Result};
pub use key::{CompactSignature, DEV_VERIFIER_KEY, PdrSigner};
pub use post_conditions::post_conditions;
pub use public_nonce::{KEY_ONE, key_one_signature};
pub use record::{PdrRecord, SignedPdr, attest, attest_on};
