//! 21. Who may receive an asset, or an allowance over the account's tokens.

#[cfg(test)]
mod stranded_tests;

use super::{Ctx, Out, push};
use crate::value::Trusted;
use alloy_primitives::{Address, I256, U256};
use pace_types::{SimulationReport, ViolationCode as Code};

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
/// - A counterparty may not keep value for nothing: one that ends the execution with more of
///   an asset and gave nothing back (no asset of its own left it, it minted no token or NFT of
///   its own to another, it had no token minted to another, the account's position with it did
///   not improve: a lending position, a Compound-style debt or a debt token of a trusted
///   market down, a V3 position's liquidity in a pool up) holds the account's value where
///   whoever sweeps or skims it next takes it, like tokens sent straight into a router. The
///   addresses of a trusted market (an Aave pool with its aTokens and debt tokens) are one
///   counterparty: the aToken that receives a repayment gives back the debt its debt token
///   burns. Two exchanges are no such holding: a counterparty that paid the account or a payee
///   in the same calls (a pool's fee on a round trip, which value conservation prices), and
///   one that received the asset only from share issuers that minted their own token in the
///   same calls (a vault's strategy, which the vault's share price accounts for).
pub(crate) fn counterparties(ctx: &Ctx<'_>, out: &mut Out) {
    let p = ctx.policy.policy();
    let allowed = |a: &Address| {
        p.allowed_targets.contains(a) || p.allowed_touched.contains(a) || ctx.in_trusted_protocol(a)
    };
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
    let trusted = Trusted::of(report, p);
    for (holder, token, amount) in stranded(
        report,
        account,
        &p.allowed_recipients,
        &p.fee_recipients,
        &trusted,
    ) {
        if judged.contains(&holder) {
            continue;
        }
        judged.push(holder);
        push(
            out,
            Code::RecipientNotAllowed,
            format!(
                "{holder} keeps {amount} of token {token} and gives nothing back: value left at a counterparty is anyone's to sweep"
            ),
        );
    }
}

/// The counterparties that end the execution holding more of an asset without giving
/// anything back (see [`counterparties`]), with the first asset they kept. Addresses of one
/// trusted group are one counterparty, named by its market.
fn stranded(
    report: &SimulationReport,
    account: Address,
    payees: &[Address],
    fees: &[Address],
    trusted: &Trusted<'_>,
) -> Vec<(Address, Address, U256)> {
    let party = |a: Address| trusted.party(a);
    // (holder, token, net change)
    let mut nets: Vec<(Address, Address, I256)> = Vec::new();
    let mut add = |holder: Address, token: Address, delta: I256| match nets
        .iter_mut()
        .find(|n| n.0 == holder && n.1 == token)
    {
        Some(n) => n.2 = n.2.saturating_add(delta),
        None => nets.push((holder, token, delta)),
    };
    let signed = |a: U256| I256::try_from(a).unwrap_or(I256::MAX);
    let moves = report
        .token_flows
        .iter()
        .map(|f| (f.token, f.from, f.to, f.amount))
        .chain(
            report
                .nft_flows
                .iter()
                .map(|f| (f.token, f.from, f.to, f.amount)),
        );
    for (token, from, to, amount) in moves {
        let (from, to) = (party(from), party(to));
        if from == to {
            continue;
        }
        add(from, token, -signed(amount));
        add(to, token, signed(amount));
    }
    let minted_own = |holder: Address| {
        let own = |token: Address, from: Address, to: Address| {
            party(token) == holder && from == Address::ZERO && party(to) != holder
        };
        report
            .token_flows
            .iter()
            .any(|f| own(f.token, f.from, f.to))
            || report.nft_flows.iter().any(|f| own(f.token, f.from, f.to))
    };
    let better_position = |holder: Address| {
        report
            .positions
            .iter()
            .any(|p| party(p.market) == holder && p.delta.is_positive())
            || trusted
                .lending_debts
                .iter()
                .any(|d| party(d.market) == holder && d.after < d.before)
            || trusted.positions.iter().any(|p| {
                let liquidity = |h: &Option<pace_types::V3Liquidity>| {
                    h.as_ref().map_or(U256::ZERO, |h| h.liquidity)
                };
                p.pool == holder && liquidity(&p.after) > liquidity(&p.before)
            })
            || report.token_flows.iter().any(|f| {
                f.from == account
                    && f.to == Address::ZERO
                    && trusted.debt(f.token).is_some()
                    && party(f.token) == holder
            })
    };
    let gave = |holder: Address| {
        nets.iter().any(|n| n.0 == holder && n.2.is_negative())
            || minted_own(holder)
            || report
                .minters
                .iter()
                .any(|m| party(m.by) == holder && party(m.to) != holder)
            || better_position(holder)
    };
    // An exchange: the holder paid the account (or a payee) something in the same calls, so
    // what it kept is priced by value conservation, as a pool's fee on a round trip is.
    let paid_back = |holder: Address| {
        report
            .token_flows
            .iter()
            .any(|f| party(f.from) == holder && (f.to == account || payees.contains(&f.to)))
    };
    // Behind a share issuer: every movement of `token` into the holder came from a contract that
    // minted its own token to someone else in the same calls (a vault forwarding deposits to
    // its strategy), so the issuer's share price, not the holder, accounts for it.
    let behind_shares = |holder: Address, token: Address| {
        let mut senders = report
            .token_flows
            .iter()
            .filter(|f| f.token == token && party(f.to) == holder && party(f.from) != holder)
            .map(|f| party(f.from))
            .peekable();
        senders.peek().is_some() && senders.all(minted_own)
    };
    let mut out: Vec<(Address, Address, U256)> = Vec::new();
    for &(holder, token, net) in &nets {
        let exempt = holder == account
            || holder == Address::ZERO
            || payees.contains(&holder)
            || fees.contains(&holder);
        if exempt
            || !net.is_positive()
            || out.iter().any(|o| o.0 == holder)
            || gave(holder)
            || paid_back(holder)
            || behind_shares(holder, token)
        {
            continue;
        }
        out.push((holder, token, net.unsigned_abs()));
    }
    out
}
