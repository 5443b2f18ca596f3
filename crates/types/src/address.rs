//! Serde helpers for addresses: `0x` and exactly 40 hex digits, and a valid EIP-55 checksum
//! whenever the digits mix cases.
//!
//! A policy is written by hand, and a one-character typo in an allow-listed address would
//! silently allow some other address. EIP-55 exists to catch that typo, so a mixed-case
//! address must carry a correct checksum; all-lowercase and all-uppercase digits state no
//! checksum and are accepted. Missing `0x`, other lengths and non-hex digits are refused.
//! Serialization is unchanged (lowercase, as the canonical encoding requires).

use alloy_primitives::Address;
use core::fmt;
use serde::{Deserializer, Serializer, de};

/// `s` as an error message shows it: quoted, at most 48 characters.
fn shown(s: &str) -> String {
    let head: String = s.chars().take(48).collect();
    if head.len() < s.len() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// Parses `s` strictly (see the module docs).
pub fn parse(s: &str) -> Result<Address, String> {
    let Some(digits) = s.strip_prefix("0x") else {
        return Err(format!(
            "address {} must start with 0x and have 40 hex digits",
            shown(s)
        ));
    };
    if digits.len() != 40 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "address {} must be 0x and exactly 40 hex digits",
            shown(s)
        ));
    }
    let address: Address = digits
        .parse()
        .map_err(|e| format!("address {}: {e}", shown(s)))?;
    let has_lower = digits.bytes().any(|b| b.is_ascii_lowercase());
    let has_upper = digits.bytes().any(|b| b.is_ascii_uppercase());
    if has_lower && has_upper && address.to_checksum(None) != s {
        return Err(format!(
            "address {} has an invalid EIP-55 checksum (a typo?); the checksummed form is {}",
            shown(s),
            address.to_checksum(None)
        ));
    }
    Ok(address)
}

struct Strict;

impl de::Visitor<'_> for Strict {
    type Value = Address;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an address: 0x and 40 hex digits, EIP-55 checksummed if mixed-case")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Address, E> {
        parse(s).map_err(E::custom)
    }
}

/// One address. Use with `#[serde(with = "crate::address::one")]`.
pub mod one {
    use super::*;

    /// Lowercase `0x`-hex.
    pub fn serialize<S: Serializer>(address: &Address, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(address, s)
    }

    /// Strict (see the module docs).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Address, D::Error> {
        d.deserialize_str(Strict)
    }
}

/// An optional address (`null` for none). Use with `#[serde(with = "crate::address::opt")]`.
pub mod opt {
    use super::*;

    /// `null` or lowercase `0x`-hex.
    pub fn serialize<S: Serializer>(address: &Option<Address>, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(address, s)
    }

    /// `null` or a strict address.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Address>, D::Error> {
        struct Opt;
        impl<'de> de::Visitor<'de> for Opt {
            type Value = Option<Address>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("null or an address")
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_str(Strict).map(Some)
            }
        }
        d.deserialize_option(Opt)
    }
}

/// A list of addresses. Use with `#[serde(with = "crate::address::list")]`.
pub mod list {
    use super::*;

    /// A JSON array of lowercase `0x`-hex.
    pub fn serialize<S: Serializer>(addresses: &[Address], s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(addresses, s)
    }

    /// A JSON array of strict addresses.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Address>, D::Error> {
        struct List;
        impl<'de> de::Visitor<'de> for List {
            type Value = Vec<Address>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of addresses")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
                while let Some(Item(address)) = seq.next_element()? {
                    out.push(address);
                }
                Ok(out)
            }
        }
        struct Item(Address);
        impl<'de> serde::Deserialize<'de> for Item {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_str(Strict).map(Item)
            }
        }
        d.deserialize_seq(List)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECKSUMMED: &str = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";

    #[test]
    fn accepts_lowercase_uppercase_and_valid_checksums() {
        let a = parse(CHECKSUMMED).unwrap();
        assert_eq!(parse(&CHECKSUMMED.to_lowercase()).unwrap(), a);
        assert_eq!(
            parse(&format!("0x{}", &CHECKSUMMED[2..].to_uppercase())).unwrap(),
            a
        );
    }

    #[test]
    fn errors_quote_at_most_48_characters() {
        let e = parse(&"x".repeat(1_000_000)).unwrap_err();
        assert!(e.len() < 200, "{}", e.len());
    }

    #[test]
    fn refuses_typos_missing_prefix_and_wrong_lengths() {
        // One letter's case flipped: the checksum catches it.
        let typo = CHECKSUMMED.replacen("A0b8", "a0B8", 1);
        let e = parse(&typo).unwrap_err();
        assert!(e.contains("EIP-55") && e.contains(CHECKSUMMED), "{e}");
        // One digit changed in a checksummed address.
        assert!(parse(&CHECKSUMMED.replacen("6991", "6992", 1)).is_err());
        for bad in [
            &CHECKSUMMED[2..],
            "0x",
            "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4",
            "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB480",
            "0xg0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
            " 0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
