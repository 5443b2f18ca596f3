//! Uniswap V3 prices from ticks: `√(1.0001^tick)` in Q64.96, as the pools define a tick, and
//! the time-weighted average tick of an `observe` answer.
//!
//! Computed here by binary exponentiation of `√1.0001` in Q128 fixed point (512-bit products,
//! rounded to nearest), not with the pools' own constant table: the result agrees with the
//! pools' `getSqrtRatioAtTick` to within a few parts in 10^30, which is all a valuation needs
//! (the pools' exact rounding decides nothing here).

use alloy_primitives::{U256, U512};

/// The lowest tick a pool allows.
pub(crate) const MIN_TICK: i32 = -887_272;
/// The highest tick a pool allows.
pub(crate) const MAX_TICK: i32 = 887_272;

/// `√1.0001` in Q128: `floor(√(1.0001 · 2^256))`.
fn sqrt_base_q128() -> U256 {
    let radicand: U512 = (U512::from(10_001u64) << 256usize) / U512::from(10_000u64);
    radicand.root(2).to::<U256>()
}

/// `a · b / 2^128`, rounded to nearest, for Q128 values whose product fits 384 bits.
fn mul_q128(a: U256, b: U256) -> U256 {
    let product = U512::from(a) * U512::from(b) + (U512::from(1u8) << 127usize);
    U256::saturating_from(product >> 128usize)
}

/// `√(1.0001^tick) · 2^96`, or `None` outside `[MIN_TICK, MAX_TICK]`.
pub(crate) fn sqrt_price_x96_at_tick(tick: i32) -> Option<U256> {
    if !(MIN_TICK..=MAX_TICK).contains(&tick) {
        return None;
    }
    let mut exponent = tick.unsigned_abs();
    let mut base = sqrt_base_q128();
    let mut result = U256::from(1u8) << 128;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = mul_q128(result, base);
        }
        exponent >>= 1;
        if exponent > 0 {
            base = mul_q128(base, base);
        }
    }
    // result is √(1.0001^|tick|) in Q128, at most about 2^192.
    let q128 = if tick < 0 {
        let one = U512::from(1u8) << 256;
        U256::saturating_from((one + U512::from(result >> 1)) / U512::from(result))
    } else {
        result
    };
    Some((q128 + (U256::from(1u8) << 31)) >> 32)
}

/// The arithmetic mean tick over `seconds` from the two cumulatives `observe([seconds, 0])`
/// returns, rounded towards negative infinity as the pools' oracle library does.
pub(crate) fn mean_tick(then: i64, now: i64, seconds: u32) -> Option<i32> {
    if seconds == 0 {
        return None;
    }
    let delta = now.checked_sub(then)?;
    let tick = delta.div_euclid(i64::from(seconds));
    i32::try_from(tick).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: U256, b: U256, parts_in: u128) -> bool {
        a.abs_diff(b) <= b / U256::from(parts_in) + U256::from(1u8)
    }

    #[test]
    fn known_ticks_match_the_pools_values() {
        let at = |t| sqrt_price_x96_at_tick(t).unwrap();
        let n = |s: &str| s.parse::<U256>().unwrap();
        assert_eq!(at(0), U256::from(1u8) << 96);
        // The exact values (80-digit decimal arithmetic), to a part in 10^25, and the pools'
        // own bounds (`TickMath.MIN_SQRT_RATIO` / `MAX_SQRT_RATIO`, themselves a part in 10^19
        // from exact) to a part in 10^18.
        let exact_max = n("1461446703485210103244672773810124308346321380902");
        assert!(
            close(at(MAX_TICK), exact_max, 10u128.pow(25)),
            "{}",
            at(MAX_TICK)
        );
        let pools_max = n("1461446703485210103287273052203988822378723970342");
        assert!(close(at(MAX_TICK), pools_max, 10u128.pow(18)));
        assert!(
            close(at(MIN_TICK), n("4295128739"), 1_000_000_000),
            "{}",
            at(MIN_TICK)
        );
        // The world's WETH/DAI pool sits near tick 69,081 (1,000 DAI per WETH).
        let weth_dai = n("2505413655765166104103837312488");
        assert!(
            close(at(69_081), weth_dai, 10u128.pow(25)),
            "{}",
            at(69_081)
        );
        assert_eq!(sqrt_price_x96_at_tick(MAX_TICK + 1), None);
        assert_eq!(sqrt_price_x96_at_tick(MIN_TICK - 1), None);
    }

    #[test]
    fn negative_ticks_invert_positive_ones() {
        for t in [1, 10, 60, 887, 207_243, 276_324] {
            let up = sqrt_price_x96_at_tick(t).unwrap();
            let down = sqrt_price_x96_at_tick(-t).unwrap();
            // up · down = 2^192, within rounding.
            let product = U512::from(up) * U512::from(down);
            let one = U512::from(1u8) << 192;
            let diff = if product > one {
                product - one
            } else {
                one - product
            };
            assert!(diff <= (one >> 60), "tick {t}");
            assert!(up > sqrt_price_x96_at_tick(t - 1).unwrap());
        }
    }

    #[test]
    fn mean_ticks_round_down() {
        assert_eq!(mean_tick(0, 1_800 * 5, 1_800), Some(5));
        assert_eq!(mean_tick(0, -1, 1_800), Some(-1));
        assert_eq!(mean_tick(100, 100 - 1_800 * 7, 1_800), Some(-7));
        assert_eq!(mean_tick(0, 1, 0), None);
    }
}
