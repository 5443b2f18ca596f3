//! Uniswap V3 positions valued at the trusted prices: the amounts of token0 and token1 a
//! position's liquidity represents at the square-root price the trusted valuations of the two
//! tokens imply (not the pool's `slot0`, which anyone can move within the block), plus what it
//! is owed (uncollected fees included). A position's change over the calls is then a change of
//! the account's holdings of the two tokens, like a lending deposit.

use super::Valuer;
use alloy_primitives::{Address, I256, U256, U512};
use pace_types::{V3Liquidity, V3Position};

/// How many smallest units of each token the implied price is computed from: large enough
/// that rounding is far below a basis point for any real token, small enough that any value
/// fits.
const PRICE_PROBE: U256 = U256::from_limbs([0, 1 << 32, 0, 0]);

/// `√(p) · 2^96` for `p` = token1 per token0 (smallest units), from the worth in wei of
/// [`PRICE_PROBE`] units of each; `None` when either is unpriced or worth nothing.
pub(crate) fn implied_sqrt_price_x96(
    valuer: &Valuer<'_>,
    token0: Address,
    token1: Address,
) -> Option<U256> {
    let v0 = valuer.value(token0, PRICE_PROBE, false)?;
    let v1 = valuer.value(token1, PRICE_PROBE, false)?;
    if v0.is_zero() || v1.is_zero() {
        return None;
    }
    let ratio = (U512::from(v0) << 192usize) / U512::from(v1);
    let root = ratio.root(2);
    (root > U512::ZERO && root <= U512::from(U256::MAX)).then(|| root.to::<U256>())
}

/// `a · b / c` in 512 bits, rounded down, saturating.
fn mul_div(a: U256, b: U256, c: U256) -> U256 {
    if c.is_zero() {
        return U256::ZERO;
    }
    U256::saturating_from(U512::from(a) * U512::from(b) / U512::from(c))
}

/// The amounts of token0 and token1 that `liquidity` between `sqrt_a` and `sqrt_b` represents
/// at `sqrt_p` (all Q64.96), rounded down: all token0 below the range, all token1 above it.
pub(crate) fn amounts(liquidity: U256, sqrt_p: U256, sqrt_a: U256, sqrt_b: U256) -> (U256, U256) {
    let (lo, hi) = if sqrt_a <= sqrt_b {
        (sqrt_a, sqrt_b)
    } else {
        (sqrt_b, sqrt_a)
    };
    if lo.is_zero() || liquidity.is_zero() {
        return (U256::ZERO, U256::ZERO);
    }
    let q96 = U256::from(1u8) << 96usize;
    // amount0 = L · 2^96 · (hi - p) / (hi · p); amount1 = L · (p - lo) / 2^96.
    let amount0 = |p: U256| mul_div(mul_div(liquidity, hi - p, hi), q96, p);
    let amount1 = |p: U256| mul_div(liquidity, p - lo, q96);
    if sqrt_p <= lo {
        (amount0(lo), U256::ZERO)
    } else if sqrt_p >= hi {
        (U256::ZERO, amount1(hi))
    } else {
        (amount0(sqrt_p), amount1(sqrt_p))
    }
}

/// What `held` is worth in token0 and token1 at `sqrt_p`: its liquidity's amounts plus what it
/// is owed.
fn holdings(position: &V3Position, held: Option<&V3Liquidity>, sqrt_p: U256) -> (U256, U256) {
    let Some(h) = held else {
        return (U256::ZERO, U256::ZERO);
    };
    let (a0, a1) = amounts(
        h.liquidity,
        sqrt_p,
        position.sqrt_lower_x96,
        position.sqrt_upper_x96,
    );
    (a0.saturating_add(h.owed0), a1.saturating_add(h.owed1))
}

fn signed_delta(before: U256, after: U256) -> I256 {
    let s = |v: U256| I256::try_from(v).unwrap_or(I256::MAX);
    s(after).saturating_sub(s(before))
}

/// One position's change in the account's favour, in token0 and token1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PositionDelta {
    /// The pool the liquidity is in.
    pub(crate) pool: Address,
    /// `(token, change)` for token0 and token1.
    pub(crate) legs: [(Address, I256); 2],
}

/// The change of each position in `positions` at the trusted prices, or the tokens that have
/// none (their position cannot be valued).
pub(crate) fn position_deltas(
    positions: &[&V3Position],
    valuer: &Valuer<'_>,
) -> (Vec<PositionDelta>, Vec<Address>) {
    let (mut out, mut unpriced) = (Vec::new(), Vec::new());
    for p in positions {
        let Some(sqrt_p) = implied_sqrt_price_x96(valuer, p.token0, p.token1) else {
            for t in [p.token0, p.token1] {
                if !unpriced.contains(&t) {
                    unpriced.push(t);
                }
            }
            continue;
        };
        let (b0, b1) = holdings(p, p.before.as_ref(), sqrt_p);
        let (a0, a1) = holdings(p, p.after.as_ref(), sqrt_p);
        out.push(PositionDelta {
            pool: p.pool,
            legs: [
                (p.token0, signed_delta(b0, a0)),
                (p.token1, signed_delta(b1, a1)),
            ],
        });
    }
    (out, unpriced)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pace_types::{Policy, TablePrice};

    fn q96() -> U256 {
        U256::from(1u8) << 96usize
    }

    #[test]
    fn amounts_follow_the_price_through_the_range() {
        let l = U256::from(1_000_000_000_000u64);
        // Range [1/4, 4] in price, i.e. [1/2, 2] in square root.
        let (lo, hi) = (q96() / U256::from(2u8), q96() * U256::from(2u8));
        // At price 1: L·(1 - 1/2) of each.
        let (a0, a1) = amounts(l, q96(), lo, hi);
        let half = l / U256::from(2u8);
        assert!(a0.abs_diff(half) <= U256::from(1u8) && a1.abs_diff(half) <= U256::from(1u8));
        // Below the range: token0 only, L·(1/lo - 1/hi) = L·1.5; above: token1 only, L·1.5.
        let three_halves = l * U256::from(3u8) / U256::from(2u8);
        let (b0, b1) = amounts(l, lo / U256::from(2u8), lo, hi);
        assert_eq!(b1, U256::ZERO);
        assert!(b0.abs_diff(three_halves) <= U256::from(2u8), "{b0}");
        let (c0, c1) = amounts(l, hi * U256::from(2u8), lo, hi);
        assert_eq!(c0, U256::ZERO);
        assert!(c1.abs_diff(three_halves) <= U256::from(2u8), "{c1}");
        assert_eq!(amounts(U256::ZERO, q96(), lo, hi), (U256::ZERO, U256::ZERO));
    }

    #[test]
    fn the_implied_price_comes_from_the_trusted_values() {
        let (t0, t1) = (Address::repeat_byte(1), Address::repeat_byte(2));
        // 1 unit of token0 is worth 4 wei, 1 unit of token1 1 wei: price 4, root 2.
        let policy = Policy {
            prices: vec![
                TablePrice {
                    token: t0,
                    amount: U256::from(1u8),
                    value: U256::from(4u8),
                },
                TablePrice {
                    token: t1,
                    amount: U256::from(1u8),
                    value: U256::from(1u8),
                },
            ],
            ..Policy::default()
        };
        let v = Valuer::new(&policy, &[]);
        assert_eq!(
            implied_sqrt_price_x96(&v, t0, t1),
            Some(q96() * U256::from(2u8))
        );
        assert_eq!(
            implied_sqrt_price_x96(&v, t0, Address::repeat_byte(3)),
            None
        );
    }
}
