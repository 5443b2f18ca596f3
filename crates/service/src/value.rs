//! The value of a transition's gross outflows in the policy's unit of account (wei), at the
//! pre-execution prices the simulation read, for the approval threshold.
//!
//! Prices come only from sources the policy trusts, as the verifier's value conservation
//! takes them: the policy's `prices` table, then a feed named in `price_oracles` (token,
//! quote and scale must match), an ERC-4626 vault named in `price_vaults`, a pool named in
//! `price_pools` (its mid price, or its LP token's share of both reserves). Ether is worth
//! itself. Amounts are rounded up, and an asset no trusted source prices makes the whole
//! value unknown: an unpriced outflow is above any threshold.

use alloy_primitives::{Address, U256, U512};
use pace_types::{ETH, Policy, PriceFact, PriceSource, TokenAmount};

/// How many rates may chain to reach ether.
const MAX_DEPTH: usize = 4;
/// How many rates one valuation may try before the asset counts as unpriced.
const MAX_STEPS: usize = 4_096;

/// The worth in wei of every amount in `outflows` together, rounded up; `None` when one of
/// them cannot be priced from what `policy` trusts among `prices`.
pub fn outflow_value(
    policy: &Policy,
    prices: &[PriceFact],
    outflows: &[TokenAmount],
) -> Option<U256> {
    let valuer = Valuer {
        policy,
        prices,
        steps: core::cell::Cell::new(0),
    };
    outflows.iter().try_fold(U256::ZERO, |sum, out| {
        valuer.steps.set(0);
        let v = valuer.value(out.token, out.amount, &mut Vec::new())?;
        Some(sum.saturating_add(v))
    })
}

/// `a * b / c` rounded up, saturating; `None` when `c` is 0.
fn mul_div_up(a: U256, b: U256, c: U256) -> Option<U256> {
    if c.is_zero() {
        return None;
    }
    let q = (U512::from(a) * U512::from(b)).div_ceil(U512::from(c));
    Some(U256::saturating_from(q))
}

struct Valuer<'a> {
    policy: &'a Policy,
    prices: &'a [PriceFact],
    steps: core::cell::Cell<usize>,
}

impl Valuer<'_> {
    fn trusted(&self, fact: &PriceFact) -> bool {
        let p = self.policy;
        match fact.source {
            PriceSource::Oracle => match fact.worth.as_slice() {
                [quote] => p.price_oracles.iter().any(|o| {
                    o.oracle == fact.via
                        && o.token == fact.token
                        && o.quote == quote.token
                        && o.scale == fact.amount
                }),
                _ => false,
            },
            PriceSource::Vault => fact.token == fact.via && p.price_vaults.contains(&fact.via),
            PriceSource::Pool => p.price_pools.contains(&fact.via),
            PriceSource::PoolShare => fact.token == fact.via && p.price_pools.contains(&fact.via),
            // A source the threshold does not know prices nothing: the outflow is unpriced.
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    fn value(&self, token: Address, amount: U256, path: &mut Vec<Address>) -> Option<U256> {
        if token == ETH || amount.is_zero() {
            return Some(amount);
        }
        if let Some(entry) = self.policy.prices.iter().find(|p| p.token == token) {
            return mul_div_up(amount, entry.value, entry.amount);
        }
        self.steps.set(self.steps.get() + 1);
        if path.len() >= MAX_DEPTH || path.contains(&token) || self.steps.get() > MAX_STEPS {
            return None;
        }
        path.push(token);
        let order = [
            PriceSource::Oracle,
            PriceSource::Vault,
            PriceSource::Pool,
            PriceSource::PoolShare,
        ];
        let found = order.iter().find_map(|&kind| {
            self.prices
                .iter()
                .filter(|f| f.token == token && f.source == kind && !f.amount.is_zero())
                .filter(|f| self.trusted(f))
                .find_map(|f| {
                    f.worth.iter().try_fold(U256::ZERO, |sum, leg| {
                        let part = mul_div_up(amount, leg.amount, f.amount)?;
                        Some(sum.saturating_add(self.value(leg.token, part, path)?))
                    })
                })
        });
        path.pop();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pace_types::TablePrice;

    fn policy() -> Policy {
        let mut p: Policy = serde_json::from_value(serde_json::json!({
            "max_value_wei": "0", "max_slippage_bps": 0, "max_price_impact_bps": 0,
            "max_simulation_age_secs": 60
        }))
        .unwrap();
        p.prices = vec![TablePrice {
            token: Address::repeat_byte(1),
            amount: U256::from(3u8),
            value: U256::from(2u8),
        }];
        p.price_pools = vec![Address::repeat_byte(9)];
        p
    }

    fn out(token: u8, amount: u64) -> TokenAmount {
        TokenAmount {
            token: Address::repeat_byte(token),
            amount: U256::from(amount),
        }
    }

    #[test]
    fn table_prices_round_up_and_ether_is_itself() {
        let p = policy();
        // 10 of token 1 at 2 wei per 3: 6.67, rounded up to 7; plus 5 wei.
        let outflows = [
            out(1, 10),
            TokenAmount {
                token: ETH,
                amount: U256::from(5u8),
            },
        ];
        assert_eq!(outflow_value(&p, &[], &outflows), Some(U256::from(12u8)));
        assert_eq!(outflow_value(&p, &[], &[]), Some(U256::ZERO));
    }

    #[test]
    fn a_trusted_pool_prices_through_the_table_and_an_untrusted_one_does_not() {
        let p = policy();
        let fact = |via: u8| PriceFact {
            token: Address::repeat_byte(2),
            source: PriceSource::Pool,
            via: Address::repeat_byte(via),
            amount: U256::from(100u8),
            worth: vec![out(1, 30)],
        };
        // 100 of token 2 is 30 of token 1, which is 20 wei.
        assert_eq!(
            outflow_value(&p, &[fact(9)], &[out(2, 100)]),
            Some(U256::from(20u8))
        );
        assert_eq!(outflow_value(&p, &[fact(8)], &[out(2, 100)]), None);
        // One unpriced outflow makes the whole value unknown.
        assert_eq!(
            outflow_value(&p, &[fact(9)], &[out(2, 100), out(3, 1)]),
            None
        );
    }
}
