//! The agent's proposal: an [`Intent`] of one or more [`Call`]s plus what the agent [`Claims`].
//!
//! Everything in an intent is untrusted. The verifier judges the calls by decoding them and by
//! the simulation trace; the claims are only compared against those derived facts.

use crate::{
    amount::u256_dec,
    error::{Error, Result},
    hash::{INTENT_DOMAIN, content_hash},
    load,
};
use alloy_primitives::{Address, B256, Bytes, U256};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One EVM call the smart account is asked to make.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The contract (or account) called.
    #[serde(with = "crate::strict::one")]
    pub target: Address,
    /// Wei sent with the call (decimal string; defaults to `"0"`).
    #[serde(with = "u256_dec", default)]
    pub value: U256,
    /// Calldata as 0x-hex (defaults to empty: a plain ether transfer).
    #[serde(default)]
    #[serde(with = "crate::strict::one")]
    pub data: Bytes,
}

impl Call {
    /// The 4-byte function selector, or `None` when the calldata is shorter than 4 bytes.
    pub fn selector(&self) -> Option<[u8; 4]> {
        self.data.get(..4).map(|s| [s[0], s[1], s[2], s[3]])
    }
}

/// An ERC-20 approval the agent claims the intent grants.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    /// The token whose allowance is set.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Who may spend it.
    #[serde(with = "crate::strict::one")]
    pub spender: Address,
    /// The allowance, in the token's smallest unit (decimal string).
    #[serde(with = "u256_dec")]
    pub amount: U256,
}

/// An amount of one token (ether is [`crate::ETH`], the zero address).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenAmount {
    /// The token.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The amount, in the token's smallest unit (decimal string).
    #[serde(with = "u256_dec")]
    pub amount: U256,
}

/// What the agent says its intent does. Never trusted: compared against derived facts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claims {
    /// Approvals the intent grants.
    #[serde(default)]
    pub approvals: Vec<Approval>,
    /// Gross amounts of each token (ether included, as [`crate::ETH`]) that leave the account.
    #[serde(default)]
    pub outflows: Vec<TokenAmount>,
    /// The slippage tolerance the agent set, in basis points.
    #[serde(default)]
    pub slippage_bps: Option<u32>,
    /// Contracts the agent expects the execution to touch.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub touched: Vec<Address>,
}

/// A proposed action: one call, or several executed as one atomic batch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intent {
    /// The chain the intent is for.
    pub chain_id: u64,
    /// The PACE smart account that executes the calls.
    #[serde(with = "crate::strict::one")]
    pub account: Address,
    /// The calls, in execution order. At least one; several form an atomic batch.
    pub calls: Vec<Call>,
    /// What the agent claims the calls do.
    #[serde(default)]
    pub claimed: Claims,
    /// Free-form agent metadata (task description, memo, ...). Matched against the policy's
    /// forbidden patterns. A key may appear once: JSON parsers keep one of two duplicate keys
    /// (serde the last), so a duplicate would hide a value from the patterns and the hash.
    #[serde(default, deserialize_with = "unique_keys")]
    pub metadata: BTreeMap<String, String>,
}

/// A string map that refuses duplicate keys.
fn unique_keys<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> core::result::Result<BTreeMap<String, String>, D::Error> {
    struct Unique;
    impl<'de> serde::de::Visitor<'de> for Unique {
        type Value = BTreeMap<String, String>;

        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("an object of strings, each key once")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> core::result::Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((key, value)) = map.next_entry::<String, String>()? {
                if out.contains_key(&key) {
                    let head: String = key.chars().take(48).collect();
                    let more = if head.len() < key.len() { "…" } else { "" };
                    return Err(serde::de::Error::custom(format_args!(
                        "duplicate metadata key {head:?}{more}"
                    )));
                }
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Unique)
}

impl Intent {
    /// The content hash `keccak256("PACE-RS/intent/v1\n" || canonical JSON)`; see [`crate::hash`].
    pub fn intent_hash(&self) -> B256 {
        content_hash(INTENT_DOMAIN, self)
    }

    /// Parses and validates an intent from JSON text.
    pub fn from_json_str(json: &str) -> Result<Self> {
        let intent: Self = load::from_str(json)?;
        intent.validate()?;
        Ok(intent)
    }

    /// Parses and validates an intent from JSON bytes.
    pub fn from_json_slice(json: &[u8]) -> Result<Self> {
        let intent: Self = load::from_slice(json)?;
        intent.validate()?;
        Ok(intent)
    }

    /// Checks the structural rules serde cannot express: at least one call.
    pub fn validate(&self) -> Result<()> {
        if self.calls.is_empty() {
            return Err(Error::invalid("calls", "an intent needs at least one call"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{address, bytes};

    #[test]
    fn selector_needs_four_bytes() {
        let mut call = Call {
            target: Address::ZERO,
            value: U256::ZERO,
            data: bytes!("a9059cbb00"),
        };
        assert_eq!(call.selector(), Some([0xa9, 0x05, 0x9c, 0xbb]));
        call.data = bytes!("a9059c");
        assert_eq!(call.selector(), None);
        call.data = Bytes::new();
        assert_eq!(call.selector(), None);
    }

    #[test]
    fn defaults_and_strictness() {
        let json = r#"{"chain_id":1,"account":"0x00000000000000000000000000000000000000aa",
            "calls":[{"target":"0x00000000000000000000000000000000000000bb"}]}"#;
        let intent = Intent::from_json_str(json).unwrap();
        assert_eq!(intent.calls[0].value, U256::ZERO);
        assert!(intent.calls[0].data.is_empty());
        assert_eq!(intent.claimed, Claims::default());
        assert_eq!(
            intent.account,
            address!("00000000000000000000000000000000000000aa")
        );

        let unknown = json.replace(r#""chain_id":1"#, r#""chain_id":1,"extra":true"#);
        let err = Intent::from_json_str(&unknown).unwrap_err().to_string();
        assert!(err.contains("unknown field `extra`"), "{err}");

        let no_calls =
            r#"{"chain_id":1,"account":"0x00000000000000000000000000000000000000aa","calls":[]}"#;
        let err = Intent::from_json_str(no_calls).unwrap_err().to_string();
        assert!(err.starts_with("calls:"), "{err}");
    }

    #[test]
    fn amount_errors_name_the_field() {
        let json = r#"{"chain_id":1,"account":"0x00000000000000000000000000000000000000aa",
            "calls":[{"target":"0x00000000000000000000000000000000000000bb","value":5}]}"#;
        let err = Intent::from_json_str(json).unwrap_err().to_string();
        assert!(err.starts_with("calls[0].value:"), "{err}");
        assert!(err.contains("decimal string"), "{err}");
        assert!(err.contains("line 2"), "{err}");
    }
}
