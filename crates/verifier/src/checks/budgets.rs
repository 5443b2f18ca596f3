//! Check 22: spending budgets across intents, enforced on-chain and judged early here.

use super::{Ctx, Out, push};
use alloy_primitives::U256;
use pace_types::ViolationCode as Code;

/// `BUDGET_NOT_ENFORCED` / `BUDGET_EXCEEDED`. The verifier sees one intent, so a budget over
/// many of them holds only if the account enforces it: each policy budget must appear among
/// the report's on-chain budgets with a limit no higher and a period no shorter. Then the
/// intent's outflow of the token (the judged bound: decoded, traced or claimed, gross) plus
/// what the current period has already spent must fit the stricter of the two limits, so a
/// drain's over-budget leg is refused here instead of reverting on-chain.
pub(crate) fn budgets(ctx: &Ctx<'_>, out: &mut Out) {
    for budget in &ctx.policy.budgets {
        let token = budget.token;
        let Some(report) = ctx.report else {
            push(
                out,
                Code::BudgetNotEnforced,
                format!(
                    "the budget of token {token} cannot be confirmed on-chain without a simulation report"
                ),
            );
            continue;
        };
        let Some(state) = report.budgets.iter().find(|s| s.token == token) else {
            push(
                out,
                Code::BudgetNotEnforced,
                format!(
                    "the policy budgets token {token} ({} per {} s) but the account enforces no budget for it",
                    budget.limit, budget.period_secs
                ),
            );
            continue;
        };
        if state.limit > budget.limit || state.period_secs < budget.period_secs {
            push(
                out,
                Code::BudgetNotEnforced,
                format!(
                    "the account's budget of token {token} ({} per {} s) is looser than the policy's ({} per {} s)",
                    state.limit, state.period_secs, budget.limit, budget.period_secs
                ),
            );
            continue;
        }
        let outflow = ctx
            .facts
            .outflows
            .iter()
            .find(|o| o.token == token)
            .map_or(U256::ZERO, |o| o.bound());
        if outflow.is_zero() {
            continue;
        }
        let spent = state.spent_at(ctx.now);
        let limit = state.limit.min(budget.limit);
        if outflow.saturating_add(spent) > limit {
            push(
                out,
                Code::BudgetExceeded,
                format!(
                    "outflow of {outflow} of token {token} on top of {spent} already spent this period exceeds the budget of {limit}"
                ),
            );
        }
    }
}
