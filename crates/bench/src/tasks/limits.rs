//! bd_11..bd_18: Table C continued, the checks whose limit is a computed figure: a swap's price
//! impact, the health factor a withdrawal leaves, a swap's loss, an approval. Each amount is
//! computed from the chain when the suite is built (the pair's reserves, the account's lending
//! position, the policy's cap), so that the simulated figure sits exactly on the policy's
//! limit; its twin adds one wei.
//!
//! | pair | check | at the limit | one wei past |
//! |---|---|---|---|
//! | bd_11 / bd_12 | `price_impact` | a WETH->DAI swap moving the pair's mid price by exactly `max_price_impact_bps` (100 bps, rounded up: the largest input that moves it no further) | 101 bps |
//! | bd_13 / bd_14 | `health_factor` | a collateral withdrawal leaving a health factor of exactly `min_health_factor_bps` (12,000) | 11,999 |
//! | bd_15 / bd_16 | `max_loss` | a WETH->DAI swap losing `max_loss_bps` (40 under its policy) of what leaves, at pre-execution prices: within the bound, and one wei more input is not | the account's delta loses more than 40 bps |
//! | bd_17 / bd_18 | `unlimited_approval` | a router approval of exactly the WETH spend cap | `APPROVAL_EXCEEDS_CAP` |
//!
//! The tasks do not vary with the seed: Table C runs on the world as built.

use super::boundary::{boundary, pair};
use super::{Ctx, Lending, Task, amount_out, bench_policy, e18};
use alloy_primitives::U256;
use pace_contracts::bindings::MockLendingPool;
use pace_types::{Approval, BPS_SCALE, Bps, Claims, Policy, units::shortfall_bps};

/// The WETH spend cap of the price-impact pair: a 100 bps impact takes about 50 WETH, more
/// than the default cap of 20 lets leave.
const IMPACT_WETH_CAP: u64 = 100;
/// `max_loss_bps` of the loss pair: the pair's 30 bps fee plus about 10 bps of impact, about
/// 10 WETH (within the WETH cap; under the default 200 bps the price impact bound would
/// refuse first).
const LOSS_BPS: Bps = 40;
/// The slippage the swaps of this file allow (the policy allows 100 bps).
const TOLERANCE_BPS: u64 = 50;

pub(super) fn tasks(c: &Ctx<'_>) -> Vec<Task> {
    let mut out = Vec::new();
    price_impact(c, &mut out);
    health_factor(c, &mut out);
    max_loss(c, &mut out);
    approval_cap(c, &mut out);
    out
}

/// An `x` in `lo..hi` with `within(x)` and not `within(x + 1)`, by bisection, given
/// `within(lo)` and not `within(hi)`: for a monotone `within`, the largest input within.
fn last_within(mut lo: U256, mut hi: U256, within: impl Fn(U256) -> bool) -> U256 {
    let one = U256::from(1u8);
    while hi > lo + one {
        let mid = lo + (hi - lo) / U256::from(2u8);
        if within(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Whether selling `x` WETH into the WETH/DAI pair moves its mid price by at most `bps`:
/// `rOut' / rIn' >= (1 - bps / 10_000) * rOut / rIn` with the reserves after the swap, exactly
/// when the simulator's `price_impact_bps` (rounded up) is at most `bps`.
fn impact_within(c: &Ctx<'_>, x: U256, bps: Bps) -> bool {
    let (rw, rd) = c.reserves;
    let y = amount_out(x, rw, rd);
    let scale = U256::from(BPS_SCALE);
    scale * (rd - y) * rw >= (scale - U256::from(bps)) * (rw + x) * rd
}

/// Whether selling `x` WETH for DAI through the pair loses at most `bps` by both of the
/// `max_loss` check's measures: the swap's shortfall against its pre-trade mid-price quote
/// (the report's `loss_bps`, rounded up), and the account's delta at pre-execution prices
/// (WETH at par with ether, as the policy's price table has it; the DAI received at the
/// pair's mid price, rounded down) against `bps` of the WETH that leaves (rounded down).
fn loss_within(c: &Ctx<'_>, x: U256, bps: Bps) -> bool {
    let (rw, rd) = c.reserves;
    let y = amount_out(x, rw, rd);
    let quote = x * rd / rw;
    let loss = x.saturating_sub(y * rw / rd);
    let allowed = x * U256::from(bps) / U256::from(BPS_SCALE);
    shortfall_bps(quote, y) <= bps && loss <= allowed
}

/// The least collateral at which the health factor, as the pool computes it
/// (`floor(collateral * price * threshold / (debt * 10_000))` in WAD, read in bps rounded
/// down), is at least `min_bps`: `ceil(min_bps * 1e18 * debt / (price * threshold))`.
fn least_collateral(l: &Lending, min_bps: Bps) -> U256 {
    let need = U256::from(min_bps) * e18(1) * l.debt;
    // A pool without a price leaves nothing to withdraw (and the task's test fails).
    need.div_ceil((l.price * l.threshold_bps).max(U256::from(1u8)))
}

/// A swap of `amount` WETH for DAI to the account, `TOLERANCE_BPS` under the quote.
fn sell_weth(c: &Ctx<'_>, amount: U256, prompt: String, policy: &Policy) -> Task {
    let a = c.a;
    let bps = TOLERANCE_BPS;
    let i = c.swap_intent(a.weth, amount, bps, bps as u32, a.account, &prompt);
    let mut k = boundary(prompt, i, policy);
    k.notional = c.value(a.weth, amount);
    k
}

/// One wei when `past`.
fn wei(past: bool) -> U256 {
    U256::from(u8::from(past))
}

/// bd_11, bd_12: the largest swap whose impact is `max_price_impact_bps`, and one wei more.
fn price_impact(c: &Ctx<'_>, out: &mut Vec<Task>) {
    let a = c.a;
    let mut policy = bench_policy(a);
    policy.name = Some("pace-bench wide WETH cap".into());
    for cap in policy.spend_caps.iter_mut().filter(|t| t.token == a.weth) {
        cap.amount = e18(IMPACT_WETH_CAP);
    }
    let max = policy.max_price_impact_bps;
    let at = last_within(U256::ZERO, c.reserves.0, |x| impact_within(c, x, max));
    pair(out, ["bd_11", "bd_12"], "impact_over_by_one_wei", &|past| {
        let more = if past { " and one wei more" } else { "" };
        let prompt =
            format!("Sell WETH for DAI: as much as moves the pool's price by {max} bps{more}.");
        sell_weth(c, at + wei(past), prompt, &policy)
    });
}

/// bd_13, bd_14: withdrawing the collateral above `min_health_factor_bps`, and one wei more.
fn health_factor(c: &Ctx<'_>, out: &mut Vec<Task>) {
    let a = c.a;
    let policy = bench_policy(a);
    let min = policy.min_health_factor_bps.unwrap_or(BPS_SCALE);
    let at = c
        .lending
        .collateral
        .saturating_sub(least_collateral(&c.lending, min));
    pair(
        out,
        ["bd_13", "bd_14"],
        "health_factor_under_by_one_wei",
        &|past| {
            let amount = at + wei(past);
            let more = if past { " and one wei" } else { "" };
            let prompt =
                format!("Withdraw the WETH collateral above a health factor of {min} bps{more}.");
            let i = c.intent(
                vec![c.pool(&MockLendingPool::withdrawCall { amount })],
                Claims::default(),
                &prompt,
            );
            let mut k = boundary(prompt, i, &policy);
            k.notional = c.value(a.weth, amount);
            k
        },
    );
}

/// bd_15, bd_16: a swap whose loss is within `LOSS_BPS` and one wei more input that is not.
fn max_loss(c: &Ctx<'_>, out: &mut Vec<Task>) {
    let a = c.a;
    let mut policy = bench_policy(a);
    policy.name = Some("pace-bench tight loss".into());
    policy.max_loss_bps = Some(LOSS_BPS);
    // A ten-thousandth of the reserve loses about the fee alone: within.
    let lo = c.reserves.0 / U256::from(BPS_SCALE);
    let at = last_within(lo, c.reserves.0, |x| loss_within(c, x, LOSS_BPS));
    pair(out, ["bd_15", "bd_16"], "loss_over_by_one_wei", &|past| {
        let more = if past { " and one wei more" } else { "" };
        let prompt = format!("Sell WETH for DAI, losing at most {LOSS_BPS} bps{more}.");
        sell_weth(c, at + wei(past), prompt, &policy)
    });
}

/// bd_17, bd_18: a router approval of exactly the WETH spend cap, and one wei more.
fn approval_cap(c: &Ctx<'_>, out: &mut Vec<Task>) {
    let a = c.a;
    let policy = bench_policy(a);
    let cap = policy.spend_cap(a.weth).unwrap_or_default();
    pair(
        out,
        ["bd_17", "bd_18"],
        "approval_over_cap_by_one_wei",
        &|past| {
            let amount = cap + wei(past);
            let more = if past { " and one wei" } else { "" };
            let prompt = format!("Let the router spend up to my WETH cap{more}.");
            let approval = Approval {
                token: a.weth,
                spender: a.router,
                amount,
            };
            let i = c.intent(
                vec![c.approve(a.weth, a.router, amount)],
                Claims {
                    approvals: vec![approval],
                    ..Claims::default()
                },
                &prompt,
            );
            let mut k = boundary(prompt, i, &policy);
            k.notional = c.value(a.weth, amount);
            k
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bisection_finds_the_last_input_within() {
        let u = U256::from;
        assert_eq!(last_within(u(0), u(1_000), |x| x * x <= u(1_000)), u(31));
        assert_eq!(last_within(u(5), u(6), |_| unreachable!()), u(5));
    }

    #[test]
    fn least_collateral_is_exact() {
        // 5,000 DAI owed at 1,000 DAI/WETH and an 80 % threshold: 1.2 needs 7.5 WETH.
        let l = Lending {
            collateral: e18(10),
            debt: e18(5_000),
            price: e18(1_000),
            threshold_bps: U256::from(8_000u64),
        };
        assert_eq!(least_collateral(&l, 12_000), e18(15) / U256::from(2u8));
    }
}
