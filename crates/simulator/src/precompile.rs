//! Which addresses are precompiles (their call frames are the EVM's, not a contract's).

use alloy_primitives::Address;

/// Whether `address` is a precompile of the supported forks: `0x01..=0x11` (ecrecover through
/// the BLS12-381 set of Prague) or `0x100` (P256VERIFY, Osaka).
pub fn is_precompile(address: Address) -> bool {
    let bytes = address.as_slice();
    if bytes[..18].iter().any(|b| *b != 0) {
        return false;
    }
    let low = u16::from_be_bytes([bytes[18], bytes[19]]);
    (0x01..=0x11).contains(&low) || low == 0x100
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;

    #[test]
    fn precompiles() {
        assert!(is_precompile(address!(
            "0000000000000000000000000000000000000001"
        )));
        assert!(is_precompile(address!(
            "0000000000000000000000000000000000000011"
        )));
        assert!(is_precompile(address!(
            "0000000000000000000000000000000000000100"
        )));
        assert!(!is_precompile(Address::ZERO));
        assert!(!is_precompile(address!(
            "0000000000000000000000000000000000000012"
        )));
        assert!(!is_precompile(address!(
            "0000000000000000000000000000000000000101"
        )));
        assert!(!is_precompile(address!(
            "1000000000000000000000000000000000000001"
        )));
    }
}
