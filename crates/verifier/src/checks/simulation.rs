//! Checks on the simulation report: presence, success, age, binding to the intent, touched
//! contracts and post-state thresholds. All but the first pass when there is no report.

use super::{Ctx, Out, push};
use pace_types::ViolationCode as Code;

/// Check 10: `SIMULATION_MISSING`.
pub(crate) fn required(ctx: &Ctx<'_>, out: &mut Out) {
    if ctx.report.is_none() && ctx.policy.require_simulation {
        push(
            out,
            Code::SimulationMissing,
            "the policy requires a simulation report and none was given".into(),
        );
    }
}

/// Check 11: `SIMULATION_FAILED`.
pub(crate) fn success(ctx: &Ctx<'_>, out: &mut Out) {
    if let Some(r) = ctx.report.filter(|r| !r.success) {
        let reason = r.revert_reason.as_deref().unwrap_or("no reason given");
        push(
            out,
            Code::SimulationFailed,
            format!("the simulation reverted: {reason:?}"),
        );
    }
}

/// Check 12: `SIMULATION_STALE`: `now - timestamp <= max_simulation_age_secs`.
pub(crate) fn freshness(ctx: &Ctx<'_>, out: &mut Out) {
    if let Some(r) = ctx.report {
        let age = ctx.now.saturating_sub(r.timestamp);
        let max = ctx.policy.max_simulation_age_secs;
        if age > max {
            push(
                out,
                Code::SimulationStale,
                format!("the simulation is {age} s old, above max_simulation_age_secs {max}"),
            );
        }
    }
}

/// Check 13: `SIMULATION_FROM_FUTURE`.
pub(crate) fn future_timestamp(ctx: &Ctx<'_>, out: &mut Out) {
    if let Some(r) = ctx.report.filter(|r| r.timestamp > ctx.now) {
        push(
            out,
            Code::SimulationFromFuture,
            format!(
                "the simulation timestamp {} is after the decision time {}",
                r.timestamp, ctx.now
            ),
        );
    }
}

/// Check 14: `INTENT_HASH_MISMATCH`: the report must be about these exact intent bytes.
pub(crate) fn intent_hash(ctx: &Ctx<'_>, out: &mut Out) {
    let differs = |r: &&pace_types::SimulationReport| r.intent_hash != ctx.intent_hash;
    if let Some(r) = ctx.report.filter(differs) {
        push(
            out,
            Code::IntentHashMismatch,
            format!(
                "the report simulated intent {}, but this intent is {}",
                r.intent_hash, ctx.intent_hash
            ),
        );
    }
}

/// Check 15: `TOUCHED_NOT_ALLOWED`: touched contracts within allowed_touched, allowed_targets,
/// allowed_tokens, allowed_recipients and the account.
pub(crate) fn touched_allowlist(ctx: &Ctx<'_>, out: &mut Out) {
    let Some(r) = ctx.report else { return };
    let p = ctx.policy.policy();
    for (i, addr) in r.touched_contracts.iter().enumerate() {
        let allowed = *addr == ctx.intent.account
            || p.allowed_touched.contains(addr)
            || p.allowed_targets.contains(addr)
            || p.allowed_tokens.contains(addr)
            || p.allowed_recipients.contains(addr);
        if !allowed && !r.touched_contracts[..i].contains(addr) {
            push(
                out,
                Code::TouchedNotAllowed,
                format!("the execution touched {addr}, which is not allowed"),
            );
        }
    }
}

/// Check 16: `HEALTH_FACTOR_TOO_LOW` (when the policy sets a minimum and the report has a position).
pub(crate) fn health_factor(ctx: &Ctx<'_>, out: &mut Out) {
    let (Some(min), Some(r)) = (ctx.policy.min_health_factor_bps, ctx.report) else {
        return;
    };
    if let Some(after) = r.health_factor_after_bps.filter(|&hf| hf < min) {
        push(
            out,
            Code::HealthFactorTooLow,
            format!(
                "health factor after execution {after} bps is below min_health_factor_bps {min}"
            ),
        );
    }
}
