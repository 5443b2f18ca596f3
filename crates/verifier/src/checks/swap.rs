//! Swap checks: slippage tolerance, price impact (a separate bound) and the output recipient.
//!
//! A slippage bound is a minimum output computed from an already impact-adjusted quote: it
//! limits price movement between simulation and execution, not the order's own impact on
//! the pool. Price impact is therefore bounded on its own.

#[cfg(test)]
mod facts_tests;

use super::{Ctx, Out, push};
use crate::decode::{DecodedCall, MinimumRole, RecipientRole, Swap, SwapKind};
use alloy_primitives::U256;
use pace_types::{
    BPS_SCALE, Bps, ETH, SimulationReport, SwapFacts, ViolationCode as Code,
    units::{max_in_tolerance_bps, min_out_tolerance_bps, shortfall_bps},
};

/// The report's swap facts for the `nth` decoded swap of the intent (0-based), call `call`, if
/// they describe it: the report's `swap` for the first, the `later_swaps` entry of its own
/// call for a later one (measured around that call: a tiny first swap never vouches for a large
/// second one).
fn facts_for_nth<'a>(
    nth: usize,
    call: usize,
    swap: &Swap,
    report: Option<&'a SimulationReport>,
) -> Option<&'a SwapFacts> {
    let facts = if nth == 0 {
        report?.swap.as_ref()?
    } else {
        &report?.later_swaps.iter().find(|l| l.call == call)?.facts
    };
    describes(facts, swap).then_some(facts)
}

/// Why a swap has no facts, for the messages.
fn no_facts(nth: usize) -> &'static str {
    if nth == 0 {
        "the report has no facts for this swap"
    } else {
        "the report has no facts for this later swap"
    }
}

/// The report's first swap's facts, if they describe `swap` (same input and output tokens).
#[cfg(test)]
pub(crate) fn facts_for<'a>(
    swap: &Swap,
    report: Option<&'a SimulationReport>,
) -> Option<&'a SwapFacts> {
    let facts = report?.swap.as_ref()?;
    describes(facts, swap).then_some(facts)
}

/// Whether `facts` describe `swap` (same input and output tokens).
fn describes(facts: &SwapFacts, swap: &Swap) -> bool {
    let token_in = facts.token_in == swap.token_in() || (swap.eth_in && facts.token_in == ETH);
    let token_out = facts.token_out == swap.token_out() || (swap.eth_out && facts.token_out == ETH);
    token_in && token_out
}

/// Every swap facts of the report: the first swap's and the later ones'.
fn all_facts(report: Option<&SimulationReport>) -> impl Iterator<Item = &SwapFacts> {
    report
        .into_iter()
        .flat_map(|r| r.swap.iter().chain(r.later_swaps.iter().map(|l| &l.facts)))
}

/// The slippage tolerance the calldata leaves open, measured against the simulated trade
/// (rounded down; see [`min_out_tolerance_bps`]).
fn derived_slippage(swap: &Swap, facts: Option<&SwapFacts>) -> Option<Bps> {
    match swap.kind {
        SwapKind::ExactIn { min_out, .. } if min_out.is_zero() => Some(BPS_SCALE),
        SwapKind::ExactIn { min_out, .. } => {
            facts.map(|f| min_out_tolerance_bps(f.amount_out, min_out))
        }
        SwapKind::ExactOut { max_in, .. } => {
            facts.map(|f| max_in_tolerance_bps(f.amount_in, max_in))
        }
    }
}

/// Check 8: `SLIPPAGE_EXCEEDED`, `SLIPPAGE_UNVERIFIABLE`: the tolerance judged is the largest of the
/// claim, the report's figure, the report's `min_out` against its `amount_out`, and each
/// decoded swap's bound against the simulated trade.
pub(crate) fn slippage(ctx: &Ctx<'_>, out: &mut Out) {
    let mut worst = ctx.intent.claimed.slippage_bps.unwrap_or(0);
    for f in all_facts(ctx.report) {
        if f.amount_out < f.min_out {
            push(
                out,
                Code::SwapOutputBelowMinimum,
                format!(
                    "the simulated swap delivered {} of token {} to the account, below its minimum output {}",
                    f.amount_out, f.token_out, f.min_out
                ),
            );
        }
        worst = worst
            .max(f.slippage_bps)
            .max(min_out_tolerance_bps(f.amount_out, f.min_out));
    }
    for (nth, (i, swap)) in ctx.facts.swaps().enumerate() {
        match derived_slippage(swap, facts_for_nth(nth, i, swap, ctx.report)) {
            Some(bps) => worst = worst.max(bps),
            None => push(
                out,
                Code::SlippageUnverifiable,
                format!(
                    "call {i}: the swap's slippage cannot be derived: {}",
                    no_facts(nth)
                ),
            ),
        }
    }
    for (i, tolerance) in liquidity_tolerances(ctx) {
        match tolerance {
            Some(bps) => worst = worst.max(bps),
            None => push(
                out,
                Code::SlippageUnverifiable,
                format!(
                    "call {i}: the liquidity call's minimums cannot be compared with a simulated amount"
                ),
            ),
        }
    }
    let max = ctx.policy.max_slippage_bps;
    if worst > max {
        push(
            out,
            Code::SlippageExceeded,
            format!("slippage tolerance {worst} bps exceeds max_slippage_bps {max}"),
        );
    }
}

/// The tolerance each liquidity minimum leaves open against the simulated amount of its side
/// (`None` when the simulation shows none): what the account put into the pool for
/// `addLiquidity*`, what the call's receiver got for `removeLiquidity*`. A zero minimum
/// leaves everything open.
fn liquidity_tolerances(ctx: &Ctx<'_>) -> Vec<(usize, Option<Bps>)> {
    let account = ctx.intent.account;
    let flows = ctx
        .report
        .filter(|r| r.success)
        .map_or(&[][..], |r| r.token_flows.as_slice());
    let sum = |pred: &dyn Fn(&pace_types::TokenFlow) -> bool| {
        flows
            .iter()
            .filter(|f| pred(f))
            .fold(U256::ZERO, |acc, f| acc.saturating_add(f.amount))
    };
    let mut out = Vec::new();
    for (i, decoded) in ctx.facts.decoded.iter().enumerate() {
        // Only liquidity calls carry liquidity minimums.
        let Ok(decoded @ (DecodedCall::AddLiquidity { .. } | DecodedCall::RemoveLiquidity { .. })) =
            decoded
        else {
            continue;
        };
        let receiver = decoded
            .recipients()
            .into_iter()
            .find(|r| r.role == RecipientRole::LiquidityWithdrawal)
            .map(|r| r.to);
        for m in decoded.minimums() {
            let simulated = match m.role {
                MinimumRole::SwapOutput => continue,
                MinimumRole::LiquidityDeposit => {
                    let sent = sum(&|f| f.token == m.token && f.from == account && f.to != account);
                    let back = sum(&|f| f.token == m.token && f.to == account && f.from != account);
                    if m.token == ETH {
                        sent.saturating_sub(back)
                    } else {
                        sent
                    }
                }
                MinimumRole::LiquidityWithdrawal => {
                    let to = receiver.unwrap_or(account);
                    sum(&|f| f.token == m.token && f.to == to && f.from != to)
                }
            };
            let tolerance = if m.min.is_zero() {
                Some(BPS_SCALE)
            } else if simulated.is_zero() {
                None
            } else {
                Some(min_out_tolerance_bps(simulated, m.min))
            };
            out.push((i, tolerance));
        }
    }
    out
}

/// Check 18: `PRICE_IMPACT_EXCEEDED`, `PRICE_IMPACT_UNVERIFIABLE`: the impact judged is the larger of
/// the report's figure and the shortfall of `amount_out` against `quoted_out` (fee included).
pub(crate) fn price_impact(ctx: &Ctx<'_>, out: &mut Out) {
    for (nth, (i, swap)) in ctx.facts.swaps().enumerate() {
        if facts_for_nth(nth, i, swap, ctx.report).is_none() {
            push(
                out,
                Code::PriceImpactUnverifiable,
                format!(
                    "call {i}: the swap's price impact cannot be derived: {}",
                    no_facts(nth)
                ),
            );
        }
    }
    for f in all_facts(ctx.report) {
        let impact = f
            .price_impact_bps
            .max(shortfall_bps(f.quoted_out, f.amount_out));
        let max = ctx.policy.max_price_impact_bps;
        if impact > max {
            push(
                out,
                Code::PriceImpactExceeded,
                format!("price impact {impact} bps exceeds max_price_impact_bps {max}"),
            );
        }
    }
}

/// Check 20: `SWAP_RECIPIENT_NOT_ACCOUNT`: every decoded call that names a receiver of its
/// output (a swap's output, the LP tokens of `addLiquidity*`, both sides of
/// `removeLiquidity*`) names the account, or a payee (`allowed_recipients`), which makes it a
/// payment. Transfers are judged by the counterparty check.
pub(crate) fn recipient(ctx: &Ctx<'_>, out: &mut Out) {
    let account = ctx.intent.account;
    for (i, decoded) in ctx.facts.decoded.iter().enumerate() {
        let Ok(decoded) = decoded else { continue };
        for r in decoded.recipients() {
            if r.role == RecipientRole::Transfer
                || r.to == account
                || ctx.policy.allowed_recipients.contains(&r.to)
            {
                continue;
            }
            push(
                out,
                Code::SwapRecipientNotAccount,
                format!(
                    "call {i}: the {} goes to {}, not to the account or a payee",
                    r.role.as_str(),
                    r.to
                ),
            );
        }
    }
}
