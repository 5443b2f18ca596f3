//! Check 7, the approval check: on derived approvals, and on the rights outside ERC-20
//! allowances (Permit2 allowances, credit delegation: [`super::rights::sizes`]).

use super::{Ctx, Out, push};
use pace_types::{ViolationCode as Code, units::is_unlimited_approval};

/// Check 7: `UNLIMITED_APPROVAL`, `APPROVAL_EXCEEDS_CAP`: with `forbid_unlimited_approval`, no
/// approval (largest of decoded, traced and claimed) of 2^128 or more, and none above the
/// token's spend cap (a token without a cap allows no approval). Revocations (0) always pass.
pub(crate) fn unlimited_approval(ctx: &Ctx<'_>, out: &mut Out) {
    if !ctx.policy.forbid_unlimited_approval {
        return;
    }
    erc20(ctx, out);
    super::rights::sizes(ctx, out);
}

/// The ERC-20 (and NFT `Approval` log) part of check 7.
fn erc20(ctx: &Ctx<'_>, out: &mut Out) {
    for a in &ctx.facts.allowances {
        let amount = a.bound();
        if amount.is_zero() {
            continue;
        }
        let (token, spender) = (a.token, a.spender);
        if is_unlimited_approval(amount) {
            push(
                out,
                Code::UnlimitedApproval,
                format!("approval of {amount} of token {token} to {spender} is unlimited"),
            );
            continue;
        }
        match ctx.policy.spend_cap(token) {
            Some(cap) if amount <= cap => {}
            Some(cap) => push(
                out,
                Code::ApprovalExceedsCap,
                format!(
                    "approval of {amount} of token {token} to {spender} exceeds the token's spend cap {cap}"
                ),
            ),
            None => push(
                out,
                Code::ApprovalExceedsCap,
                format!(
                    "approval of {amount} of token {token} to {spender}, which has no spend cap"
                ),
            ),
        }
    }
}
