//! Value conservation: the account's whole delta, valued in wei at pre-execution prices.
//!
//! Prices come only from sources the policy trusts, in this order:
//!
//! 1. the adapters' own rates for the asset: a claim on a lending market's underlying (an Aave
//!    aToken, a Compound-style cToken; the market must be among `allowed_targets`) or an
//!    ERC-4626 vault it names in `price_vaults` (or that a descriptor it pins trusts with the
//!    `vault_rate` rule, for the protocol's roots and members). An adapter's valuation beats a
//!    table price, so a flat price cannot stand in for what the protocol says the asset is
//!    worth;
//! 2. the policy's `prices` table;
//! 3. a feed it names in `price_oracles`, through its AggregatorV3 round: positive, complete,
//!    fresh, at the entry's scale or the one its decimals imply ([`sources`]);
//! 4. a pool it names in `price_pools` (its mid price, or its LP token's share of both
//!    reserves or, for a Balancer pool, of its balances in the Vault; a pool share also when a
//!    descriptor it pins trusts the pool with the `pool_share` rule, and only while the pool's
//!    mid prices agree with the policy's table and feeds), then a Uniswap V3 pool of
//!    `price_v3_pools` at its TWAP (or `slot0`, for a pool marked `spot`), refused while the
//!    two differ by more than `max_price_impact_bps`.
//!
//! The rates are the simulator's pre-execution reads ([`PriceFact`]), so a trade cannot move
//! the price it is judged at, and a source the policy does not name prices nothing. Ether is
//! worth itself. A trusted source that cannot price (a stale feed, a diverging pool) is not
//! used, and is reported ([`sources::Problem`]).
//!
//! The delta of an asset is the account's wallet change (the smaller of the measured balance
//! change and the logged net flow, so neither a silent drain nor a fake `Transfer` log can
//! improve it; NFTs by count), plus its lending-position change (collateral up, debt down).
//! What the adapters of trusted protocols read changes it ([`trusted`]): a debt token counts as
//! minus its underlying (liabilities are negative value), a Compound-style debt's rise as a
//! fall of its underlying, and a Uniswap V3 position NFT as the token amounts its liquidity and
//! fees represent at the trusted prices ([`v3`]), not per item.
//!
//! Payments to payees (`allowed_recipients`) are added back, whoever makes them in the
//! account's transaction (the account itself, or a router or forwarder paying the payee on
//! its behalf): they are what the user asked for. Each is credited with at most what the
//! payees' balances gained (`payee_receipts`), so a token that skims a fee without a log, or
//! a log without a transfer, shows as the loss it is; a report without receipts credits
//! nothing. A shortfall within `max_loss_bps` of the payment's own value (a token's fee on
//! transfer) is the payment's cost and not a loss. The calldata's own payments count as much as the logs. Fee recipients are not payees: what they get is a
//! loss. A fall of one smallest unit per call is rounding, not a loss.
//!
//! The notional is the value of each asset's net fall, or, when larger, of what of it left the
//! account gross (its logged outflows to others than payees) up to what the account held of
//! it before the calls: a round trip through a pool that brings most of an asset back costs
//! its fees against what it moved, not 100 % of the fees. An exchange that brings the same
//! value back in another asset (wrapping, a lending deposit) does not widen the loss the bound
//! allows, and no repetition widens it past the account's holdings of what moves.
//!
//! An inflow nobody paid for cannot hide a loss: the loss is judged a second time with the
//! gains less the inflows that no value leaving the account paid for ([`paid`]).

mod paid;
mod sources;
pub(crate) mod trusted;
mod v3;

pub(crate) use sources::Problem;
pub(crate) use trusted::Trusted;

use alloy_primitives::{Address, I256, U256, U512};
use core::cell::{Cell, RefCell};
use pace_types::{
    ETH, FeedRound, Policy, PriceFact, PriceSource, ProtocolMember, SimulationReport,
    ViolationCode, descriptor::PriceRule,
};

/// How many rates may chain to reach ether (e.g. LP token -> pool sides -> pool -> table).
const MAX_DEPTH: usize = 4;
/// How many rates one valuation may try: a hostile report listing many rates for the same
/// assets cannot make the search explode; past the budget the asset is unpriced.
const MAX_STEPS: usize = 4_096;

/// The tokens being valued, outermost first: at most [`MAX_DEPTH`].
type Path = crate::Few<Address, MAX_DEPTH>;

/// One asset of the account's delta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AssetDelta {
    /// The token, collection or [`ETH`].
    pub(crate) token: Address,
    /// The change in the account's favour, payments to payees added back.
    pub(crate) adjusted: I256,
    /// The net fall of the asset, payments to payees added back (the notional's part).
    pub(crate) out: U256,
    /// What was sent to payees of the asset (the larger of the decoded and the traced amount).
    pub(crate) sent: U256,
    /// How much less than `sent` the payees' balances gained: not added back in `adjusted`.
    pub(crate) short: U256,
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
    /// The value lost when the inflows nobody paid for are left out of the gains (at least
    /// `loss`).
    pub(crate) unpaid_loss: U256,
    /// The counterparties whose payments were not paid for, with the unpaid value.
    pub(crate) unpaid: Vec<(Address, U256)>,
    /// Trusted sources and protocols that could not be read or used.
    pub(crate) problems: Vec<Problem>,
}

/// `a * b / c`, rounded up or down, saturating; `None` when `c` is 0.
fn mul_div(a: U256, b: U256, c: U256, up: bool) -> Option<U256> {
    if c.is_zero() {
        return None;
    }
    // The product fits 256 bits for any realistic amount and rate: one 256-bit division, or a
    // native 128-bit one when both fit (most amounts times most rates).
    if let Some(product) = a.checked_mul(b) {
        if let (Ok(p), Ok(d)) = (u128::try_from(product), u128::try_from(c)) {
            return Some(U256::from(if up { p.div_ceil(d) } else { p / d }));
        }
        return Some(if up { product.div_ceil(c) } else { product / c });
    }
    let (a, b, c) = (U512::from(a), U512::from(b), U512::from(c));
    let q = if up { (a * b).div_ceil(c) } else { a * b / c };
    Some(U256::saturating_from(q))
}

/// The issuers' own kinds of rate (adapters' and descriptors'), which beat a table price.
const ADAPTER_SOURCES: [PriceSource; 3] =
    [PriceSource::Claim, PriceSource::Vault, PriceSource::Rate];
/// The market kinds of rate, after the table and the feeds.
const MARKET_SOURCES: [PriceSource; 4] = [
    PriceSource::Pool,
    PriceSource::PoolShare,
    PriceSource::V3Twap,
    PriceSource::V3Spot,
];

/// Whether `policy` trusts `vault`'s own rate for its shares: it names the vault in
/// `price_vaults`, or the vault is a root or a member (among `members`, the report's
/// `protocols.members`) of a descriptor it pins with the `vault_rate` rule.
pub(crate) fn trusted_vault(policy: &Policy, members: &[ProtocolMember], vault: Address) -> bool {
    policy.price_vaults.contains(&vault) || by_rule(policy, members, vault, PriceRule::VaultRate)
}

/// Whether `contract` is a root or a member (among `members`) of a descriptor `policy` pins
/// with price rule `rule`.
fn by_rule(
    policy: &Policy,
    members: &[ProtocolMember],
    contract: Address,
    rule: PriceRule,
) -> bool {
    policy.descriptors().filter(|d| d.trusts(rule)).any(|d| {
        d.is_root(contract)
            || members
                .iter()
                .any(|m| m.contract == contract && m.protocol == d.id)
    })
}

/// Whether `policy` trusts `fact`'s source to value its asset (`members`: the report's
/// `protocols.members`).
pub(crate) fn trusted_source(
    policy: &Policy,
    members: &[ProtocolMember],
    fact: &PriceFact,
) -> bool {
    let p = policy;
    match fact.source {
        // Feeds price through their rounds (`sources::feed_rate`), never a bare answer.
        PriceSource::Oracle => false,
        PriceSource::Vault => fact.token == fact.via && trusted_vault(p, members, fact.via),
        PriceSource::Pool => p.price_pools.contains(&fact.via),
        PriceSource::PoolShare => {
            fact.token == fact.via
                && (p.price_pools.contains(&fact.via)
                    || by_rule(p, members, fact.via, PriceRule::PoolShare))
        }
        PriceSource::Claim => p.is_target(&fact.via),
        PriceSource::V3Twap => p
            .price_v3_pools
            .iter()
            .any(|v| v.pool == fact.via && !v.spot),
        PriceSource::V3Spot => p
            .price_v3_pools
            .iter()
            .any(|v| v.pool == fact.via && v.spot),
        PriceSource::Rate => fact.token == fact.via && descriptor_rate(p, fact),
    }
}

/// Whether a descriptor `policy` pins declares `fact`'s rate: the token's own root, the units
/// and the asset the rate is in.
fn descriptor_rate(policy: &Policy, fact: &PriceFact) -> bool {
    let [worth] = fact.worth.as_slice() else {
        return false;
    };
    policy.descriptors().any(|d| {
        d.rates.iter().any(|r| {
            d.root(&r.read.root)
                .is_some_and(|root| root.address == fact.via)
                && r.per == fact.amount
                && r.asset == worth.token
        })
    })
}

/// Values assets in wei from the sources `policy` trusts among `facts` and `feeds`.
pub(crate) struct Valuer<'a> {
    policy: &'a Policy,
    facts: &'a [PriceFact],
    feeds: &'a [FeedRound],
    /// The contracts that belong to the policy's descriptors (the report's
    /// `protocols.members`).
    members: &'a [ProtocolMember],
    /// The simulated block's timestamp, for the feeds' age.
    now: u64,
    steps: Cell<usize>,
    /// The tokens being valued, outermost first (reused across [`Self::value`] calls).
    path: Cell<Path>,
    problems: RefCell<Vec<Problem>>,
}

impl<'a> Valuer<'a> {
    /// A valuer over `facts` only (no feed rounds).
    pub(crate) fn new(policy: &'a Policy, facts: &'a [PriceFact]) -> Self {
        Self {
            policy,
            facts,
            feeds: &[],
            members: &[],
            now: 0,
            steps: Cell::new(0),
            path: Cell::new(Path::new()),
            problems: RefCell::new(Vec::new()),
        }
    }

    /// A valuer over `report`'s rates and feed rounds, judging feeds' age at the simulated
    /// block (the later of the state's and the execution's timestamp).
    pub(crate) fn for_report(policy: &'a Policy, report: &'a SimulationReport) -> Self {
        let executed = report.execution.as_ref().map_or(0, |e| e.timestamp);
        Self {
            feeds: &report.protocols.feeds,
            members: &report.protocols.members,
            now: report.timestamp.max(executed),
            ..Self::new(policy, &report.prices)
        }
    }

    /// A valuer over `facts` and the feed rounds `feeds`, judged at `now`.
    #[cfg(test)]
    pub(crate) fn with_feeds(
        policy: &'a Policy,
        facts: &'a [PriceFact],
        feeds: &'a [FeedRound],
        now: u64,
    ) -> Self {
        Self {
            feeds,
            now,
            ..Self::new(policy, facts)
        }
    }

    /// The worth of `amount` of `token` in wei, or `None` when no trusted source prices it.
    pub(crate) fn value(&self, token: Address, amount: U256, up: bool) -> Option<U256> {
        let mut path = self.path.take();
        path.clear();
        self.steps.set(0);
        let value = self.value_at(token, amount, up, &mut path);
        self.path.set(path);
        value
    }

    /// The trusted sources that could not price, in the order met.
    pub(crate) fn problems(&self) -> Vec<Problem> {
        self.problems.borrow().clone()
    }

    fn problem(&self, p: Problem) {
        let mut list = self.problems.borrow_mut();
        if !list.contains(&p) {
            list.push(p);
        }
    }

    fn trusted(&self, fact: &PriceFact) -> bool {
        trusted_source(self.policy, self.members, fact)
    }

    fn value_at(&self, token: Address, amount: U256, up: bool, path: &mut Path) -> Option<U256> {
        if token == ETH || amount.is_zero() {
            return Some(amount);
        }
        let table = self.policy.prices.iter().find(|p| p.token == token);
        let adapted = self
            .facts
            .iter()
            .any(|f| f.token == token && ADAPTER_SOURCES.contains(&f.source) && self.trusted(f));
        if let (Some(entry), false) = (table, adapted) {
            return mul_div(amount, entry.value, entry.amount, up);
        }
        self.steps.set(self.steps.get() + 1);
        if path.len() >= MAX_DEPTH || path.contains(&token) || self.steps.get() > MAX_STEPS {
            return None;
        }
        path.push(token);
        let found = self
            .by_sources(token, amount, up, path, &ADAPTER_SOURCES)
            .or_else(|| table.and_then(|e| mul_div(amount, e.value, e.amount, up)))
            .or_else(|| self.by_feeds(token, amount, up, path))
            .or_else(|| self.by_sources(token, amount, up, path, &MARKET_SOURCES));
        path.pop();
        found
    }

    /// Why the pool share `fact` must not be used: one of its pool's own mid prices (its
    /// `Pool` facts) is more than the policy's `max_price_impact_bps` from the policy's own
    /// prices of the two tokens (its table or feeds). A share is valued by the pool's balances,
    /// and a pool pushed off the market holds balances worth more at the market's prices than
    /// its shares fetch once it is traded back: the skew is the overvaluation. Within the
    /// bound the overvaluation is of the second order (a 1 % skew, about 0.01 %). `None` for
    /// other facts, and for a pair of tokens the policy prices by no table or feed.
    fn share_divergence(&self, fact: &PriceFact) -> Option<Problem> {
        if fact.source != PriceSource::PoolShare {
            return None;
        }
        let path = &mut Path::new();
        let bound = self.policy.max_price_impact_bps;
        self.facts
            .iter()
            .filter(|g| g.source == PriceSource::Pool && g.via == fact.via)
            .find_map(|g| {
                let [leg] = g.worth.as_slice() else {
                    return None;
                };
                let a = self.own_price(g.token, g.amount, path)?;
                let b = self.own_price(leg.token, leg.amount, path)?;
                let bps = sources::divergence_bps(a, U256::from(1u8), b, U256::from(1u8));
                (bps > u64::from(bound)).then(|| Problem {
                    code: ViolationCode::PoolPriceDiverges,
                    message: format!(
                        "pool {}: its price of token {} in token {} is {bps} bps from the policy's prices, more than max_price_impact_bps {bound}: its shares are not valued by its balances",
                        fact.via, g.token, leg.token
                    ),
                    token: Some(fact.token),
                })
            })
    }

    /// The worth of `amount` of `token` by the policy's own prices only: its table, or a feed
    /// it names (ether is worth itself).
    fn own_price(&self, token: Address, amount: U256, path: &mut Path) -> Option<U256> {
        if token == ETH {
            return Some(amount);
        }
        if let Some(entry) = self.policy.prices.iter().find(|p| p.token == token) {
            return mul_div(amount, entry.value, entry.amount, false);
        }
        self.by_feeds(token, amount, false, path)
    }

    fn by_feeds(&self, token: Address, amount: U256, up: bool, path: &mut Path) -> Option<U256> {
        for feed in self
            .policy
            .price_oracles
            .iter()
            .filter(|o| o.token == token)
        {
            match sources::feed_rate(self.policy, feed, self.feeds, self.now) {
                Ok((per, worth)) => {
                    let part = mul_div(amount, worth, per, up)?;
                    if let Some(v) = self.value_at(feed.quote, part, up, path) {
                        return Some(v);
                    }
                }
                Err(p) => self.problem(p),
            }
        }
        None
    }

    fn by_sources(
        &self,
        token: Address,
        amount: U256,
        up: bool,
        path: &mut Path,
        kinds: &[PriceSource],
    ) -> Option<U256> {
        kinds.iter().find_map(|&kind| {
            self.facts
                .iter()
                .filter(|f| f.token == token && f.source == kind && !f.amount.is_zero())
                .filter(|f| self.trusted(f))
                .filter(|f| {
                    let diverges = sources::v3_divergence(self.policy, f, self.facts)
                        .or_else(|| self.share_divergence(f));
                    match diverges {
                        Some(p) => {
                            self.problem(p);
                            false
                        }
                        None => true,
                    }
                })
                .find_map(|f| {
                    f.worth.iter().try_fold(U256::ZERO, |sum, leg| {
                        let part = mul_div(amount, leg.amount, f.amount, up)?;
                        Some(sum.saturating_add(self.value_at(leg.token, part, up, path)?))
                    })
                })
        })
    }
}

/// The worth in wei of every amount in `outflows` together, rounded up, at the pre-execution
/// prices `report` read from the sources `policy` trusts, as value conservation takes them;
/// `None` when one of them cannot be priced. Pure: for displays and thresholds (the service's
/// human-approval threshold) that must value as the verifier does.
pub fn outflow_value(
    policy: &Policy,
    report: &SimulationReport,
    outflows: &[pace_types::TokenAmount],
) -> Option<U256> {
    let valuer = Valuer::for_report(policy, report);
    outflows.iter().try_fold(U256::ZERO, |sum, out| {
        Some(sum.saturating_add(valuer.value(out.token, out.amount, true)?))
    })
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
/// the decoded and the traced amount is added back. `trusted` says which adapter facts apply,
/// and `extra` is what else the account's holdings changed by (its V3 positions, in tokens).
pub(crate) fn deltas(
    report: &SimulationReport,
    policy: &Policy,
    account: Address,
    payments: Payments<'_>,
    trusted: &Trusted<'_>,
    extra: &[(Address, I256)],
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
                    sent: U256::ZERO,
                    short: U256::ZERO,
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
    // A trusted position manager's NFTs are valued as the positions they are (`extra`).
    for f in report
        .nft_flows
        .iter()
        .filter(|f| !trusted.is_manager(f.token))
    {
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
        // Credited with at most what the payees' balances gained.
        let received = report
            .payee_receipts
            .iter()
            .filter(|r| r.token == token)
            .fold(U256::ZERO, |sum, r| sum.saturating_add(r.amount));
        let sent = traced_paid.max(decoded);
        let paid = sent.min(received);
        // Without any logged movement of the token, its balance change is all there is.
        let wallet = match measured(token) {
            Some(m) if has_flows(token) => m.min(net),
            Some(m) => m,
            None => net,
        };
        let d = entry(&mut out, token);
        d.adjusted = wallet.saturating_add(signed(paid));
        d.sent = sent;
        d.short = sent - paid;
    }
    for c in &report.balance_changes {
        if logged.iter().all(|l| l.0 != c.token) && !trusted.is_manager(c.token) {
            entry(&mut out, c.token).adjusted = c.delta;
        }
    }
    for p in &report.positions {
        let d = entry(&mut out, p.token);
        d.adjusted = d.adjusted.saturating_add(p.delta);
    }
    // Liabilities are negative value: a debt token is minus its underlying.
    for debt in &trusted.debt_tokens {
        if let Some(i) = out.iter().position(|d| d.token == debt.token) {
            let owed = out.remove(i).adjusted;
            let d = entry(&mut out, debt.underlying);
            d.adjusted = d.adjusted.saturating_sub(owed);
        }
    }
    for debt in &trusted.lending_debts {
        let d = entry(&mut out, debt.token);
        d.adjusted = d
            .adjusted
            .saturating_sub(signed(debt.after))
            .saturating_add(signed(debt.before));
    }
    for &(token, delta) in extra {
        let d = entry(&mut out, token);
        d.adjusted = d.adjusted.saturating_add(delta);
    }
    for d in &mut out {
        if d.adjusted.is_negative() && d.adjusted.unsigned_abs() <= payments.dust {
            d.adjusted = I256::ZERO;
        }
        d.out = d.adjusted.min(I256::ZERO).unsigned_abs();
    }
    out
}

/// A payment that reached its payees short of what was sent (a token that takes a fee on
/// transfer) costs the account that shortfall. Within `max_bps` of the payment's own value it is
/// the payment's cost, as gas is, and is added back to `d`; beyond it, or unpriced, it stays
/// in the delta as the loss it is. Judged against the payment alone, so a payment never widens
/// the loss the rest of the delta may take.
fn payment_cost(d: &mut AssetDelta, valuer: &Valuer<'_>, max_bps: pace_types::Bps, dust: U256) {
    if d.short.is_zero() {
        return;
    }
    let (Some(cost), Some(payment)) = (
        valuer.value(d.token, d.short, true),
        valuer.value(d.token, d.sent, false),
    ) else {
        return;
    };
    let allowed = payment.saturating_mul(U256::from(max_bps)) / U256::from(pace_types::BPS_SCALE);
    if cost <= allowed {
        d.adjusted = d.adjusted.saturating_add(signed(d.short));
        if d.adjusted.is_negative() && d.adjusted.unsigned_abs() <= dust {
            d.adjusted = I256::ZERO;
        }
        d.out = d.adjusted.min(I256::ZERO).unsigned_abs();
        d.short = U256::ZERO;
    }
}

/// What of `token` left `account` gross in `report` (logged outflows to others than payees),
/// capped at its balance before the calls: the notional's part of an asset that a round trip
/// brought back.
fn moved(report: &SimulationReport, policy: &Policy, account: Address, token: Address) -> U256 {
    let held = report
        .balances_read
        .iter()
        .find(|b| b.token == token)
        .map_or(U256::ZERO, |b| b.amount);
    let gross = report
        .token_flows
        .iter()
        .filter(|f| {
            f.token == token
                && f.from == account
                && f.to != account
                && !policy.allowed_recipients.contains(&f.to)
        })
        .fold(U256::ZERO, |sum, f| sum.saturating_add(f.amount));
    gross.min(held)
}

/// Values the account's delta; see the module docs and [`deltas`].
pub(crate) fn conservation(
    report: &SimulationReport,
    policy: &Policy,
    account: Address,
    payments: Payments<'_>,
) -> Conservation {
    let valuer = Valuer::for_report(policy, report);
    let trusted = Trusted::of(report, policy);
    let mut problems = Vec::new();
    if trusted.oversized || report.protocols.feeds.len() > crate::MAX_REPORT_LIST_LEN {
        // Nothing of it is read: the valuation is refused outright.
        return Conservation {
            unpriced: Vec::new(),
            notional: U256::ZERO,
            loss: U256::ZERO,
            unpaid_loss: U256::ZERO,
            unpaid: Vec::new(),
            problems: vec![Problem {
                code: ViolationCode::PositionUnreadable,
                message: format!(
                    "the report carries more protocol facts than the {} the verifier reads",
                    crate::MAX_REPORT_LIST_LEN
                ),
                token: None,
            }],
        };
    }
    for gap in &trusted.gaps {
        problems.push(Problem {
            code: ViolationCode::PositionUnreadable,
            message: format!("{} could not be read: {}", gap.via, gap.what),
            token: None,
        });
    }
    problems.extend(sources::scale_mismatches(policy, &report.protocols.feeds));
    let (positions, position_unpriced) = v3::position_deltas(&trusted.positions, &valuer);
    let extra: Vec<(Address, I256)> = positions.iter().flat_map(|p| p.legs).collect();
    let mut result = Conservation {
        unpriced: position_unpriced,
        notional: U256::ZERO,
        loss: U256::ZERO,
        unpaid_loss: U256::ZERO,
        unpaid: Vec::new(),
        problems: Vec::new(),
    };
    let (mut gains, mut losses) = (U256::ZERO, U256::ZERO);
    for mut d in deltas(report, policy, account, payments, &trusted, &extra) {
        payment_cost(&mut d, &valuer, policy.loss_bound_bps(), payments.dust);
        if d.adjusted.is_zero() && d.out.is_zero() {
            continue;
        }
        let magnitude = d.adjusted.unsigned_abs();
        let change = valuer.value(d.token, magnitude, d.adjusted.is_negative());
        let notional = valuer.value(
            d.token,
            d.out.max(moved(report, policy, account, d.token)),
            false,
        );
        match (change, notional) {
            (Some(change), Some(notional)) => {
                if d.adjusted.is_negative() {
                    losses = losses.saturating_add(change);
                } else {
                    gains = gains.saturating_add(change);
                }
                result.notional = result.notional.saturating_add(notional);
            }
            _ if !result.unpriced.contains(&d.token) => result.unpriced.push(d.token),
            _ => {}
        }
    }
    result.loss = losses.saturating_sub(gains);
    // The movements are valued apart: a source refused there carries nothing, and is not a
    // problem of the delta.
    let movements = Valuer::for_report(policy, report);
    let paid = paid::paid(
        &paid::Inputs {
            report,
            policy,
            account,
            trusted: &trusted,
            positions: &positions,
        },
        &movements,
    );
    result.unpaid_loss = losses.saturating_sub(gains.saturating_sub(paid.uncredited()));
    result.unpaid = paid.unpaid;
    problems.extend(valuer.problems());
    // An asset a trusted source refused to price is refused for that reason.
    result
        .unpriced
        .retain(|t| !problems.iter().any(|p| p.token == Some(*t)));
    result.problems = problems;
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

    proptest::proptest! {
        /// Every path of `mul_div` (128-bit, 256-bit, 512-bit) is the exact quotient.
        #[test]
        fn mul_div_is_the_exact_quotient(
            a in proptest::prelude::any::<[u64; 4]>(),
            b in proptest::prelude::any::<[u64; 4]>(),
            c in proptest::prelude::any::<[u64; 4]>(),
            widths in proptest::prelude::any::<(u8, u8, u8)>(),
            up: bool,
        ) {
            // Narrow each operand to a random number of limbs, so every path is taken.
            let narrow = |x: [u64; 4], w: u8| {
                let keep = usize::from(w % 5);
                let mut limbs = [0u64; 4];
                limbs[..keep].copy_from_slice(&x[..keep]);
                U256::from_limbs(limbs)
            };
            let (a, b, c) = (narrow(a, widths.0), narrow(b, widths.1), narrow(c, widths.2));
            let expected = (!c.is_zero()).then(|| {
                let (a, b, c) = (U512::from(a), U512::from(b), U512::from(c));
                let q = if up { (a * b).div_ceil(c) } else { a * b / c };
                U256::saturating_from(q)
            });
            proptest::prop_assert_eq!(mul_div(a, b, c, up), expected);
        }
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
    fn outflows_are_valued_together_and_one_unpriced_leaves_none() {
        let policy = Policy {
            prices: vec![TablePrice {
                token: addr(1),
                amount: U256::from(3u8),
                value: U256::from(2u8),
            }],
            ..Policy::default()
        };
        let r = report();
        let out = |token: u8, amount: u64| TokenAmount {
            token: addr(token),
            amount: U256::from(amount),
        };
        // 10 of token 1 at 2/3 wei each, rounded up (7), and 5 wei.
        let eth = TokenAmount {
            token: ETH,
            amount: U256::from(5u8),
        };
        assert_eq!(
            outflow_value(&policy, &r, &[out(1, 10), eth]),
            Some(U256::from(12u8))
        );
        assert_eq!(outflow_value(&policy, &r, &[out(1, 10), out(2, 1)]), None);
        assert_eq!(outflow_value(&policy, &r, &[]), Some(U256::ZERO));
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
        r.payee_receipts = vec![TokenAmount {
            token: addr(1),
            amount: U256::from(20u8),
        }];
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

    #[test]
    fn a_payment_short_by_the_tokens_own_fee_costs_nothing_within_the_bound() {
        // 10,000 units sent to the payee; it receives 9,900 (a 1 % fee the token burns).
        let (account, payee) = (addr(0xaa), addr(0xbb));
        let policy = |max_loss_bps: u32| Policy {
            prices: vec![TablePrice {
                token: addr(1),
                amount: U256::from(1u8),
                value: U256::from(1u8),
            }],
            allowed_recipients: vec![payee],
            max_loss_bps: Some(max_loss_bps),
            ..Policy::default()
        };
        let mut r = report();
        let flow = |to: Address, amount: u64| TokenFlow {
            token: addr(1),
            from: account,
            to,
            amount: U256::from(amount),
        };
        r.token_flows = vec![flow(payee, 9_900), flow(Address::ZERO, 100)];
        r.balance_changes = vec![BalanceChange {
            token: addr(1),
            delta: I256::try_from(-10_000i64).unwrap(),
        }];
        r.payee_receipts = vec![TokenAmount {
            token: addr(1),
            amount: U256::from(9_900u64),
        }];
        let decoded = [(addr(1), U256::from(10_000u64))];
        let paid = Payments {
            decoded: &decoded,
            dust: U256::ZERO,
        };
        // Within 2 % of the payment: its cost, no loss.
        let c = conservation(&r, &policy(200), account, paid);
        assert_eq!((c.loss, c.notional), (U256::ZERO, U256::ZERO));
        // Above 0.5 % of the payment: the whole shortfall is the loss it is.
        let c = conservation(&r, &policy(50), account, paid);
        assert_eq!((c.loss, c.notional), (U256::from(100u8), U256::from(100u8)));
        // A token delivering half of the payment is a loss under any ordinary bound.
        r.payee_receipts[0].amount = U256::from(5_000u64);
        let c = conservation(&r, &policy(200), account, paid);
        assert_eq!(c.loss, U256::from(5_000u64));
    }
}
