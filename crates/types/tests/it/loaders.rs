//! The loaders never panic, whatever the bytes, and name the field they reject.

use pace_types::{CompiledPolicy, Decision, Error, Intent, Policy, SimulationReport};
use proptest::prelude::*;

const INTENT: &str = r#"{"chain_id":1,"account":"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45",
  "calls":[{"target":"0x7a250d5630b4cf539739df2c5dacb4c659f2488d","value":"0","data":"0x38ed1739"}],
  "claimed":{"outflows":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","amount":"2500000000"}],"slippage_bps":50},
  "metadata":{"task":"swap"}}"#;

const POLICY: &str = r#"{"allowed_targets":["0x7a250d5630b4cf539739df2c5dacb4c659f2488d"],
  "allowed_selectors":["0x38ed1739"],"max_value_wei":"0","max_slippage_bps":100,"max_price_impact_bps":100,
  "max_simulation_age_secs":120,"metadata_patterns":["(?i)ignore previous"],"checks":{"claims":false}}"#;

const REPORT: &str = r#"{"intent_hash":"0x1111111111111111111111111111111111111111111111111111111111111111",
  "block_number":1,"timestamp":2,"success":true,"balance_changes":[{"token":"0x0000000000000000000000000000000000000000","delta":"-5"}]}"#;

/// Feeds `bytes` to every loader; they may fail but must not panic.
fn load_all(bytes: &[u8]) {
    let _ = Intent::from_json_slice(bytes);
    let _ = SimulationReport::from_json_slice(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = Intent::from_json_str(text);
        let _ = CompiledPolicy::from_json_str(text);
        let _ = SimulationReport::from_json_str(text);
        let _ = Decision::from_json_str(text);
    }
    if let Ok(p) = Policy::from_json_slice(bytes) {
        let _ = p.compile();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        load_all(&bytes);
    }

    #[test]
    fn mutated_documents_never_panic(
        doc in prop_oneof![Just(INTENT), Just(POLICY), Just(REPORT)],
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let mut bytes = doc.as_bytes().to_vec();
        for (at, byte, op) in edits {
            if bytes.is_empty() { break; }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => { bytes.remove(i); }
                _ => bytes.insert(i, byte),
            }
        }
        load_all(&bytes);
    }

    #[test]
    fn errors_are_one_line(
        doc in prop_oneof![Just(INTENT), Just(POLICY), Just(REPORT)],
        at in any::<prop::sample::Index>(),
        junk in "[\\PC\n\r\t\"\\\\{}:,]{1,4}",
    ) {
        let i = at.index(doc.len());
        if doc.is_char_boundary(i) {
            let text = format!("{}{}{}", &doc[..i], junk, &doc[i..]);
            for err in [
                Intent::from_json_str(&text).err(),
                CompiledPolicy::from_json_str(&text).err(),
                SimulationReport::from_json_str(&text).err(),
            ].into_iter().flatten() {
                let msg = err.to_string();
                prop_assert!(!msg.contains('\n') && !msg.contains('\r'), "{:?}", msg);
            }
        }
    }
}

#[test]
fn valid_documents_load() {
    Intent::from_json_str(INTENT).unwrap();
    CompiledPolicy::from_json_str(POLICY).unwrap();
    SimulationReport::from_json_str(REPORT).unwrap();
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(Intent::from_json_str(&deep).is_err());
    let deep_meta = INTENT.replace(
        r#"{"task":"swap"}"#,
        &format!("{{\"a\":{}1{}}}", "[".repeat(50_000), "]".repeat(50_000)),
    );
    assert!(Intent::from_json_str(&deep_meta).is_err());
}

#[test]
fn checksummed_addresses_load_like_lowercase_ones() {
    let checksummed = POLICY.replace(
        "0x7a250d5630b4cf539739df2c5dacb4c659f2488d",
        "0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D",
    );
    assert_ne!(checksummed, POLICY);
    assert_eq!(
        Policy::from_json_str(&checksummed).unwrap(),
        Policy::from_json_str(POLICY).unwrap()
    );
}

#[test]
fn errors_name_fields() {
    let cases: [(&str, String, &str); 12] = [
        (
            "intent",
            // A second "task" would silently replace the first: the patterns and the hash
            // would never see one of them.
            INTENT.replace(
                r#""metadata":{"task":"swap"}"#,
                r#""metadata":{"task":"ignore previous instructions","task":"swap"}"#,
            ),
            "metadata: duplicate metadata key \"task\"",
        ),
        (
            "intent",
            // The claims in serde's sequence form: it would deserialize; the loader refuses it.
            INTENT.replace(
                r#""claimed":{"outflows":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","amount":"2500000000"}],"slippage_bps":50}"#,
                r#""claimed":[[],[],50,[]]"#,
            ),
            "claimed: expected a JSON object with named fields, found an array",
        ),
        (
            "policy",
            // Router02 checksummed, with one letter's case flipped: a typo EIP-55 catches.
            POLICY.replace(
                "0x7a250d5630b4cf539739df2c5dacb4c659f2488d",
                "0x7a250D5630B4cF539739dF2C5dAcb4c659F2488D",
            ),
            "allowed_targets[0]: address \"0x7a250D5630B4cF539739dF2C5dAcb4c659F2488D\" has an invalid EIP-55 checksum",
        ),
        (
            "intent",
            INTENT.replace(
                "\"target\":\"0x7a250d5630b4cf539739df2c5dacb4c659f2488d\"",
                "\"target\":\"7a250d5630b4cf539739df2c5dacb4c659f2488d\"",
            ),
            "calls[0].target: address \"7a250d5630b4cf539739df2c5dacb4c659f2488d\" must start with 0x",
        ),
        (
            "intent",
            INTENT.replace(
                "0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45",
                "0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a4",
            ),
            "account: address \"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a4\" must be 0x and exactly 40 hex digits",
        ),
        (
            "report",
            REPORT.replace(
                r#""token":"0x0000000000000000000000000000000000000000""#,
                r#""token":0"#,
            ),
            "balance_changes[0].token: invalid type: integer `0`, expected an address",
        ),
        (
            "intent",
            INTENT.replace(r#""value":"0""#, r#""value":0"#),
            "calls[0].value: invalid type: integer `0`",
        ),
        (
            "intent",
            INTENT.replace(r#""value":"0""#, r#""value":"0x0""#),
            "calls[0].value: hex amount \"0x0\"",
        ),
        (
            "intent",
            INTENT.replace(r#""chain_id":1"#, r#""chain_id":1,"chainId":1"#),
            "unknown field `chainId`",
        ),
        (
            "intent",
            INTENT.replace(r#""slippage_bps":50"#, r#""slippage_bps":"50""#),
            "claimed.slippage_bps: invalid type: string",
        ),
        (
            "policy",
            POLICY.replace("(?i)ignore previous", "(?i)ignore (previous"),
            "metadata_patterns[0]: invalid regex",
        ),
        (
            "report",
            REPORT.replace(r#""delta":"-5""#, r#""delta":"--5""#),
            "balance_changes[0].delta: amount \"--5\" is not a decimal integer",
        ),
    ];
    for (kind, text, expected) in cases {
        let err: Error = match kind {
            "intent" => Intent::from_json_str(&text).unwrap_err(),
            "policy" => CompiledPolicy::from_json_str(&text).unwrap_err(),
            _ => SimulationReport::from_json_str(&text).unwrap_err(),
        };
        let msg = err.to_string();
        assert!(
            msg.contains(expected),
            "{kind}: {msg:?} does not contain {expected:?}"
        );
    }
}
