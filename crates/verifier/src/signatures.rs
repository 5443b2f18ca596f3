//! The account's own signatures (ERC-1271). A PDR call to the account itself with
//! `approveHash(digest, domain, message)` makes the account's signature of `digest` valid while
//! the PDR runs (`contracts/core/PdrCalls.sol`). The verifier never judges that call as it is
//! (a call to the account, which moves nothing): it decodes the typed data, checks it hashes to
//! the digest, and puts in its place the call that grants what the signature grants
//! (`pace_abi::decode::typed_data`): a token's `permit`, or Permit2's. Every check then judges
//! that call: its contract must be an allowed target, its selector allowed, the allowance
//! within the token's spend cap and to an allowed counterparty, and claimed.
//!
//! Refused as `MALFORMED_CALLDATA`: a signing call that does not decode or whose typed data is
//! of a kind not read (see `typed_data`), one with value, and a second one in an intent (the
//! account signs at most one hash per PDR).

use alloy_primitives::U256;
use pace_abi::decode::typed_data::{decode_signing_call, is_signing_call};
use pace_types::{Call, Intent, Violation, ViolationCode};
use std::borrow::Cow;

/// `intent` with each signing call replaced by the call it is judged as, and the violations of
/// those that cannot be (left in place: a call to the account, which no policy allows).
pub(crate) fn judged(intent: &Intent) -> (Cow<'_, Intent>, Vec<Violation>) {
    let account = intent.account;
    let mut violations = Vec::new();
    let mut replaced: Option<Intent> = None;
    let mut seen = false;
    for (i, call) in intent.calls.iter().enumerate() {
        if !is_signing_call(account, call.target, &call.data) {
            continue;
        }
        let refuse = |why: String| {
            Violation::new(ViolationCode::MalformedCalldata, format!("call {i}: {why}"))
        };
        if seen {
            violations.push(refuse("the account signs at most one hash per PDR".into()));
            continue;
        }
        seen = true;
        if call.value != U256::ZERO {
            violations.push(refuse("the account's signing call carries value".into()));
            continue;
        }
        match decode_signing_call(account, intent.chain_id, &call.data) {
            Ok(signed) => {
                let (target, data) = signed.equivalent_call(account);
                replaced.get_or_insert_with(|| intent.clone()).calls[i] = Call {
                    target,
                    value: U256::ZERO,
                    data,
                };
            }
            Err(e) => violations.push(refuse(format!("the account's signature is refused: {e}"))),
        }
    }
    let judged = replaced.map_or(Cow::Borrowed(intent), Cow::Owned);
    (judged, violations)
}
