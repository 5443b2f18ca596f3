//! What makes two requests the same: an intent's on-chain identity, and a request's canonical
//! form.
//!
//! Two intents are *equal* when they run the same calls (target, value, data) from the same
//! account on the same chain; memos, metadata and claims do not change what executes. An
//! unattended execution of an intent equal to one executed recently needs the caller's
//! explicit `allow_repeat` (see [`crate::Service::propose_with`]).
//!
//! A request's canonical form is the parsed request serialised again, so the order of its JSON
//! keys, whitespace and number spellings never make two deliveries of one request differ.

use alloy_primitives::{B256, keccak256};
use pace_types::{Call, Intent};
use serde::Serialize;

/// The identity of what `intent` executes: its chain, account and calls, nothing else.
pub fn intent_identity(intent: &Intent) -> B256 {
    #[derive(Serialize)]
    struct Identity<'a> {
        chain_id: u64,
        account: alloy_primitives::Address,
        calls: &'a [Call],
    }
    let mut bytes = b"PACE-RS/intent-identity/v1\n".to_vec();
    bytes.extend_from_slice(&pace_types::hash::canonical_json(&Identity {
        chain_id: intent.chain_id,
        account: intent.account,
        calls: &intent.calls,
    }));
    keccak256(bytes)
}

/// The hash of a canonical request: `domain`, then the canonical JSON of `request`.
pub fn request_hash<T: Serialize>(domain: &str, request: &T) -> B256 {
    let mut bytes = format!("PACE-RS/request/v1/{domain}\n").into_bytes();
    bytes.extend_from_slice(&pace_types::hash::canonical_json(request));
    keccak256(bytes)
}

/// Length-prefixed parts hashed under a domain: an unambiguous key from several strings.
pub(crate) fn key(domain: &[u8], parts: &[&[u8]]) -> B256 {
    let mut bytes = domain.to_vec();
    for part in parts {
        bytes.extend_from_slice(&(part.len() as u64).to_be_bytes());
        bytes.extend_from_slice(part);
    }
    keccak256(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, U256};

    fn intent(memo: &str) -> Intent {
        Intent {
            chain_id: 1,
            account: Address::repeat_byte(1),
            calls: vec![Call {
                target: Address::repeat_byte(2),
                value: U256::from(5u8),
                data: vec![1, 2, 3, 4].into(),
            }],
            claimed: Default::default(),
            metadata: [("memo".to_owned(), memo.to_owned())].into(),
        }
    }

    #[test]
    fn memos_do_not_change_identity_but_calls_do() {
        assert_eq!(intent_identity(&intent("a")), intent_identity(&intent("b")));
        let mut other = intent("a");
        other.calls[0].value = U256::from(6u8);
        assert_ne!(intent_identity(&intent("a")), intent_identity(&other));
        let mut elsewhere = intent("a");
        elsewhere.chain_id = 2;
        assert_ne!(intent_identity(&intent("a")), intent_identity(&elsewhere));
    }

    #[test]
    fn key_order_does_not_change_a_request_hash() {
        let a: serde_json::Value = serde_json::from_str(r#"{"x":1,"y":[1,2]}"#).unwrap();
        let b: serde_json::Value = serde_json::from_str(r#"{ "y": [1, 2], "x": 1 }"#).unwrap();
        assert_eq!(request_hash("t", &a), request_hash("t", &b));
        assert_ne!(request_hash("t", &a), request_hash("u", &a));
        assert_ne!(key(b"d", &[b"ab", b"c"]), key(b"d", &[b"a", b"bc"]));
    }
}
