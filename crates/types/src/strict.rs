//! Serde helpers for the hex values of PACE-RS documents: addresses (see
//! [`crate::address::parse`]), calldata, selectors and hashes. Every one must start with `0x`,
//! as the canonical encoding writes them; errors quote at most 48 characters of the input.
//! Serialization is the type's own (lowercase `0x`-hex).
//!
//! Use with `#[serde(with = "crate::strict::one")]`, `::opt` (`null` for none) or `::list`.

use alloy_primitives::{Address, Bytes, FixedBytes};
use core::{fmt, marker::PhantomData};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// `s` as an error message shows it: quoted, at most 48 characters.
pub(crate) fn shown(s: &str) -> String {
    let head: String = s.chars().take(48).collect();
    if head.len() < s.len() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// A value parsed from a strict hex string.
pub trait StrictHex: Sized {
    /// What the value is, for serde's "expected ..." messages.
    const EXPECTED: &'static str;

    /// Parses `s`, or says why not.
    fn parse_strict(s: &str) -> Result<Self, String>;
}

impl StrictHex for Address {
    const EXPECTED: &'static str =
        "an address: 0x and 40 hex digits, EIP-55 checksummed if mixed-case";

    fn parse_strict(s: &str) -> Result<Self, String> {
        crate::address::parse(s)
    }
}

/// `0x` then the type's own hex parse.
fn parse_hex<T: core::str::FromStr>(s: &str) -> Result<T, String>
where
    T::Err: fmt::Display,
{
    if !s.starts_with("0x") {
        return Err(format!("hex value {} must start with 0x", shown(s)));
    }
    s.parse()
        .map_err(|e| format!("invalid hex value {}: {e}", shown(s)))
}

impl StrictHex for Bytes {
    const EXPECTED: &'static str = "0x-hex bytes";

    fn parse_strict(s: &str) -> Result<Self, String> {
        parse_hex(s)
    }
}

impl<const N: usize> StrictHex for FixedBytes<N> {
    const EXPECTED: &'static str = "fixed-length 0x-hex";

    fn parse_strict(s: &str) -> Result<Self, String> {
        parse_hex(s)
    }
}

/// Deserializes one `T` from a string, without copying it.
struct Visit<T>(PhantomData<T>);

impl<T: StrictHex> de::Visitor<'_> for Visit<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        T::parse_strict(s).map_err(E::custom)
    }
}

/// One strict `T` as a list element or an option's content.
struct Item<T>(T);

impl<'de, T: StrictHex> Deserialize<'de> for Item<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(Visit(PhantomData)).map(Item)
    }
}

/// One value.
pub mod one {
    use super::*;

    /// As the type serializes itself.
    pub fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }

    /// A strict hex string.
    pub fn deserialize<'de, T: StrictHex, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        d.deserialize_str(Visit(PhantomData))
    }
}

/// An optional value (`null` for none).
pub mod opt {
    use super::*;

    /// `null` or as the type serializes itself.
    pub fn serialize<T: Serialize, S: Serializer>(
        value: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }

    /// `null` or a strict hex string.
    pub fn deserialize<'de, T: StrictHex, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        Ok(Option::<Item<T>>::deserialize(d)?.map(|Item(v)| v))
    }
}

/// A list of values.
pub mod list {
    use super::*;

    /// A JSON array, each element as the type serializes itself.
    pub fn serialize<T: Serialize, S: Serializer>(values: &[T], s: S) -> Result<S::Ok, S::Error> {
        values.serialize(s)
    }

    /// A JSON array of strict hex strings (errors name the element's index in their path).
    pub fn deserialize<'de, T: StrictHex, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        Ok(Vec::<Item<T>>::deserialize(d)?
            .into_iter()
            .map(|Item(v)| v)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Address, B256, Bytes, FixedBytes};

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        #[serde(with = "super::one")]
        data: Bytes,
        #[serde(with = "super::list")]
        selectors: Vec<FixedBytes<4>>,
        #[serde(with = "super::opt")]
        hash: Option<B256>,
        #[serde(with = "super::opt")]
        owner: Option<Address>,
    }

    #[test]
    fn requires_the_prefix() {
        let ok: Doc = serde_json::from_str(
            r#"{"data":"0xa9059cbb","selectors":["0x095ea7b3"],"hash":null,"owner":null}"#,
        )
        .unwrap();
        assert_eq!(ok.data.len(), 4);
        assert!(ok.hash.is_none());
        for bad in [
            r#"{"data":"a9059cbb","selectors":[],"hash":null,"owner":null}"#,
            r#"{"data":"0x","selectors":["095ea7b3"],"hash":null,"owner":null}"#,
            r#"{"data":"0x","selectors":[],"hash":"1111111111111111111111111111111111111111111111111111111111111111","owner":null}"#,
            r#"{"data":"0x","selectors":[],"hash":null,"owner":"a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"}"#,
        ] {
            let e = serde_json::from_str::<Doc>(bad).unwrap_err().to_string();
            assert!(e.contains("must start with 0x"), "{e}");
        }
    }

    #[test]
    fn errors_quote_at_most_48_characters() {
        let doc = format!(
            r#"{{"data":"{}","selectors":[],"hash":null,"owner":null}}"#,
            "7".repeat(100_000)
        );
        let e = serde_json::from_str::<Doc>(&doc).unwrap_err().to_string();
        assert!(e.len() < 200, "{}", e.len());
    }
}
