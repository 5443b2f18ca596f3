//! Units and constants shared by every PACE-rs type.
//!
//! - Token amounts are integers in the token's smallest unit (`U256`), never floats.
//! - Rates and ratios are integers in basis points ([`Bps`]); `10_000` bps = 100 %.
//!   A health factor of 1.0 is `10_000` bps.
//! - Ether is the "token" [`ETH`] (the zero address) wherever a token address is expected.

use alloy_primitives::{Address, U256};

/// Basis points: 1 bps = 0.01 %, [`BPS_SCALE`] bps = 100 %.
pub type Bps = u32;

/// The number of basis points in 100 % (and in a health factor of 1.0).
pub const BPS_SCALE: Bps = 10_000;

/// The address that stands for native ether in token positions (approvals, flows, caps).
pub const ETH: Address = Address::ZERO;

/// `n` whole units of ether, or of any 18-decimal token, in wei (`n * 10^18`).
pub const fn ether(n: u64) -> U256 {
    // n < 2^64 and 10^18 < 2^60: the product fits in two limbs, nothing saturates.
    U256::from_limbs([n, 0, 0, 0]).saturating_mul(U256::from_limbs([
        1_000_000_000_000_000_000,
        0,
        0,
        0,
    ]))
}

/// Approvals of at least this amount (2^128) count as unlimited.
///
/// `type(uint256).max` is the usual "infinite" approval, but any allowance this large is
/// effectively unbounded for every real token supply.
pub const UNLIMITED_APPROVAL_THRESHOLD: U256 = U256::from_limbs([0, 0, 1, 0]);

/// Whether an approval amount counts as unlimited (see [`UNLIMITED_APPROVAL_THRESHOLD`]).
pub fn is_unlimited_approval(amount: U256) -> bool {
    amount >= UNLIMITED_APPROVAL_THRESHOLD
}

/// `ceil((reference - actual) * 10_000 / reference)` in basis points: how far `actual` falls
/// short of `reference`.
///
/// Returns 0 when `actual >= reference`, [`BPS_SCALE`] when `reference` is zero and `actual`
/// is not at least as large, and saturates at `u32::MAX`. Rounds up so a bound is never
/// passed by rounding.
pub fn shortfall_bps(reference: U256, actual: U256) -> Bps {
    if actual >= reference {
        return 0;
    }
    ratio_bps_ceil(reference - actual, reference)
}

/// The slippage tolerance a minimum output leaves open against the expected output:
/// `floor((expected_out - min_out) * 10_000 / expected_out)` bps.
///
/// Rounds **down**, so that a minimum computed the usual way, `floor(out * (1 - s))`, reads as
/// exactly `s` rather than `s + 1` bps (the excess is below 1 bps whenever `out > 10_000`).
/// 0 when `min_out >= expected_out`; [`BPS_SCALE`] when `min_out` is zero and `expected_out`
/// is not.
pub fn min_out_tolerance_bps(expected_out: U256, min_out: U256) -> Bps {
    if min_out >= expected_out {
        return 0;
    }
    ratio_bps_floor(expected_out - min_out, expected_out)
}

/// The slippage tolerance a maximum input leaves open against the expected input:
/// `floor((max_in - expected_in) * 10_000 / expected_in)` bps, saturating at `u32::MAX`.
///
/// Rounds down like [`min_out_tolerance_bps`]. 0 when `max_in <= expected_in`; [`BPS_SCALE`]
/// when `expected_in` is zero and `max_in` is not.
pub fn max_in_tolerance_bps(expected_in: U256, max_in: U256) -> Bps {
    if max_in <= expected_in {
        return 0;
    }
    if expected_in.is_zero() {
        return BPS_SCALE;
    }
    ratio_bps_floor(max_in - expected_in, expected_in)
}

/// `floor(numerator * 10_000 / denominator)`, saturating at `u32::MAX`; a zero denominator
/// gives [`BPS_SCALE`].
fn ratio_bps_floor(numerator: U256, denominator: U256) -> Bps {
    if denominator.is_zero() {
        return BPS_SCALE;
    }
    let scale = U256::from(BPS_SCALE);
    let bps = match numerator.checked_mul(scale) {
        Some(scaled) => scaled / denominator,
        None => (numerator / denominator).saturating_mul(scale),
    };
    u32::try_from(bps).unwrap_or(u32::MAX)
}

/// `ceil(numerator * 10_000 / denominator)`, saturating at `u32::MAX`; a zero denominator
/// gives [`BPS_SCALE`].
fn ratio_bps_ceil(numerator: U256, denominator: U256) -> Bps {
    if denominator.is_zero() {
        return BPS_SCALE;
    }
    let scale = U256::from(BPS_SCALE);
    // numerator * 10_000 can only overflow for numerators above 2^242; divide first then.
    let bps = match numerator.checked_mul(scale) {
        Some(scaled) => scaled.div_ceil(denominator),
        None => (numerator.div_ceil(denominator)).saturating_mul(scale),
    };
    u32::try_from(bps).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_is_two_to_the_128() {
        assert_eq!(UNLIMITED_APPROVAL_THRESHOLD, U256::from(1u8) << 128);
        assert!(is_unlimited_approval(U256::MAX));
        assert!(!is_unlimited_approval(
            UNLIMITED_APPROVAL_THRESHOLD - U256::from(1u8)
        ));
    }

    #[test]
    fn ether_is_ten_to_the_eighteen_wei() {
        assert_eq!(ether(0), U256::ZERO);
        assert_eq!(ether(3), U256::from(3_000_000_000_000_000_000u128));
        assert_eq!(
            ether(u64::MAX),
            U256::from(u64::MAX) * U256::from(10u8).pow(U256::from(18u8))
        );
    }

    #[test]
    fn shortfall_rounds_up() {
        let u = U256::from;
        assert_eq!(shortfall_bps(u(1000u64), u(1000u64)), 0);
        assert_eq!(shortfall_bps(u(1000u64), u(2000u64)), 0);
        assert_eq!(shortfall_bps(u(1000u64), u(995u64)), 50);
        assert_eq!(shortfall_bps(u(1000u64), u(994u64)), 60);
        assert_eq!(shortfall_bps(u(3_000u64), u(2_999u64)), 4); // 3.33 bps -> 4
        assert_eq!(shortfall_bps(u(30_000u64), u(29_999u64)), 1); // 0.33 bps -> 1
        assert_eq!(shortfall_bps(u(1000u64), U256::ZERO), BPS_SCALE);
        assert_eq!(shortfall_bps(U256::ZERO, U256::ZERO), 0);
        assert_eq!(shortfall_bps(U256::MAX, U256::ZERO), BPS_SCALE);
    }

    #[test]
    fn tolerances_round_down() {
        let u = U256::from;
        // floor(out * 0.995) leaves exactly 50 bps open, not 51.
        let out = u(795_616_924_814_898_864u64);
        let min = out * u(9_950u64) / u(10_000u64);
        assert_eq!(min_out_tolerance_bps(out, min), 50);
        assert_eq!(shortfall_bps(out, min), 51);
        assert_eq!(min_out_tolerance_bps(out, U256::ZERO), BPS_SCALE);
        assert_eq!(min_out_tolerance_bps(out, out + u(1u64)), 0);
        assert_eq!(max_in_tolerance_bps(u(100u64), u(101u64)), 100);
        assert_eq!(max_in_tolerance_bps(u(100u64), u(300u64)), 20_000);
        assert_eq!(max_in_tolerance_bps(U256::ZERO, u(1u64)), BPS_SCALE);
        assert_eq!(max_in_tolerance_bps(u(1u64), U256::MAX), u32::MAX);
        assert_eq!(max_in_tolerance_bps(u(100u64), u(100u64)), 0);
    }
}
