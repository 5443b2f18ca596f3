//! `PLAN_NOT_DECODED`: a router plan with a command the decoder does not read.
//!
//! A Universal Router plan is a program: its transfers, V4 swaps, position and sub-plan
//! commands move value with recipients and bounds the decoder never sees, and a command
//! allowed to revert may or may not run. A swap router's `multicall` holding a swap is one
//! too: a fee-taking payment, a `pull` or a liquidity call beside the swap does the same. So
//! does a Balancer V2 Vault swap the decoder does not read as one route (internal balances,
//! another sender, a batch of several routes). The general rules still judge what the
//! simulation shows, but a minimum or a recipient written in such a command is not read, so
//! the plan is refused unless the user named its router in `opaque_plan_routers`.

use super::{Ctx, Out, push};
use pace_types::ViolationCode as Code;

/// Refuses each call whose plan holds a command nothing reads, unless its target is one of the
/// policy's `opaque_plan_routers`.
pub(crate) fn unread_commands(ctx: &Ctx<'_>, out: &mut Out) {
    let allowed = &ctx.policy.policy().opaque_plan_routers;
    for (i, call) in ctx.intent.calls.iter().enumerate() {
        if allowed.contains(&call.target) {
            continue;
        }
        let unread =
            pace_abi::unread(ctx.intent.account, call.value, &call.data).map(|u| u.describe());
        let Some(unread) = unread else {
            continue;
        };
        push(
            out,
            Code::PlanNotDecoded,
            format!(
                "call {i}: {unread}, so its bounds and recipients cannot \
                 be judged; name the router in `opaque_plan_routers` to judge it by the \
                 simulation alone"
            ),
        );
    }
}
