//! The constant-product pool and the victim's trade.

use crate::error::{Error, Result};
use alloy_primitives::U256;
use serde::{Deserialize, Serialize};

/// Basis points in one whole (100 %).
pub const BPS: u32 = 10_000;

/// The largest Uniswap V2 reserve, `2^112 - 1`.
const MAX_U112: U256 = U256::from_limbs([u64::MAX, (1 << 48) - 1, 0, 0]);

/// Uniswap V2 `getAmountOut` with a fee of `fee_bps` basis points:
/// `in·(10000−fee)·reserve_out / (reserve_in·10000 + in·(10000−fee))`, rounded down.
///
/// For `fee_bps = 30` this is exactly Uniswap's `997/1000` formula (numerator and denominator
/// are both scaled by 10, so the floor is the same). Returns 0 when a reserve is 0.
pub fn get_amount_out(amount_in: U256, reserve_in: U256, reserve_out: U256, fee_bps: u32) -> U256 {
    let with_fee = amount_in * U256::from(BPS.saturating_sub(fee_bps));
    let denominator = reserve_in * U256::from(BPS) + with_fee;
    if denominator.is_zero() {
        return U256::ZERO;
    }
    with_fee * reserve_out / denominator
}

/// A constant-product pool seen from the direction of the victim's trade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pool {
    /// Reserve of the token the victim sells (and the attacker's profit is counted in).
    pub reserve_in: U256,
    /// Reserve of the token the victim buys.
    pub reserve_out: U256,
    /// Swap fee in basis points (30 for Uniswap V2).
    pub fee_bps: u32,
}

impl Pool {
    /// A Uniswap V2 pool (0.3 % fee).
    pub fn uniswap_v2(reserve_in: U256, reserve_out: U256) -> Self {
        Self {
            reserve_in,
            reserve_out,
            fee_bps: 30,
        }
    }

    /// Output of selling `amount_in` into this pool.
    pub fn amount_out(&self, amount_in: U256) -> U256 {
        get_amount_out(amount_in, self.reserve_in, self.reserve_out, self.fee_bps)
    }

    /// Checks the pool is one Uniswap V2 could hold.
    pub fn validate(&self) -> Result<()> {
        if self.reserve_in.is_zero() || self.reserve_out.is_zero() {
            return Err(Error::ZeroReserve);
        }
        if self.fee_bps >= BPS {
            return Err(Error::FeeTooHigh(self.fee_bps));
        }
        check_u112(self.reserve_in, "reserve_in")?;
        check_u112(self.reserve_out, "reserve_out")
    }
}

pub(crate) fn check_u112(value: U256, what: &'static str) -> Result<()> {
    if value > MAX_U112 {
        return Err(Error::TooLarge(what));
    }
    Ok(())
}

/// The victim's exact-input swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Victim {
    /// What the victim sells.
    pub amount_in: U256,
    /// The least it accepts (`amountOutMin`); the swap reverts below it.
    pub amount_out_min: U256,
}

impl Victim {
    /// A victim selling `amount_in` with a slippage tolerance of `slippage_bps` against the
    /// pool's current quote, as wallets set `amountOutMin`:
    /// `quote · (10000 − slippage) / 10000`, rounded down.
    pub fn with_slippage(pool: &Pool, amount_in: U256, slippage_bps: u32) -> Result<Self> {
        if slippage_bps > BPS {
            return Err(Error::SlippageTooHigh(slippage_bps));
        }
        let quote = pool.amount_out(amount_in);
        Ok(Self {
            amount_in,
            amount_out_min: quote * U256::from(BPS - slippage_bps) / U256::from(BPS),
        })
    }
}
