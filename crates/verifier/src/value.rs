//! Value conservation: the account's whole delta, valued in wei at pre-execution prices.
//!
//! Prices come only from sources the policy trusts, in this order: the policy's `prices`
//! table, then a feed it names in `price_oracles` (the entry must match the rate's token,
//! quote and scale), then an ERC-4626 vault it names in `price_vaults`, then a pool it names
//! in `price_pools` (its mid price, or its LP token's share of both reserves). The rates are
//! the simulator's pre-execution reads ([`PriceFact`]), so a trade cannot move the price it is
//! judged at, and a pool the policy does not name prices nothing. Ether is worth itself.
//!
//! The delta of an asset is the account's wallet change (the smaller of the measured balance
//! change and the logged net flow, so neither a silent drain nor a fake `Transfer` log can
//! improve it; NFTs by count), plus its lending-position change (collateral up, debt down).
//! Payments to payees (`allowed_recipients`) are added back, whoever makes them in the
//! account's transaction (the account itself, or a router or forwarder paying the payee on
//! its behalf): they are what the user asked for. The calldata's own payments count too, so
//! a report without flows still nets them. Fee recipients are not payees: what they get is a
//! loss. A fall of one smallest unit per call is rounding, not a loss.
//!
//! The notional is the value of each asset's net fall: an exchange that brings the same
//! value back (wrapping, a lending deposit) does not widen the loss the bound allows.

use alloy_primitives::{Address, I256, U256, U512};
use pace_types::{ETH, Policy, PriceFact, PriceSource, SimulationReport};

/// How many rates may chain to reach ether (e.g. LP token -> pool sides -> pool -> table).
const MAX_DEPTH: usize = 4;
/// How many rates one valuation may try: a hostile report listing many rates for the same
/// assets cannot make the search explode; past the budget the asset is unpriced.
const MAX_STEPS: usize = 4_096;

/// One asset of the account's delta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AssetDelta {
    /// The token, collection or [`ETH`].
    pub(crate) token: Address,
    /// The change in the account's favour, payments to payees added back.
    pub(crate) adjusted: I256,
    /// The net fall of the asset, payments to payees added back (the notional's part).
    pub(crate) out: U256,
}

/// The outcome of valuing the delta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conservation {
    /// Assets that must be valued and cannot be.
    pub(crate) unpriced: Vec<Address>,
    /// The pre-execution value of what left the account (wei, rounded down).
    pub(crate) notional: U256,
    /// The value lost (wei; outflows rounded up, inflows down), 0 for a gain.
    pub(crate) loss: U256,
}

/// `a * b / c`, rounded up or down, saturating; `None` when `c` is 0.
fn mul_div(a: U256, b: U256, c: U256, up: bool) -> Option<U256> {
    if c.is_zero() {
        return None;
    }
    let (a, b, c) = (U512::from(a), U512::from(b), U512::from(c));
    let q = if up { (a * b).div_ceil(c) } else { a * b / c };
    Some(U256::saturating_from(q))
}

/// Values assets in wei from the sources `policy` trusts among `facts`.
pub(crate) struct Valuer<'a> {
    policy: &'a Policy,
    facts: &'a [PriceFact],
    steps: core::cell::Cell<usize>,
}

impl<'a> Valuer<'a> {
    pub(crate) fn new(policy: &'a Policy, facts: &'a [PriceFact]) -> Self {
        Self {
            policy,
            facts,
            steps: core::cell::Cell::new(0),
        }
    }

    /// The worth of `amount` of `token` in wei, or `None` when no trusted source prices it.
    pub(crate) fn value(&self, token: Address, amount: U256, up: bool) -> Option<U256> {
        let mut path = Vec::with_capacity(MAX_DEPTH);
        self.steps.set(0);
        self.value_at(token, amount, up, &mut path)
    }

    fn trusted(&self, fact: &PriceFact) -> bool {
        let p = self.policy;
        match fact.source {
            PriceSource::Oracle => {
                let [quote] = fact.worth.as_slice() else {
                    return false;
                };
                p.price_oracles.iter().any(|o| {
                    o.oracle == fact.via
                        && o.token == fact.token
                        && o.quote == quote.token
                        && o.scale == fact.amount
                })
            }
            PriceSource::Vault => fact.token == fact.via && p.price_vaults.contains(&fact.via),
            PriceSource::Pool => p.price_pools.contains(&fact.via),
            PriceSource::PoolShare => fact.token == fact.via && p.price_pools.contains(&fact.via),
        }
    }

    fn value_at(
        &self,
        token: Address,
        amount: U256,
        up: bool,
        path: &mut Vec<Address>,
    ) -> Option<U256> {
        if token == ETH || amount.is_zero() {
            return Some(amount);
        }
        if let Some(entry) = self.policy.prices.iter().find(|p| p.token == token) {
            return mul_div(amount, entry.value, entry.amount, up);
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
            self.facts
                .iter()
                .filter(|f| f.token == token && f.source == kind && !f.amount.is_zero())
                .filter(|f| self.trusted(f))
                .find_map(|f| {
                    f.worth.iter().try_fold(U256::ZERO, |sum, leg| {
                        let part = mul_div(amount, leg.amount, f.amount, up)?;
                        Some(sum.saturating_add(self.value_at(leg.token, part, up, path)?))
                    })
                })
        });
        path.pop();
        found
    }
}

/// `value` as a signed amount, saturating.
fn signed(value: U256) -> I256 {
    I256::try_from(value).unwrap_or(I256::MAX)
}

/// What the delta needs besides the report.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Payments<'a> {
    /// `(token, amount)` the calldata pays payees directly.
    pub(crate) decoded: &'a [(Address, U256)],
    /// Rounding dust: a fall of at most this many smallest units of an asset is not a loss
    /// (one per call: a vault or pool rounds each operation in its own favour).
    pub(crate) dust: U256,
}

/// The account's delta per asset; see the module docs. Of the direct payments, the larger of
/// the decoded and the traced amount is added back.
pub(crate) fn deltas(
    report: &SimulationReport,
    policy: &Policy,
    account: Address,
    payments: Payments<'_>,
) -> Vec<AssetDelta> {
    let decoded_paid = payments.decoded;
    let mut out: Vec<AssetDelta> = Vec::new();
    fn entry(out: &mut Vec<AssetDelta>, token: Address) -> &mut AssetDelta {
        let i = match out.iter().position(|d| d.token == token) {
            Some(i) => i,
            None => {
                out.push(AssetDelta {
                    token,
                    adjusted: I256::ZERO,
                    out: U256::ZERO,
                });
                out.len() - 1
            }
        };
        &mut out[i]
    }
    let payee = |a: &Address| policy.allowed_recipients.contains(a);
    // (token, net logged flow of the account, payments to payees)
    let mut logged: Vec<(Address, I256, U256)> = Vec::new();
    let mut note = |token: Address, from: Address, to: Address, amount: U256| {
        if from == to || amount.is_zero() {
            return;
        }
        let i = match logged.iter().position(|l| l.0 == token) {
            Some(i) => i,
            None => {
                logged.push((token, I256::ZERO, U256::ZERO));
                logged.len() - 1
            }
        };
        let l = &mut logged[i];
        if to == account {
            l.1 = l.1.saturating_add(signed(amount));
        }
        if from == account {
            l.1 = l.1.saturating_sub(signed(amount));
        }
        if payee(&to) && !payee(&from) {
            l.2 = l.2.saturating_add(amount);
        }
    };
    for f in &report.token_flows {
        note(f.token, f.from, f.to, f.amount);
    }
    for f in &report.nft_flows {
        note(f.token, f.from, f.to, f.amount);
    }
    let measured = |token: Address| {
        report
            .balance_changes
            .iter()
            .find(|c| c.token == token)
            .map(|c| c.delta)
    };
    for &(token, _) in decoded_paid {
        if logged.iter().all(|l| l.0 != token) {
            logged.push((token, I256::ZERO, U256::ZERO));
        }
    }
    let has_flows = |token: Address| {
        report.token_flows.iter().any(|f| f.token == token)
            || report.nft_flows.iter().any(|f| f.token == token)
    };
    for &(token, net, traced_paid) in &logged {
        let decoded = decoded_paid
            .iter()
            .filter(|d| d.0 == token)
            .fold(U256::ZERO, |sum, d| sum.saturating_add(d.1));
        let paid = traced_paid.max(decoded);
        // Without any logged movement of the token, its balance change is all there is.
        let wallet = match measured(token) {
            Some(m) if has_flows(token) => m.min(net),
            Some(m) => m,
            None => net,
        };
        let d = entry(&mut out, token);
        d.adjusted = wallet.saturating_add(signed(paid));
    }
    for c in &report.balance_changes {
        if logged.iter().all(|l| l.0 != c.token) {
            entry(&mut out, c.token).adjusted = c.delta;
        }
    }
    for p in &report.positions {
        let d = entry(&mut out, p.token);
        d.adjusted = d.adjusted.saturating_add(p.delta);
    }
    for d in &mut out {
        if d.adjusted.is_negative() && d.adjusted.unsigned_abs() <= payments.dust {
            d.adjusted = I256::ZERO;
        }
        d.out = d.adjusted.min(I256::ZERO).unsigned_abs();
    }
    out
}

/// Values the account's delta; see the module docs and [`deltas`].
pub(crate) fn conservation(
    report: &SimulationReport,
    policy: &Policy,
    account: Address,
    payments: Payments<'_>,
) -> Conservation {
    let valuer = Valuer::new(policy, &report.prices);
    let mut result = Conservation {
        unpriced: Vec::new(),
        notional: U256::ZERO,
        loss: U256::ZERO,
    };
    let (mut gains, mut losses) = (U256::ZERO, U256::ZERO);
    for d in deltas(report, policy, account, payments) {
        if d.adjusted.is_zero() && d.out.is_zero() {
            continue;
        }
        let magnitude = d.adjusted.unsigned_abs();
        let change = valuer.value(d.token, magnitude, d.adjusted.is_negative());
        let notional = valuer.value(d.token, d.out, false);
        match (change, notional) {
            (Some(change), Some(notional)) => {
                if d.adjusted.is_negative() {
                    losses = losses.saturating_add(change);
                } else {
                    gains = gains.saturating_add(change);
                }
                result.notional = result.notional.saturating_add(notional);
            }
            _ => result.unpriced.push(d.token),
        }
    }
    result.loss = losses.saturating_sub(gains);
    result
}

#[cfg(test)]
mod flows_tests;
#[cfg(test)]
mod trust_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use pace_types::{BalanceChange, TablePrice, TokenAmount, TokenFlow};

    fn addr(b: u8) -> Address {
        Address::repeat_byte(b)
    }

    fn report() -> SimulationReport {
        serde_json::from_str(
            r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true}"#,
        )
        .unwrap()
    }

    fn pool_fact(token: u8, amount: u64, quote: u8, worth: u64, via: u8) -> PriceFact {
        PriceFact {
            token: addr(token),
            source: PriceSource::Pool,
            via: addr(via),
            amount: U256::from(amount),
            worth: vec![TokenAmount {
                token: addr(quote),
                amount: U256::from(worth),
            }],
        }
    }

    #[test]
    fn only_trusted_pools_price_and_rates_chain() {
        let mut policy = Policy {
            prices: vec![TablePrice {
                token: addr(1),
                amount: U256::from(1u8),
                value: U256::from(1u8),
            }],
            ..Policy::default()
        };
        // 1000 of token 2 are worth 1 of token 1 in pool 9; an unlisted pool 8 says 1:1.
        let facts = [pool_fact(2, 1000, 1, 1, 9), pool_fact(2, 1, 1, 1, 8)];
        assert_eq!(
            Valuer::new(&policy, &facts).value(addr(2), U256::from(5000u64), false),
            None
        );
        policy.price_pools.push(addr(9));
        let v = Valuer::new(&policy, &facts);
        assert_eq!(
            v.value(addr(2), U256::from(5000u64), false),
            Some(U256::from(5u8))
        );
        assert_eq!(
            v.value(addr(2), U256::from(5001u64), true),
            Some(U256::from(6u8))
        );
        assert_eq!(v.value(ETH, U256::from(7u8), false), Some(U256::from(7u8)));
    }

    #[test]
    fn cycles_do_not_price() {
        let policy = Policy {
            price_pools: vec![addr(9)],
            ..Policy::default()
        };
        let facts = [pool_fact(2, 1, 3, 1, 9), pool_fact(3, 1, 2, 1, 9)];
        assert_eq!(
            Valuer::new(&policy, &facts).value(addr(2), U256::from(1u8), false),
            None
        );
    }

    #[test]
    fn a_burn_for_nothing_is_a_loss_and_a_payee_payment_is_not() {
        let account = addr(0xaa);
        let policy = Policy {
            prices: vec![TablePrice {
                token: addr(1),
                amount: U256::from(1u8),
                value: U256::from(1u8),
            }],
            allowed_recipients: vec![addr(0xbb)],
            ..Policy::default()
        };
        let mut r = report();
        r.token_flows = vec![TokenFlow {
            token: addr(1),
            from: account,
            to: Address::ZERO,
            amount: U256::from(20u8),
        }];
        r.balance_changes = vec![BalanceChange {
            token: addr(1),
            delta: I256::try_from(-20i64).unwrap(),
        }];
        let none = Payments::default();
        let c = conservation(&r, &policy, account, none);
        assert_eq!((c.loss, c.notional), (U256::from(20u8), U256::from(20u8)));
        // Paid to a payee, as the calldata says, with or without the trace agreeing.
        let decoded = [(addr(1), U256::from(20u8))];
        let paid = Payments {
            decoded: &decoded,
            dust: U256::ZERO,
        };
        let c = conservation(&r, &policy, account, paid);
        assert_eq!((c.loss, c.notional), (U256::ZERO, U256::ZERO));
        // A router paying the payee on the account's behalf is a payment too.
        r.token_flows[0].to = addr(0xbb);
        r.token_flows[0].from = addr(0xcc);
        assert_eq!(conservation(&r, &policy, account, none).loss, U256::ZERO);
        // Rounding dust is no loss; one unit more is.
        r.token_flows[0].to = Address::ZERO;
        r.token_flows[0].from = account;
        r.balance_changes[0].delta = I256::try_from(-2i64).unwrap();
        r.token_flows[0].amount = U256::from(2u8);
        let dust = |d: u8| Payments {
            decoded: &[],
            dust: U256::from(d),
        };
        assert_eq!(conservation(&r, &policy, account, dust(2)).loss, U256::ZERO);
        assert_eq!(
            conservation(&r, &policy, account, dust(1)).loss,
            U256::from(2u8)
        );
        r.token_flows[0].amount = U256::from(20u8);
        r.balance_changes[0].delta = I256::try_from(-20i64).unwrap();
        r.token_flows[0].to = addr(0xbb);
        let c = conservation(&r, &policy, account, none);
        assert_eq!((c.loss, c.notional), (U256::ZERO, U256::ZERO));
    }
}
