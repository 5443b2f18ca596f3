//! Check 16's part for the health factor of every lending position the protocol adapters read
//! (the report's `lending`), and of generic positions the report's own health factor does not
//! cover.
//!
//! With `min_health_factor_bps` set, for each market:
//!
//! - a health factor after the calls below the minimum is `HEALTH_FACTOR_TOO_LOW`, unless
//!   the calls only improved the position (nothing lowered it and the health factor rose): a
//!   repayment or a supply that leaves a position still under the minimum is allowed, since
//!   refusing it would keep the position worse;
//!   A health factor a protocol descriptor's model computed is judged as it can land
//!   ([`landed_floor`]: its reads kept within the policy's tolerance), not as simulated;
//! - a health factor after the calls that cannot be read is `HEALTH_FACTOR_UNREADABLE` when
//!   the calls moved the position in a way that can lower it (collateral out, debt in, a
//!   market left, or a direction the simulator could not establish). A supply or a repayment
//!   never needs it;
//! - a generic position (the report's `positions`) that fell, in a market no lending fact
//!   covers, while the report has no health factor after the calls, is
//!   `HEALTH_FACTOR_UNREADABLE` too;
//! - except where every position that fell at the market is a holding a protocol descriptor
//!   the policy pins declares to secure no debt (`secures_debt: false`: an internal balance, a
//!   stake): its fall lowers no health factor, as the user who pinned the descriptor trusts.
//!
//! A holding a protocol descriptor reads (an internal balance, a collateral) is counted in the
//! account's value, but not by its spend caps, budgets and bounds, which count balances: one
//! that fell while its market paid value to someone other than the account is
//! `POSITION_UNREADABLE`, whatever `min_health_factor_bps` says, as for a ledger nothing reads
//! ([`holdings`]). Withdrawn to the account, it arrives where those count it.
//!
//! And for positions nothing reads ([`unread`]: the report's `unread_positions`, slots keyed by
//! the account in a contract that paid value out, that no view of the contract explains), in a
//! contract no adapter reads and the policy does not name in `unread_position_targets`, unless
//! the account redeemed in the same calls a claim the contract's views read, worth at the
//! trusted prices what the contract paid (the contract is then no unpaid counterparty of value
//! conservation):
//!
//! - a slot that grew is debt nothing measures: `DEBT_UNREADABLE`, whatever
//!   `min_health_factor_bps` says (value conservation would see the borrowed funds as a gift);
//! - a slot that fell while the contract paid someone other than the account is the account's
//!   value in a ledger no balance measures (an internal balance, a deposit) paid to another,
//!   uncounted by spend caps, budgets and bounds: `POSITION_UNREADABLE`, whatever
//!   `min_health_factor_bps` says;
//! - with `min_health_factor_bps` set, a slot that fell is collateral that left a position
//!   whose health factor cannot be read: `HEALTH_FACTOR_UNREADABLE`.
//!
//! A contract that paid no value out (it took a deposit, issued shares, or moved nothing) and
//! changed such a slot kept a record under the account (a mask of agents named by index, a
//! commitment to a hash): what it authorises, and for whom, cannot be read. A record that fell
//! is reported even when it names only parties the policy knows: the account's claim in a
//! ledger nothing reads (a vault's internal balance) left it. `OPAQUE_AUTHORIZATION`, unless the rights check judges a right the contract recorded in that
//! slot (or in pieces across its slots) or the policy names it in `opaque_key_targets`. A
//! right it allows in one slot explains no other.

use super::{Ctx, Out, push};
use alloy_primitives::{Address, I256, U256};
use pace_types::{
    LendingProtocol, Policy, PositionChange, RightKind, SimulationReport, ViolationCode as Code,
    descriptor::{PositionKind, PositionView},
};

/// The position views of the protocol descriptors `policy` pins that read `p`: of its token, at
/// a root at its market.
fn views_of<'p>(policy: &'p Policy, p: &PositionChange) -> impl Iterator<Item = &'p PositionView> {
    let (market, token) = (p.market, p.token);
    policy.descriptors().flat_map(move |d| {
        d.positions.iter().filter(move |v| {
            v.token == token && d.root(&v.root).is_some_and(|r| r.address == market)
        })
    })
}

/// Whether every position of the report that fell at `market` (at least one) is a holding
/// that a protocol descriptor the policy pins declares to secure no debt, and no view of it
/// there says otherwise: its fall lowers no health factor.
fn secures_no_debt(policy: &Policy, report: &SimulationReport, market: Address) -> bool {
    let free = |p: &PositionChange| {
        views_of(policy, p).next().is_some()
            && views_of(policy, p).all(|v| v.kind == PositionKind::Asset && !v.secures_debt)
    };
    let mut fell = report
        .positions
        .iter()
        .filter(|p| p.market == market && p.delta.is_negative())
        .peekable();
    fell.peek().is_some() && fell.all(free)
}

fn protocol(p: LendingProtocol) -> &'static str {
    match p {
        LendingProtocol::AaveV3 => "Aave V3 market",
        LendingProtocol::Compound => "Compound-style market",
        LendingProtocol::Generic => "lending market",
        LendingProtocol::Descriptor => "lending market (by descriptor)",
    }
}

/// The lowest health factor a PDR can land with, in bps, when a descriptor's model computed
/// `health` from reads the signer keeps within `tolerance_bps` (collateral and price at least
/// the simulated less the tolerance, debt at most the simulated plus it):
/// `health × (1 - t)² / (1 + t)`, rounded down. The judged figure, so the minimum holds
/// on-chain and not only in the simulation.
pub(crate) fn landed_floor(health: u32, tolerance_bps: u32) -> u32 {
    if health == u32::MAX {
        return health;
    }
    let scale = u128::from(pace_types::BPS_SCALE);
    let t = u128::from(tolerance_bps.min(pace_types::BPS_SCALE));
    let keep = scale - t;
    let floor = u128::from(health) * keep * keep / (scale * (scale + t));
    u32::try_from(floor).unwrap_or(u32::MAX)
}

/// Check 16's part for the adapters' positions; see the module docs.
pub(crate) fn health(ctx: &Ctx<'_>, out: &mut Out) {
    let (Some(min), Some(r)) = (ctx.policy.min_health_factor_bps, ctx.report) else {
        return;
    };
    for f in &r.lending {
        // A market the simulator saw a position fall at, where nothing that fell secures a
        // debt.
        if f.protocol == LendingProtocol::Generic && secures_no_debt(ctx.policy, r, f.market) {
            continue;
        }
        let at = format!("the {} {}", protocol(f.protocol), f.market);
        let landed = match f.protocol {
            LendingProtocol::Descriptor => f
                .after
                .health_factor_bps
                .map(|h| landed_floor(h, ctx.policy.outcome_tolerance_bps)),
            _ => f.after.health_factor_bps,
        };
        match landed {
            Some(after) if after < min => {
                let improved = !f.lowers
                    && f.before
                        .health_factor_bps
                        .zip(f.after.health_factor_bps)
                        .is_some_and(|(b, a)| a > b);
                if !improved {
                    push(
                        out,
                        Code::HealthFactorTooLow,
                        format!(
                            "health factor after execution {after} bps at {at} is below min_health_factor_bps {min}"
                        ),
                    );
                }
            }
            Some(_) => {}
            None if f.lowers => push(
                out,
                Code::HealthFactorUnreadable,
                format!(
                    "the calls can lower the position at {at} (collateral out or debt in), and its health factor after them cannot be read"
                ),
            ),
            None => {}
        }
    }
    if r.health_factor_after_bps.is_some() {
        return;
    }
    let mut judged = Vec::new();
    for p in r.positions.iter().filter(|p| p.delta.is_negative()) {
        if judged.contains(&p.market)
            || r.lending.iter().any(|f| f.market == p.market)
            || secures_no_debt(ctx.policy, r, p.market)
        {
            continue;
        }
        judged.push(p.market);
        push(
            out,
            Code::HealthFactorUnreadable,
            format!(
                "the position at the lending market {} falls (collateral out or debt in), and its health factor after the calls cannot be read",
                p.market
            ),
        );
    }
}

/// Check 16's part for the holdings protocol descriptors read; see the module docs.
pub(crate) fn holdings(ctx: &Ctx<'_>, out: &mut Out) {
    let Some(r) = ctx.report else {
        return;
    };
    let held = |p: &PositionChange| views_of(ctx.policy, p).any(|v| v.kind == PositionKind::Asset);
    let mut judged: Vec<Address> = Vec::new();
    for p in r
        .positions
        .iter()
        .filter(|p| p.delta.is_negative() && held(p))
    {
        if judged.contains(&p.market) {
            continue;
        }
        judged.push(p.market);
        let Some(to) = paid_elsewhere(r, p.market, ctx.intent.account) else {
            continue;
        };
        // Paid to the policy's payees only: a payment, which the spend caps count as the
        // holding's fall (check 5). Not where a budget charges the token: the account's
        // budgets charge its balances, and the holding is none.
        let budgeted =
            |t: Address| ctx.policy.budget(t).is_some() || r.budgets.iter().any(|b| b.token == t);
        let payees_only = r
            .token_flows
            .iter()
            .filter(|f| f.from == p.market && f.to != ctx.intent.account && !f.amount.is_zero())
            .all(|f| ctx.policy.allowed_recipients.contains(&f.to));
        let fallen = r
            .positions
            .iter()
            .filter(|q| q.market == p.market && q.delta.is_negative() && held(q));
        if payees_only && !fallen.clone().any(|q| budgeted(q.token)) {
            continue;
        }
        push(
            out,
            Code::PositionUnreadable,
            format!(
                "{} paid value to {to} while the account's holding of {} there fell: the account's value left a ledger its budgets and bounds do not measure (they count balances) to {}",
                p.market,
                p.token,
                if payees_only {
                    "a payee, past a budget on the token"
                } else {
                    "another than its payees"
                }
            ),
        );
    }
}

/// The fall of the account's holdings of `token` that pinned descriptors read, less what those
/// holdings' markets paid the account itself of `token` in the same calls (at most its balance's
/// gain): what left those holdings for elsewhere (an internal balance paid to a payee), which
/// the spend caps count as an outflow. A gain bought elsewhere (ether wrapped) offsets nothing.
pub(crate) fn holdings_out(
    policy: &Policy,
    r: &SimulationReport,
    account: Address,
    token: Address,
) -> U256 {
    let held: Vec<&PositionChange> = r
        .positions
        .iter()
        .filter(|p| p.token == token)
        .filter(|p| views_of(policy, p).any(|v| v.kind == PositionKind::Asset))
        .collect();
    let fell: U256 = held
        .iter()
        .fold(I256::ZERO, |sum, p| sum.saturating_add(p.delta))
        .min(I256::ZERO)
        .unsigned_abs();
    // Only what those markets paid the account itself came back: a gain of the token bought
    // elsewhere (ether wrapped, a swap) does not offset a payout.
    let withdrawn = r
        .token_flows
        .iter()
        .filter(|f| f.token == token && f.to == account && held.iter().any(|p| p.market == f.from))
        .map(|f| f.amount)
        .fold(U256::ZERO, U256::saturating_add);
    let gained = r
        .balance_changes
        .iter()
        .filter(|c| c.token == token && c.delta.is_positive())
        .map(|c| c.delta.unsigned_abs())
        .fold(U256::ZERO, U256::saturating_add);
    fell.saturating_sub(withdrawn.min(gained))
}

/// Check 16's part for the positions nothing reads; see the module docs.
pub(crate) fn unread(ctx: &Ctx<'_>, out: &mut Out) {
    let Some(r) = ctx.report else {
        return;
    };
    let mut judged: Vec<Address> = Vec::new();
    let mut unpaid: Option<Vec<Address>> = None;
    for u in &r.unread_positions {
        let c = u.contract;
        // A redemption covers what the contract paid only as far as the claim redeemed is
        // worth: a payment beyond it is not paid for. A contract that paid nothing out covers
        // nothing by one: a token that moved the account's balance and kept a record beside it
        // is judged on the record.
        let redeemed = u.redeemed
            && !u.silent
            && !unpaid
                .get_or_insert_with(|| super::conservation::unpaid_counterparties(ctx, r))
                .contains(&c);
        if judged.contains(&c)
            || redeemed
            || r.adapter_reads(c)
            || ctx.policy.unread_position_targets.contains(&c)
        {
            continue;
        }
        let slots = r.unread_positions.iter().filter(|p| p.contract == c);
        if u.silent {
            // No value paid out: a record, not a debt. Judged here unless it is the slot of a
            // right the rights check judges, or one of the slots of a right recorded in pieces
            // across them (a right allowed in one slot explains no other).
            judged.push(c);
            let unjudged = slots.clone().find(|p| {
                p.silent
                    && !r.rights.iter().any(|f| {
                        f.contract == c
                            && match f.slot {
                                Some(s) => s == p.slot,
                                // An address written in pieces: the slots holding them.
                                None if f.kind == RightKind::RecordedAddress => {
                                    holds_piece(p.after, f.holder)
                                }
                                // A right the adapters read (a Permit2 allowance): its own.
                                None => true,
                            }
                    })
            });
            if let Some(p) = unjudged
                && !ctx.policy.opaque_key_targets.contains(&c)
            {
                push(
                    out,
                    Code::OpaqueAuthorization,
                    format!(
                        "{c} paid no value out and recorded something under a key that names the account ({}), which none of its balance, allowance, operator or item views explains: what it authorises, and for whom, cannot be read (a mask of agents, a commitment to a hash); name the contract in opaque_key_targets only once you have read what its records authorise",
                        p.slot
                    ),
                );
            }
        } else if slots.clone().any(|p| p.grew()) {
            judged.push(c);
            push(
                out,
                Code::DebtUnreadable,
                format!(
                    "{c} paid value out while a slot it keys by the account grew ({}), and nothing reads that position: debt taken on that no adapter or view measures; name the contract in unread_position_targets only if you have read what it records",
                    u.slot
                ),
            );
        } else if let Some((fallen, to)) =
            slots
                .clone()
                .find(|p| p.fell())
                .zip(paid_elsewhere(r, c, ctx.intent.account))
        {
            judged.push(c);
            push(
                out,
                Code::PositionUnreadable,
                format!(
                    "{c} paid value to {to} while a record it keeps under the account fell ({}): the account's value in a ledger no balance measures (an internal balance, a deposit) left it to another, uncounted by its spend caps and bounds; name the contract in unread_position_targets only if you have read what it records",
                    fallen.slot
                ),
            );
        } else if let Some(min) = ctx.policy.min_health_factor_bps {
            judged.push(c);
            push(
                out,
                Code::HealthFactorUnreadable,
                format!(
                    "{c} paid value out while a slot it keys by the account fell ({}): collateral may have left a position whose health factor nothing reads, against min_health_factor_bps {min}",
                    u.slot
                ),
            );
        }
    }
}

/// How many bytes of an address a piece of it written in a slot holds at least (the
/// simulator's fragments of an address written across slots).
const PIECE: usize = 4;

/// Whether `value` holds a piece of `holder`'s address: one of the slots a right written in
/// pieces across a contract's slots is written in. The contract's other records are its own.
fn holds_piece(value: alloy_primitives::U256, holder: Address) -> bool {
    let bytes = value.to_be_bytes::<32>();
    holder
        .as_slice()
        .windows(PIECE)
        .any(|piece| bytes.windows(PIECE).any(|w| w == piece))
}

/// Someone other than `account` whom `contract` paid value in the execution (a token or
/// ether movement out of it).
fn paid_elsewhere(
    r: &pace_types::SimulationReport,
    contract: Address,
    account: Address,
) -> Option<Address> {
    r.token_flows
        .iter()
        .find(|f| f.from == contract && f.to != account && !f.amount.is_zero())
        .map(|f| f.to)
}

#[cfg(test)]
mod tests {
    use super::landed_floor;

    #[test]
    fn a_modelled_health_is_judged_as_it_can_land() {
        // 3.2 with 0.5 %: collateral and price 0.5 % lower, debt 0.5 % higher.
        assert_eq!(landed_floor(32_000, 50), 31_523);
        assert_eq!(landed_floor(12_000, 0), 12_000);
        assert_eq!(landed_floor(u32::MAX, 50), u32::MAX);
        assert_eq!(landed_floor(u32::MAX - 1, 10_000), 0);
        assert!(landed_floor(12_000, 50) < 12_000);
    }
}
