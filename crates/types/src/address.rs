//! Strict address parsing: `0x` and exactly 40 hex digits, and a valid EIP-55 checksum
//! whenever the digits mix cases. Serde uses it through [`crate::strict`].
//!
//! A policy is written by hand, and a one-character typo in an allow-listed address would
//! silently allow some other address. EIP-55 exists to catch that typo, so a mixed-case
//! address must carry a correct checksum; all-lowercase and all-uppercase digits state no
//! checksum and are accepted. Missing `0x`, other lengths and non-hex digits are refused.
//! Serialization is unchanged (lowercase, as the canonical encoding requires).

use crate::strict::shown;
use alloy_primitives::Address;

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
