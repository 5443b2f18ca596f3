//! Serde helpers for amounts: `U256` and `I256` as JSON **decimal strings**.
//!
//! Amounts are written `"1000000"` (unsigned) or `"-1000000"` (signed). Anything else is
//! rejected with a message that says what is expected: JSON numbers (which lose precision in
//! most JSON tooling above 2^53), hex strings, `+`, leading zeros, whitespace, digit
//! separators and empty strings. Use with `#[serde(with = "crate::amount::u256_dec")]`.

use alloy_primitives::{I256, Sign, U256};
use core::fmt;

/// Why a string is not a canonical decimal amount.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    /// The string is empty (or only a sign).
    #[error("empty amount; write amounts as decimal strings such as \"1000000\"")]
    Empty,
    /// The string starts with `0x`.
    #[error("hex amount {0:?} is not accepted; write amounts as decimal strings")]
    Hex(String),
    /// The string contains something other than ASCII digits (and one leading `-` if signed).
    #[error("amount {0:?} is not a decimal integer; only the digits 0-9 are allowed")]
    NotDecimal(String),
    /// The string has a superfluous leading zero (or is `-0`).
    #[error("amount {0:?} has a leading zero; write it in canonical form")]
    LeadingZero(String),
    /// The value does not fit the type.
    #[error("amount {0:?} is out of range for a {1}")]
    OutOfRange(String, &'static str),
}

/// Parses a canonical unsigned decimal amount (`"0"`, `"1000000"`, ...) into a `U256`.
pub fn parse_u256(s: &str) -> Result<U256, AmountError> {
    check_digits(s, s)?;
    // Only digits get here, so the only possible failure is overflow.
    U256::from_str_radix(s, 10).map_err(|_| AmountError::OutOfRange(s.to_owned(), "uint256"))
}

/// Parses a canonical signed decimal amount (`"-5"`, `"0"`, `"42"`) into an `I256`.
pub fn parse_i256(s: &str) -> Result<I256, AmountError> {
    let (sign, digits) = match s.strip_prefix('-') {
        Some(rest) => (Sign::Negative, rest),
        None => (Sign::Positive, s),
    };
    check_digits(s, digits)?;
    if sign == Sign::Negative && digits == "0" {
        return Err(AmountError::LeadingZero(s.to_owned()));
    }
    let abs = U256::from_str_radix(digits, 10)
        .map_err(|_| AmountError::OutOfRange(s.to_owned(), "int256"))?;
    I256::checked_from_sign_and_abs(sign, abs)
        .ok_or_else(|| AmountError::OutOfRange(s.to_owned(), "int256"))
}

/// Checks that `digits` (the part of `full` after any sign) is a canonical digit string.
fn check_digits(full: &str, digits: &str) -> Result<(), AmountError> {
    if digits.is_empty() {
        return Err(AmountError::Empty);
    }
    if digits.starts_with("0x") || digits.starts_with("0X") {
        return Err(AmountError::Hex(full.to_owned()));
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AmountError::NotDecimal(full.to_owned()));
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(AmountError::LeadingZero(full.to_owned()));
    }
    Ok(())
}

/// `#[serde(with = "u256_dec")]`: a `U256` as a decimal string.
pub mod u256_dec {
    use super::*;
    use serde::{Deserializer, Serializer, de};

    /// Serializes `value` as a decimal string.
    pub fn serialize<S: Serializer>(value: &U256, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    /// Deserializes a decimal string; rejects numbers, hex and non-canonical forms.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<U256, D::Error> {
        deserializer.deserialize_str(Visitor)
    }

    struct Visitor;

    impl de::Visitor<'_> for Visitor {
        type Value = U256;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an amount as a decimal string such as \"1000000\"")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<U256, E> {
            parse_u256(v).map_err(E::custom)
        }
    }
}

/// `#[serde(with = "u256_dec_opt")]`: an optional `U256` as a decimal string (`null` or absent
/// for none, with `#[serde(default)]`).
pub mod u256_dec_opt {
    use super::*;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serializes `Some(value)` as a decimal string, `None` as `null`.
    pub fn serialize<S: Serializer>(
        value: &Option<U256>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => serializer.collect_str(v),
            None => serializer.serialize_none(),
        }
    }

    /// Deserializes `null` or a decimal string (as [`super::u256_dec`]).
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<U256>, D::Error> {
        #[derive(Deserialize)]
        struct Wrap(#[serde(with = "super::u256_dec")] U256);
        Ok(Option::<Wrap>::deserialize(deserializer)?.map(|w| w.0))
    }
}

/// `#[serde(with = "i256_dec")]`: an `I256` as a decimal string with an optional leading `-`.
pub mod i256_dec {
    use super::*;
    use serde::{Deserializer, Serializer, de};

    /// Serializes `value` as a decimal string (`-` for negative values).
    pub fn serialize<S: Serializer>(value: &I256, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&value)
    }

    /// Deserializes a signed decimal string; rejects numbers, hex and non-canonical forms.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<I256, D::Error> {
        deserializer.deserialize_str(Visitor)
    }

    struct Visitor;

    impl de::Visitor<'_> for Visitor {
        type Value = I256;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a signed amount as a decimal string such as \"-1000000\"")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<I256, E> {
            parse_i256(v).map_err(E::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_accepts_only_canonical_decimal() {
        assert_eq!(parse_u256("0"), Ok(U256::ZERO));
        assert_eq!(parse_u256("1000000"), Ok(U256::from(1_000_000u64)));
        assert_eq!(parse_u256(&U256::MAX.to_string()), Ok(U256::MAX));
        for bad in [
            "", "0x10", "1_000", "1,000", " 1", "1 ", "+1", "-1", "01", "1e6", "1.5",
        ] {
            assert!(parse_u256(bad).is_err(), "{bad:?} accepted");
        }
        let too_big = format!("{}0", U256::MAX);
        assert!(matches!(
            parse_u256(&too_big),
            Err(AmountError::OutOfRange(..))
        ));
    }

    #[test]
    fn signed_accepts_minus() {
        assert_eq!(parse_i256("-5"), Ok(I256::try_from(-5i64).unwrap()));
        assert_eq!(parse_i256("0"), Ok(I256::ZERO));
        assert_eq!(parse_i256(&I256::MIN.to_string()), Ok(I256::MIN));
        assert_eq!(parse_i256(&I256::MAX.to_string()), Ok(I256::MAX));
        for bad in ["", "-", "-0", "--1", "+1", "-01", "0x1", "-0x1", "1-"] {
            assert!(parse_i256(bad).is_err(), "{bad:?} accepted");
        }
        let too_big = format!("{}", I256::MAX.into_raw() + U256::from(1u8));
        assert!(parse_i256(&too_big).is_err());
    }

    #[test]
    fn serde_round_trip_and_rejections() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct T {
            #[serde(with = "u256_dec")]
            a: U256,
            #[serde(with = "i256_dec")]
            b: I256,
        }
        let t = T {
            a: U256::from(7u8),
            b: I256::try_from(-7i64).unwrap(),
        };
        let s = serde_json::to_string(&t).unwrap();
        assert_eq!(s, r#"{"a":"7","b":"-7"}"#);
        assert_eq!(serde_json::from_str::<T>(&s).unwrap(), t);
        let err = serde_json::from_str::<T>(r#"{"a":7,"b":"1"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("decimal string"), "{err}");
        let err = serde_json::from_str::<T>(r#"{"a":"0x7","b":"1"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("hex amount"), "{err}");
    }
}
