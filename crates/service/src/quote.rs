//! `quote`: what an exact-input Uniswap V2 swap would deliver on the latest state, and the
//! least output a slippage tolerance the policy allows leaves open, so that an agent learns a
//! `min_amount_out` for `encode_swap` before it proposes.
//!
//! A read (scope `read`): Router02's `getAmountsOut` on the same latest state the other reads
//! use (a fork of the node's latest block, or the embedded world). Nothing is signed and
//! nothing is stored. The tolerance is at most the policy's `max_slippage_bps`, and the
//! minimum is rounded up, `ceil(amount_out * (10_000 - slippage_bps) / 10_000)`, so that the
//! tolerance the verifier reads back ([`pace_types::units::min_out_tolerance_bps`]) is never
//! more than `slippage_bps`, however small the output.

use crate::{
    Error, Result, Service,
    auth::{Caller, Scope},
    preview::human,
};
use alloy_primitives::{Address, I256, U256};
use pace_abi::bindings::IUniswapV2Router02;
use pace_types::{BPS_SCALE, Bps};
use serde::Deserialize;

/// The quote tool's arguments (as [`crate::args::read`] gives them).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QuoteArgs {
    #[serde(default)]
    account: Option<Address>,
    router: Address,
    path: Vec<Address>,
    amount_in: String,
    #[serde(default)]
    slippage_bps: Option<Bps>,
}

/// `ceil(amount_out * (10_000 - slippage_bps) / 10_000)`, without overflow: the least
/// output whose tolerance against `amount_out` is at most `slippage_bps`.
pub fn min_amount_out(amount_out: U256, slippage_bps: Bps) -> U256 {
    let scale = U256::from(BPS_SCALE);
    let keep = U256::from(BPS_SCALE.saturating_sub(slippage_bps));
    // out = q * 10_000 + r: q * keep is whole, so only r's share is rounded.
    let share = (amount_out % scale) * keep;
    (amount_out / scale) * keep + share.div_ceil(scale)
}

impl Service {
    /// `quote` for `caller` (scope `read`) on its `args`: the expected output of swapping
    /// `amount_in` along `path` on `router`, and `min_amount_out` for `slippage_bps` (at most,
    /// and by default, the policy's `max_slippage_bps`).
    pub fn quote(&self, caller: &Caller, args: serde_json::Value) -> Result<serde_json::Value> {
        self.require_audited(caller, Scope::Read)?;
        let q: QuoteArgs =
            serde_json::from_value(args).map_err(|e| Error::BadRequest(e.to_string()))?;
        let (tenant, account) = self.read_target(caller, q.account)?;
        let max = tenant.policy.policy().max_slippage_bps;
        let slippage = q.slippage_bps.unwrap_or(max);
        if slippage > max {
            return Err(Error::BadRequest(format!(
                "slippage_bps: {slippage} is above the policy's max_slippage_bps {max}: a swap \
                 with that tolerance would be rejected (SLIPPAGE_EXCEEDED); give at most {max}, \
                 or null for {max}"
            )));
        }
        let amount_in = pace_types::amount::parse_u256(&q.amount_in)
            .map_err(|e| Error::BadRequest(format!("amount_in: {e}")))?;
        if q.path.len() < 2 {
            return Err(Error::BadRequest(
                "path: at least two tokens, token in first".into(),
            ));
        }
        let evm = self.latest_state()?;
        let call = IUniswapV2Router02::getAmountsOutCall {
            amountIn: amount_in,
            path: q.path.clone(),
        };
        let amounts = evm.view_sol(q.router, &call).map_err(|e| match e {
            pace_evm::Error::Fork(f) => Error::Chain(f.to_string()),
            other => Error::QuoteUnavailable {
                router: q.router,
                reason: other.to_string(),
            },
        })?;
        let Some(&amount_out) = amounts.last().filter(|_| amounts.len() == q.path.len()) else {
            return Err(Error::QuoteUnavailable {
                router: q.router,
                reason: format!(
                    "getAmountsOut answered {} amounts for a path of {} tokens",
                    amounts.len(),
                    q.path.len()
                ),
            });
        };
        let token_out = q.path[q.path.len() - 1];
        let decimals = crate::service::token_meta(&evm, token_out).decimals;
        let amounts_out: Vec<String> = amounts.iter().map(U256::to_string).collect();
        Ok(serde_json::json!({
            "account": account,
            "block_number": evm.block_number(),
            "router": q.router,
            "path": q.path,
            "amount_in": amount_in.to_string(),
            "amounts_out": amounts_out,
            "amount_out": amount_out.to_string(),
            "amount_out_human": human(I256::from_raw(amount_out), decimals),
            "slippage_bps": slippage,
            "max_slippage_bps": max,
            "min_amount_out": min_amount_out(amount_out, slippage).to_string(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pace_types::units::min_out_tolerance_bps;

    #[test]
    fn the_minimum_never_reads_back_as_more_than_its_tolerance() {
        let outs = [
            U256::from(1u64),
            U256::from(7u64),
            U256::from(100u64),
            U256::from(9_999u64),
            U256::from(10_001u64),
            U256::from(996_900_609_009_281_774_607u128),
            U256::from(10u64).pow(U256::from(30u64)) + U256::from(7u64),
            U256::from(1u64) << 128,
        ];
        for out in outs {
            for bps in [0, 1, 50, 100, 9_999, 10_000] {
                let min = min_amount_out(out, bps);
                let scaled = out * U256::from(10_000 - bps);
                let exact = scaled.div_ceil(U256::from(10_000u64));
                assert_eq!(min, exact, "{out} {bps}");
                assert!(min <= out, "{out} {bps}");
                assert!(min_out_tolerance_bps(out, min) <= bps, "{out} {bps}");
                // One less would leave more open than asked, or nothing is below it.
                if let Some(less) = min.checked_sub(U256::from(1u64)) {
                    assert!(less * U256::from(10_000u64) < scaled, "{out} {bps}");
                }
            }
        }
        // Dust: an output of 100 at 50 bps keeps 100 (99 would read as 100 bps).
        assert_eq!(min_amount_out(U256::from(100u64), 50), U256::from(100u64));
        assert_eq!(
            min_amount_out(U256::from(9_999u64), 50),
            U256::from(9_950u64)
        );
        // No overflow where out * 10_000 would not fit.
        assert_eq!(min_amount_out(U256::MAX, 0), U256::MAX);
        assert!(min_amount_out(U256::MAX, 50) < U256::MAX);
    }
}
