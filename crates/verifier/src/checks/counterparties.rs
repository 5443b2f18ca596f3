//! 21. Who may receive the account's tokens or an allowance over them.

use super::{Ctx, Out, push};
use pace_types::ViolationCode as Code;

/// Check 21: `SPENDER_NOT_ALLOWED`, `RECIPIENT_NOT_ALLOWED`: approval spenders (non-zero approvals,
/// decoded, traced or claimed) must be in allowed_targets or allowed_touched. The account's
/// direct payments (decoded `transfer` / `transferFrom`) must go to `allowed_recipients`;
/// other recipients of its tokens in the trace (a pool taking a swap's input) to any of the
/// three lists. The account itself is always fine.
pub(crate) fn counterparties(ctx: &Ctx<'_>, out: &mut Out) {
    let p = ctx.policy.policy();
    let allowed = |a| p.allowed_targets.contains(a) || p.allowed_touched.contains(a);
    let allowances = &ctx.facts.allowances;
    for (i, a) in allowances.iter().enumerate() {
        let seen = allowances[..i]
            .iter()
            .any(|b| b.spender == a.spender && !b.bound().is_zero());
        if a.bound().is_zero() || seen || allowed(&a.spender) {
            continue;
        }
        push(
            out,
            Code::SpenderNotAllowed,
            format!(
                "approval of token {} to {}, which is not an allowed counterparty",
                a.token, a.spender
            ),
        );
    }
    for r in &ctx.facts.recipients {
        let payee = p.allowed_recipients.contains(&r.to);
        if r.direct && !payee {
            push(
                out,
                Code::RecipientNotAllowed,
                format!(
                    "{} of token {} are transferred directly to {}, which is not in allowed_recipients",
                    r.amount, r.token, r.to
                ),
            );
        } else if !payee && !allowed(&r.to) {
            push(
                out,
                Code::RecipientNotAllowed,
                format!(
                    "{} of token {} go to {}, which is not an allowed counterparty",
                    r.amount, r.token, r.to
                ),
            );
        }
    }
}
