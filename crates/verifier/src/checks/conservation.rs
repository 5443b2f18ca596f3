//! 17. Value conservation over the account's whole delta (see [`crate::value`]).

use super::{Ctx, Out, push};
use crate::{
    decode::DecodedCall,
    value::{Payments, conservation},
};
use alloy_primitives::{Address, U256};
use pace_types::{BPS_SCALE, ETH, SimulationReport, ViolationCode as Code};

/// The payments to payees the calldata makes: `transfer` / `transferFrom` from the account,
/// and ether sent without calldata.
fn decoded_payments(ctx: &Ctx<'_>) -> Vec<(Address, U256)> {
    let payee = |a: &Address| ctx.policy.allowed_recipients.contains(a);
    let account = ctx.intent.account;
    let mut out = Vec::new();
    for (call, decoded) in ctx.intent.calls.iter().zip(&ctx.facts.decoded) {
        match decoded {
            Ok(DecodedCall::Transfer { token, to, amount }) if payee(to) => {
                out.push((*token, *amount));
            }
            Ok(DecodedCall::TransferFrom {
                token,
                from,
                to,
                amount,
            }) if *from == account && payee(to) => out.push((*token, *amount)),
            _ if call.data.is_empty() && payee(&call.target) => out.push((ETH, call.value)),
            _ => {}
        }
    }
    out
}

/// The counterparties whose payments to the account were not all paid for by value that left
/// it (at the trusted pre-execution prices; an unpriced movement pays for nothing).
pub(crate) fn unpaid_counterparties(ctx: &Ctx<'_>, report: &SimulationReport) -> Vec<Address> {
    let decoded = decoded_payments(ctx);
    let payments = Payments {
        decoded: &decoded,
        dust: U256::from(ctx.intent.calls.len()),
    };
    conservation(report, ctx.policy, ctx.intent.account, payments)
        .unpaid
        .into_iter()
        .map(|(a, _)| a)
        .collect()
}

/// Check 17: `UNPRICED_ASSET`, `LOSS_EXCEEDED`, and the protocol valuation's codes
/// (`FEED_*`, `POOL_PRICE_DIVERGES`, `POSITION_UNREADABLE`, `UNPAID_INFLOW`). Applies to every
/// intent with a successful simulation, whatever its functions: net of payments to payees, the
/// account's delta valued at pre-execution prices from trusted sources may fall by at most
/// `max_loss_bps` (default 1 %) of the notional, the value of what leaves; when nothing
/// leaves, any fall is a loss. An asset of the delta that no trusted source prices is
/// `UNPRICED_ASSET`; a trusted source that cannot be used (a stale or invalid feed, a pool
/// whose spot price left its TWAP) or a trusted protocol that cannot be read is refused by its
/// own code. A delta within the bound only thanks to inflows nobody paid for is
/// `UNPAID_INFLOW`. A measured swap's own loss (`loss_bps`) is held to the same bound.
pub(crate) fn max_loss(ctx: &Ctx<'_>, out: &mut Out) {
    let Some(r) = ctx.report.filter(|r| r.success) else {
        return;
    };
    let max = ctx.policy.loss_bound_bps();
    if let Some(loss) = r.loss_bps.filter(|&l| l > max) {
        push(
            out,
            Code::LossExceeded,
            format!("the simulated swap loses {loss} bps, above max_loss_bps {max}"),
        );
    }
    let decoded = decoded_payments(ctx);
    let payments = Payments {
        decoded: &decoded,
        dust: U256::from(ctx.intent.calls.len()),
    };
    let c = conservation(r, ctx.policy, ctx.intent.account, payments);
    for token in &c.unpriced {
        push(
            out,
            Code::UnpricedAsset,
            format!(
                "token {token} changes hands but no source the policy trusts prices it (prices, price_oracles, price_vaults, price_pools, price_v3_pools, a market among allowed_targets)"
            ),
        );
    }
    // Protocol valuation (adapters).
    for p in &c.problems {
        push(out, p.code, p.message.clone());
    }
    if !c.unpriced.is_empty() || !c.problems.is_empty() || c.unpaid_loss.is_zero() {
        return;
    }
    let allowed = c.notional.saturating_mul(U256::from(max)) / U256::from(BPS_SCALE);
    if c.loss > allowed {
        push(
            out,
            Code::LossExceeded,
            format!(
                "the account's delta loses {} wei of value at pre-execution prices, above max_loss_bps {max} of the {} wei that leave it",
                c.loss, c.notional
            ),
        );
    } else if c.unpaid_loss > allowed {
        let who = c
            .unpaid
            .iter()
            .take(3)
            .map(|(a, v)| format!("{a} ({v} wei)"))
            .collect::<Vec<_>>()
            .join(", ");
        push(
            out,
            Code::UnpaidInflow,
            format!(
                "without the inflows nothing that left the account paid for (from {who}), its delta loses {} wei, above max_loss_bps {max} of the {} wei that leave it",
                c.unpaid_loss, c.notional
            ),
        );
    }
}
