//! Serde helpers for hex values other than addresses (calldata, selectors, hashes): the
//! string must start with `0x`, like every hex value the canonical encoding writes. The parse
//! itself is the type's own (`Bytes`, `FixedBytes`). Serialization is unchanged.

use core::{fmt::Display, str::FromStr};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

/// Parses `s` as a `T` after checking the `0x` prefix.
fn parse<T: FromStr, E: serde::de::Error>(s: &str) -> Result<T, E>
where
    T::Err: Display,
{
    let shown: String = s.chars().take(24).collect();
    let more = if shown.len() < s.len() { "…" } else { "" };
    if !s.starts_with("0x") {
        return Err(E::custom(format!(
            "hex value \"{shown}{more}\" must start with 0x"
        )));
    }
    s.parse::<T>()
        .map_err(|e| E::custom(format!("invalid hex value \"{shown}{more}\": {e}")))
}

/// One value. Use with `#[serde(with = "crate::hexstr::one")]`.
pub mod one {
    use super::*;

    /// As the type serializes itself (`0x`-hex).
    pub fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }

    /// `0x`-prefixed hex.
    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        parse(&String::deserialize(d)?)
    }
}

/// An optional value (`null` for none). Use with `#[serde(with = "crate::hexstr::opt")]`.
pub mod opt {
    use super::*;

    /// `null` or `0x`-hex.
    pub fn serialize<T: Serialize, S: Serializer>(
        value: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }

    /// `null` or `0x`-prefixed hex.
    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        Option::<String>::deserialize(d)?
            .map(|s| parse(&s))
            .transpose()
    }
}

/// A list of values. Use with `#[serde(with = "crate::hexstr::list")]`.
pub mod list {
    use super::*;

    /// A JSON array of `0x`-hex.
    pub fn serialize<T: Serialize, S: Serializer>(values: &[T], s: S) -> Result<S::Ok, S::Error> {
        values.serialize(s)
    }

    /// A JSON array of `0x`-prefixed hex.
    pub fn deserialize<'de, T, D>(d: D) -> Result<Vec<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        Vec::<String>::deserialize(d)?
            .iter()
            .enumerate()
            .map(|(i, s)| parse(s).map_err(|e: D::Error| D::Error::custom(format!("[{i}]: {e}"))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{B256, Bytes, FixedBytes};

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        #[serde(with = "super::one")]
        data: Bytes,
        #[serde(with = "super::list")]
        selectors: Vec<FixedBytes<4>>,
        #[serde(with = "super::opt")]
        hash: Option<B256>,
    }

    #[test]
    fn requires_the_prefix() {
        let ok: Doc =
            serde_json::from_str(r#"{"data":"0xa9059cbb","selectors":["0x095ea7b3"],"hash":null}"#)
                .unwrap();
        assert_eq!(ok.data.len(), 4);
        assert!(ok.hash.is_none());
        for bad in [
            r#"{"data":"a9059cbb","selectors":[],"hash":null}"#,
            r#"{"data":"0x","selectors":["095ea7b3"],"hash":null}"#,
            r#"{"data":"0x","selectors":[],"hash":"1111111111111111111111111111111111111111111111111111111111111111"}"#,
        ] {
            let e = serde_json::from_str::<Doc>(bad).unwrap_err().to_string();
            assert!(e.contains("must start with 0x"), "{e}");
        }
    }
}
