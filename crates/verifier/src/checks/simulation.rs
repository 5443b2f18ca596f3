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
            || p.allowed_recipients.contains(addr)
            || ctx.in_trusted_protocol(addr);
        if !allowed && !r.touched_contracts[..i].contains(addr) {
            push(
                out,
                Code::TouchedNotAllowed,
                format!("the execution touched {addr}, which is not allowed"),
            );
        }
    }
}

/// Check 15's part: `POSITION_UNREADABLE` for a fact a protocol the intent reaches declares
/// for the account to re-check (`Descriptor::checks`, [`crate::declared`]) that the report
/// does not carry, or carries without an answer after the calls.
pub(crate) fn declared_checks(ctx: &Ctx<'_>, out: &mut Out) {
    let Some(r) = ctx.report else { return };
    for e in crate::declared::expected(ctx.policy.policy(), ctx.intent, r) {
        let why = match r.reads.iter().find(|read| e.matches(read)) {
            None => "the report carries no read of it",
            Some(read) if read.after.is_none() => "it answered no whole word after the calls",
            Some(_) => continue,
        };
        push(
            out,
            Code::PositionUnreadable,
            format!(
                "{} declares the check {} (word {}) on {}: {why}; a fact the decision rests on \
                 is not signed blind",
                e.descriptor.id, e.view, e.word, e.target
            ),
        );
    }
}

/// Check 15's part: `PROTOCOL_CODE_CHANGED`: every pinned root of a trusted protocol the
/// intent reaches (a root or a member among its targets and touched contracts) runs the code
/// its descriptor pins, as the report read it; a root the report does not read is refused too.
pub(crate) fn protocol_code(ctx: &Ctx<'_>, out: &mut Out) {
    let Some(r) = ctx.report else { return };
    let p = ctx.policy.policy();
    for d in p.descriptors() {
        let targets = ctx.intent.calls.iter().map(|c| c.target);
        let reached = targets.chain(r.touched_contracts.iter().copied());
        if !d.is_reached(reached, &r.protocols.members) {
            continue;
        }
        for root in &d.roots {
            if root.code_hash.is_none() && root.implementation_code_hash.is_none() {
                continue;
            }
            let read =
                r.protocols.root_code.iter().find(|c| {
                    c.protocol == d.id && c.root == root.name && c.address == root.address
                });
            let Some(read) = read else {
                push(
                    out,
                    Code::ProtocolCodeChanged,
                    format!(
                        "{} root {} ({}): the report does not say what code runs there",
                        d.id, root.name, root.address
                    ),
                );
                continue;
            };
            for (what, pinned, found) in [
                ("code", root.code_hash, read.code_hash),
                (
                    "implementation",
                    root.implementation_code_hash,
                    read.implementation_code_hash,
                ),
            ] {
                if let Some(pinned) = pinned
                    && found != Some(pinned)
                {
                    push(
                        out,
                        Code::ProtocolCodeChanged,
                        format!(
                            "{} root {} ({}): its {what} hashes to {}, not the pinned {pinned}; \
                             review it and pin it again",
                            d.id,
                            root.name,
                            root.address,
                            found.map_or_else(|| "nothing".to_owned(), |h| h.to_string())
                        ),
                    );
                }
            }
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
