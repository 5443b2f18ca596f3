//! 21. Who may receive an asset, or an allowance over the account's tokens.

use super::{Ctx, Out, push};
use alloy_primitives::{Address, U256};
use pace_types::ViolationCode as Code;

/// Check 21: `SPENDER_NOT_ALLOWED`, `RECIPIENT_NOT_ALLOWED`.
///
/// - Approval spenders (non-zero approvals, decoded, traced or claimed) must be in
///   `allowed_targets` or `allowed_touched`.
/// - The account's direct payments (decoded `transfer` / `transferFrom`, ether without
///   calldata) must go to `allowed_recipients`; the zero address is no payee, so a direct
///   burn is refused too.
/// - Every movement in the simulated execution, fungible or not and **whoever pays it**,
///   must reach the account, a payee, a `fee_recipients` entry or an allowed counterparty
///   (`allowed_targets`, `allowed_touched`, `allowed_tokens`): in the account's
///   transaction, a pool paying a stranger pays out the account's value. Movements to the
///   zero address are burns, judged by value conservation (a burn for nothing is a loss).
pub(crate) fn counterparties(ctx: &Ctx<'_>, out: &mut Out) {
    let p = ctx.policy.policy();
    let allowed = |a: &Address| p.allowed_targets.contains(a) || p.allowed_touched.contains(a);
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
    let mut judged: Vec<Address> = Vec::new();
    for r in ctx.facts.recipients.iter().filter(|r| r.direct) {
        if !p.allowed_recipients.contains(&r.to) && !judged.contains(&r.to) {
            judged.push(r.to);
            push(
                out,
                Code::RecipientNotAllowed,
                format!(
                    "{} of token {} are transferred directly to {}, which is not in allowed_recipients",
                    r.amount, r.token, r.to
                ),
            );
        }
    }
    let Some(report) = ctx.report else { return };
    let account = ctx.intent.account;
    let receiver_ok = |to: &Address| {
        *to == Address::ZERO
            || *to == account
            || allowed(to)
            || p.allowed_tokens.contains(to)
            || p.allowed_recipients.contains(to)
            || p.fee_recipients.contains(to)
    };
    let fungible = report
        .token_flows
        .iter()
        .map(|f| (f.token, f.from, f.to, f.amount, None));
    let nfts = report
        .nft_flows
        .iter()
        .map(|f| (f.token, f.from, f.to, f.amount, Some(f.id)));
    for (token, from, to, amount, id) in fungible.chain(nfts) {
        if amount.is_zero() || receiver_ok(&to) || judged.contains(&to) {
            continue;
        }
        judged.push(to);
        let what = id.map_or_else(
            || format!("{amount} of token {token}"),
            |id: U256| format!("{amount} of token {token} id {id}"),
        );
        push(
            out,
            Code::RecipientNotAllowed,
            format!(
                "{what} move from {from} to {to}, which is not the account, a payee, a fee recipient or an allowed counterparty"
            ),
        );
    }
}
