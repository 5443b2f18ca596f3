//! Token checks on derived facts: the token allowlist and per-token spend caps.

use super::{Ctx, Out, push};
use pace_types::{ETH, ViolationCode as Code};

/// Check 4: `TOKEN_NOT_ALLOWED`: every token decoded, traced or claimed (ether is exempt: it is
/// capped by `max_value_wei`).
pub(crate) fn token_allowlist(ctx: &Ctx<'_>, out: &mut Out) {
    for token in &ctx.facts.tokens {
        if !ctx.policy.allowed_tokens.contains(token) {
            push(
                out,
                Code::TokenNotAllowed,
                format!("token {token} is not an allowed token"),
            );
        }
    }
}

/// Check 5: `SPEND_CAP_EXCEEDED`: each token's outflow bound (largest of decoded, traced and
/// claimed) within its cap; a token without a cap may not leave at all. Ether is judged here
/// only if the policy lists a cap for it.
pub(crate) fn spend_caps(ctx: &Ctx<'_>, out: &mut Out) {
    for outflow in &ctx.facts.outflows {
        let amount = outflow.bound();
        if amount.is_zero() {
            continue;
        }
        let token = outflow.token;
        match ctx.policy.spend_cap(token) {
            Some(cap) if amount > cap => push(
                out,
                Code::SpendCapExceeded,
                format!("outflow of {amount} of token {token} exceeds its spend cap {cap}"),
            ),
            None if token != ETH => push(
                out,
                Code::SpendCapExceeded,
                format!("outflow of {amount} of token {token}, which has no spend cap"),
            ),
            _ => {}
        }
    }
}
