//! Token checks on derived facts: the token allowlist and per-token spend caps.

use super::{Ctx, Out, push};
use alloy_primitives::{Address, U256};
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
/// claimed), plus what left the account's holdings of it that pinned descriptors read for
/// elsewhere ([`super::lending::holdings_out`]: an internal balance paid to a payee), within its
/// cap; a token without a cap may not leave at all. Ether is judged here only if the policy
/// lists a cap for it.
pub(crate) fn spend_caps(ctx: &Ctx<'_>, out: &mut Out) {
    let held_out = |token| {
        ctx.report.map_or(U256::ZERO, |r| {
            super::lending::holdings_out(ctx.policy, r, ctx.intent.account, token)
        })
    };
    let outflows = ctx.facts.outflows.iter().map(|o| (o.token, o.bound()));
    // Holdings that fell in a token nothing else moved out.
    let held_only = ctx.report.into_iter().flat_map(|r| {
        r.positions
            .iter()
            .filter(|p| p.delta.is_negative())
            .map(|p| (p.token, U256::ZERO))
            .filter(|(t, _)| !ctx.facts.outflows.iter().any(|o| o.token == *t))
    });
    let mut judged: Vec<Address> = Vec::new();
    for (token, bound) in outflows.chain(held_only) {
        if judged.contains(&token) {
            continue;
        }
        judged.push(token);
        let amount = bound.saturating_add(held_out(token));
        if amount.is_zero() {
            continue;
        }
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
