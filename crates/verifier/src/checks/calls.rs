//! Checks on the calls themselves: shape, targets, selectors, ether value.

use super::{Ctx, Out, push};
use pace_types::{ETH, Selector, ViolationCode as Code};

/// `NO_CALLS`, `MALFORMED_CALLDATA`.
pub(crate) fn structural(ctx: &Ctx<'_>, out: &mut Out) {
    if ctx.intent.calls.is_empty() {
        push(out, Code::NoCalls, "the intent has no calls".into());
    }
    for (i, decoded) in ctx.facts.decoded.iter().enumerate() {
        if let Err(e) = decoded {
            push(out, Code::MalformedCalldata, format!("call {i}: {e}"));
        }
    }
}

/// Check 1: `TARGET_NOT_ALLOWED`. A plain ether payment (no calldata) to a payee in
/// `allowed_recipients` is a payment, not a contract call, and needs no target entry; a call
/// to an entry point of a protocol the policy trusts by descriptor needs none either.
pub(crate) fn target_allowlist(ctx: &Ctx<'_>, out: &mut Out) {
    let p = ctx.policy.policy();
    for (i, call) in ctx.intent.calls.iter().enumerate() {
        let payment = call.data.is_empty() && p.allowed_recipients.contains(&call.target);
        let by_protocol =
            ctx.protocol_allows_call(call.target, call.selector().map(Selector::from));
        if !payment && !by_protocol && !p.allowed_targets.contains(&call.target) {
            push(
                out,
                Code::TargetNotAllowed,
                format!("call {i}: target {} is not an allowed target", call.target),
            );
        }
    }
}

/// Check 2: `SELECTOR_NOT_ALLOWED` (calls without calldata have no selector and are not judged
/// here; a selector a trusted descriptor allows on the call's target passes).
pub(crate) fn selector_allowlist(ctx: &Ctx<'_>, out: &mut Out) {
    for (i, call) in ctx.intent.calls.iter().enumerate() {
        if let Some(selector) = call.selector().map(Selector::from)
            && !ctx.policy.allowed_selectors.contains(&selector)
            && !ctx.protocol_allows_call(call.target, Some(selector))
        {
            push(
                out,
                Code::SelectorNotAllowed,
                format!("call {i}: selector {selector} is not an allowed selector"),
            );
        }
    }
}

/// Check 3: `SELECTOR_BLOCKED`.
pub(crate) fn blocked_selectors(ctx: &Ctx<'_>, out: &mut Out) {
    for (i, call) in ctx.intent.calls.iter().enumerate() {
        if let Some(selector) = call.selector().map(Selector::from)
            && ctx.policy.blocked_selectors.contains(&selector)
        {
            push(
                out,
                Code::SelectorBlocked,
                format!("call {i}: selector {selector} is blocked"),
            );
        }
    }
}

/// Check 6: `MAX_VALUE_EXCEEDED`: the sum of call values, then the traced ether outflow.
pub(crate) fn max_value(ctx: &Ctx<'_>, out: &mut Out) {
    let max = ctx.policy.max_value_wei;
    let sent = ctx.facts.value_sum;
    if sent > max {
        push(
            out,
            Code::MaxValueExceeded,
            format!("the calls send {sent} wei, above max_value_wei {max}"),
        );
        return;
    }
    let traced = ctx
        .facts
        .outflows
        .iter()
        .find(|o| o.token == ETH)
        .map(|o| o.traced.unwrap_or_default().max(o.net_loss))
        .unwrap_or_default();
    if traced > max {
        push(
            out,
            Code::MaxValueExceeded,
            format!("the trace shows {traced} wei leaving the account, above max_value_wei {max}"),
        );
        return;
    }
    // Through the EntryPoint, the operation's gas is paid from the account's deposit: ether of
    // the account's too, up to the operation's maximum cost, which the report must name.
    let Some(env) = ctx.report.and_then(|r| r.execution.as_ref()) else {
        return;
    };
    if env.entry == pace_types::Entry::EntryPoint {
        let Some(gas) = env.max_gas_cost else {
            push(
                out,
                Code::MaxValueExceeded,
                "the EntryPoint path's maximum gas cost is not in the report: its ether cannot be \
                 judged"
                    .to_owned(),
            );
            return;
        };
        let spent = traced.max(sent).saturating_add(gas);
        if spent > max {
            push(
                out,
                Code::MaxValueExceeded,
                format!(
                    "the user operation may cost the account {gas} wei of gas besides {} wei \
                     it sends: {spent} wei, above max_value_wei {max}",
                    traced.max(sent)
                ),
            );
        }
    }
}
