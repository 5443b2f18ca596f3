//! The claims check's evidence and its messages: ether is exact even beside calls the decoder
//! does not know, and each message says what the calldata moves and what was claimed
//! (mutation testing found these untested).

use crate::case::Case;
use alloy_primitives::{Bytes, U256};
use pace_testkit::mainnet::*;
use pace_types::{ETH, Selector, TokenAmount, ViolationCode as Code};

const OPAQUE: [u8; 4] = [0xde, 0xad, 0xbe, 0xef];

/// The benign swap with one more call, to the router, of a function the decoder does not know,
/// sending `value` wei; the agent claims `claimed` wei of ether out.
fn with_opaque_value_call(value: u64, claimed: u64) -> Case {
    Case::benign()
        .with(|c| {
            let mut opaque = call(ROUTER, Bytes::from(OPAQUE.to_vec()));
            opaque.value = U256::from(value);
            c.intent.calls.push(opaque);
            c.intent.claimed.outflows.push(TokenAmount {
                token: ETH,
                amount: U256::from(claimed),
            });
            c.policy.allowed_selectors.push(Selector::from(OPAQUE));
            c.policy.max_value_wei = U256::from(1_000u64);
        })
        .rehash()
}

fn claim_messages(c: &Case) -> Vec<String> {
    c.decide()
        .violations
        .into_iter()
        .filter(|v| v.code == Code::OutflowClaimMismatch)
        .map(|v| v.message)
        .collect()
}

#[test]
fn an_ether_claim_above_the_call_values_is_caught_beside_an_undecoded_call() {
    // The calls send 7 wei: a claim of 7 is right, 8 is not, although the decoder does not
    // know the call (a token could leave through it, ether only as its value).
    assert!(claim_messages(&with_opaque_value_call(7, 7)).is_empty());
    let over = claim_messages(&with_opaque_value_call(7, 8));
    assert_eq!(over.len(), 1, "{over:?}");
    assert!(
        over[0].contains("the calldata moves 7, the claim is 8"),
        "{over:?}"
    );
}

#[test]
fn a_missing_ether_claim_says_so() {
    // No ether claimed at all for a call that sends 7 wei.
    let c = with_opaque_value_call(7, 0).with(|c| {
        c.intent.claimed.outflows.retain(|o| o.token != ETH);
    });
    let messages = claim_messages(&c.rehash());
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("the calldata moves 7, no outflow is claimed"),
        "{messages:?}"
    );
}
