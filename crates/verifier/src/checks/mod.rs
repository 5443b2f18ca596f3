//! The checks, one function each, dispatched in [`Check::ALL`] order.

mod approvals;
mod budgets;
mod calls;
mod claims;
mod conservation;
mod counterparties;
mod metadata;
mod plans;
mod scope;
mod simulation;
mod swap;
mod tokens;
// Rights and lending health (adapters).
mod lending;
mod rights;

use crate::facts::Facts;
use alloy_primitives::{Address, B256};
use pace_types::{
    Check, CompiledPolicy, Intent, Selector, SimulationReport, Violation, ViolationCode,
};

/// The inputs every check sees.
pub(crate) struct Ctx<'a> {
    pub(crate) intent: &'a Intent,
    pub(crate) policy: &'a CompiledPolicy,
    pub(crate) report: Option<&'a SimulationReport>,
    pub(crate) now: u64,
    pub(crate) intent_hash: B256,
    pub(crate) facts: &'a Facts,
}

impl Ctx<'_> {
    /// Whether `a` belongs to a protocol the policy trusts by descriptor: one of its roots, or
    /// a member by the report (the simulator read the descriptor's rules).
    pub(crate) fn in_trusted_protocol(&self, a: &Address) -> bool {
        let p = self.policy.policy();
        if p.protocols.is_empty() {
            return false;
        }
        p.descriptors().any(|d| d.is_root(*a))
            || self.report.is_some_and(|r| {
                r.protocols
                    .members
                    .iter()
                    .any(|m| m.contract == *a && p.descriptors().any(|d| d.id == m.protocol))
            })
    }

    /// Whether a descriptor the policy trusts lets the intent call `selector` on `target`.
    pub(crate) fn protocol_allows_call(&self, target: Address, selector: Option<Selector>) -> bool {
        self.policy
            .policy()
            .descriptors()
            .any(|d| d.allows_call(target, selector))
    }
}

/// Output sink for violations.
pub(crate) type Out = Vec<Violation>;

pub(crate) fn push(out: &mut Out, code: ViolationCode, message: String) {
    out.push(Violation { code, message });
}

/// The checks that always run: the intent must be well formed.
pub(crate) fn structural(ctx: &Ctx<'_>, out: &mut Out) {
    calls::structural(ctx, out);
}

/// Runs one switchable check.
pub(crate) fn run(check: Check, ctx: &Ctx<'_>, out: &mut Out) {
    match check {
        Check::Scope => scope::scope(ctx, out),
        Check::TargetAllowlist => calls::target_allowlist(ctx, out),
        Check::SelectorAllowlist => calls::selector_allowlist(ctx, out),
        Check::BlockedSelectors => calls::blocked_selectors(ctx, out),
        Check::TokenAllowlist => tokens::token_allowlist(ctx, out),
        Check::SpendCaps => tokens::spend_caps(ctx, out),
        Check::MaxValue => calls::max_value(ctx, out),
        Check::UnlimitedApproval => approvals::unlimited_approval(ctx, out),
        Check::Slippage => {
            swap::slippage(ctx, out);
            plans::unread_commands(ctx, out);
        }
        Check::MetadataPatterns => metadata::metadata_patterns(ctx, out),
        Check::SimulationRequired => simulation::required(ctx, out),
        Check::SimulationSuccess => simulation::success(ctx, out),
        Check::Freshness => simulation::freshness(ctx, out),
        Check::FutureTimestamp => simulation::future_timestamp(ctx, out),
        Check::IntentHash => simulation::intent_hash(ctx, out),
        Check::TouchedAllowlist => {
            simulation::touched_allowlist(ctx, out);
            simulation::protocol_code(ctx, out);
            simulation::declared_checks(ctx, out);
        }
        // Rights and lending health (adapters): the adapters' positions with the generic one.
        Check::HealthFactor => {
            simulation::health_factor(ctx, out);
            lending::health(ctx, out);
            lending::unread(ctx, out);
            lending::holdings(ctx, out);
        }
        Check::MaxLoss => conservation::max_loss(ctx, out),
        Check::PriceImpact => swap::price_impact(ctx, out),
        Check::Claims => claims::claims(ctx, out),
        Check::SwapRecipient => swap::recipient(ctx, out),
        // Rights and lending health (adapters): who holds the rights outside allowances.
        Check::Counterparties => {
            counterparties::counterparties(ctx, out);
            rights::holders(ctx, out);
        }
        Check::Budgets => budgets::budgets(ctx, out),
    }
}
