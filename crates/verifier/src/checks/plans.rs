//! `PLAN_NOT_DECODED`: a router plan with a command the decoder does not read.
//!
//! A Universal Router plan is a program: its transfers, V4 swaps, position and sub-plan
//! commands move value with recipients and bounds the decoder never sees, and a command
//! allowed to revert may or may not run. A swap router's `multicall` holding a swap is one
//! too: a fee-taking payment, a `pull` or a liquidity call beside the swap does the same. The
//! general rules still judge what the simulation shows, but a minimum or a recipient written
//! in such a command is not read, so the plan is refused unless the user named its router in
//! `opaque_plan_routers`.

use super::{Ctx, Out, push};
use alloy_primitives::hex;
use pace_types::ViolationCode as Code;

/// Refuses each call whose plan holds a command nothing reads, unless its target is one of the
/// policy's `opaque_plan_routers`.
pub(crate) fn unread_commands(ctx: &Ctx<'_>, out: &mut Out) {
    let allowed = &ctx.policy.policy().opaque_plan_routers;
    for (i, call) in ctx.intent.calls.iter().enumerate() {
        if allowed.contains(&call.target) {
            continue;
        }
        let unread = if let Some(commands) = pace_abi::unread_plan_commands(&call.data) {
            (!commands.is_empty()).then(|| format!("command(s) 0x{}", hex::encode(&commands)))
        } else if let Some(calls) = pace_abi::unread_batch_calls(&call.data) {
            (!calls.is_empty()).then(|| {
                let names: Vec<String> = calls
                    .iter()
                    .map(|s| format!("0x{}", hex::encode(s)))
                    .collect();
                format!("batched call(s) {}", names.join(", "))
            })
        } else {
            None
        };
        let Some(unread) = unread else {
            continue;
        };
        push(
            out,
            Code::PlanNotDecoded,
            format!(
                "call {i}: the plan's {unread} are not read, so its bounds and recipients cannot \
                 be judged; name the router in `opaque_plan_routers` to judge it by the \
                 simulation alone"
            ),
        );
    }
}
