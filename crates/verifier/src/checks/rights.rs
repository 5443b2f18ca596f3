//! Rights over the account's value outside ERC-20 allowances, judged like approvals.
//!
//! - **Allowances of a size** (Permit2 allowances, credit delegation), from the report's
//!   `rights` and from the calldata (`pace_abi::decode::rights`), the larger amount of the
//!   two: in check 7, unlimited (2^128 or more) or above the token's spend cap (or without
//!   one) is refused with `UNLIMITED_APPROVAL` / `APPROVAL_EXCEEDS_CAP`; in check 21, a holder
//!   outside `allowed_targets` and `allowed_touched` with `SPENDER_NOT_ALLOWED`. A grant whose
//!   arguments do not decode is of unknown size: unlimited.
//! - **Control handed over** (the report's storage-derived rights), in check 21: the holder
//!   must be a known party (the account, a payee, an allowed target, touched contract or
//!   token, a fee recipient), or `CONTROLLER_NOT_ALLOWED` (the account's place in a slot),
//!   `ROLE_HOLDER_NOT_ALLOWED` (an address recorded), `WALLET_OWNER_NOT_ALLOWED` (a contract
//!   created for it). A touched contract that is already an operator of a collection the
//!   account holds is refused whoever it is (`STANDING_OPERATOR`). A record under an opaque
//!   value the calls passed (an order's digest) is refused unless the policy trusts that
//!   contract with such records (`opaque_key_targets`; `OPAQUE_AUTHORIZATION`).
//!
//! The agent's claims cover ERC-20 approvals; these rights need no claim (the trace and the
//! calldata show them, and no claim makes them less strict). A claimed approval that no
//! ERC-20 evidence supports but a right of the same token and holder does is consistent when
//! its amount is the right's.

use super::{Ctx, Out, push};
use alloy_primitives::{Address, U256};
use pace_abi::decode::rights::{RightKind as Decoded, decode_rights, right_kind};
use pace_types::{RightKind, ViolationCode as Code, units::is_unlimited_approval};

/// One allowance-like right with the largest amount every source gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Allowance {
    pub(super) kind: RightKind,
    pub(super) contract: Address,
    pub(super) token: Option<Address>,
    pub(super) holder: Address,
    pub(super) amount: U256,
}

fn describe(kind: RightKind) -> &'static str {
    match kind {
        RightKind::Permit2Allowance => "Permit2 allowance",
        RightKind::CreditDelegation => "credit delegation",
        RightKind::DisplacedAccount => "control of a slot that held the account",
        RightKind::RecordedAddress => "recorded address",
        RightKind::CreatedContract => "created contract",
        RightKind::StandingOperator => "standing operator",
        RightKind::OpaqueKey => "record under an opaque key",
    }
}

/// The allowance-like rights of the account: the report's, merged with the calldata's.
pub(super) fn allowances(ctx: &Ctx<'_>) -> Vec<Allowance> {
    let account = ctx.intent.account;
    let mut out: Vec<Allowance> = Vec::new();
    let mut add = |a: Allowance| {
        let same = |b: &&mut Allowance| {
            b.kind == a.kind
                && b.contract == a.contract
                && b.holder == a.holder
                && (b.token == a.token || a.kind == RightKind::CreditDelegation)
        };
        match out.iter_mut().find(|b| same(b)) {
            Some(b) => {
                b.amount = b.amount.max(a.amount);
                b.token = b.token.or(a.token);
            }
            None => out.push(a),
        }
    };
    if let Some(report) = ctx.report {
        for r in report.rights.iter().filter(|r| r.is_allowance()) {
            add(Allowance {
                kind: r.kind,
                contract: r.contract,
                token: r.token,
                holder: r.holder,
                amount: r.amount.unwrap_or(U256::MAX),
            });
        }
    }
    for call in &ctx.intent.calls {
        match decode_rights(call.target, &call.data) {
            Ok(grants) => {
                for g in grants.iter().filter(|g| g.owner_for(account) == account) {
                    add(Allowance {
                        kind: match g.kind {
                            Decoded::Permit2 => RightKind::Permit2Allowance,
                            Decoded::CreditDelegation => RightKind::CreditDelegation,
                        },
                        contract: g.recorder,
                        token: g.token,
                        holder: g.holder,
                        amount: g.amount,
                    });
                }
            }
            // A known rights function whose arguments do not decode: its size is unknown.
            Err(_) => add(Allowance {
                kind: match right_kind(&call.data) {
                    Some(Decoded::CreditDelegation) => RightKind::CreditDelegation,
                    _ => RightKind::Permit2Allowance,
                },
                contract: call.target,
                token: None,
                holder: Address::ZERO,
                amount: U256::MAX,
            }),
        }
    }
    out.retain(|a| !a.amount.is_zero());
    out
}

/// Check 7's part: the size of Permit2 allowances and credit delegations.
pub(crate) fn sizes(ctx: &Ctx<'_>, out: &mut Out) {
    if !ctx.policy.forbid_unlimited_approval {
        return;
    }
    for a in allowances(ctx) {
        let what = format!(
            "{} of {} {} to {} through {}",
            describe(a.kind),
            a.amount,
            a.token
                .map_or_else(|| "an unknown token".to_owned(), |t| format!("token {t}")),
            a.holder,
            a.contract
        );
        if is_unlimited_approval(a.amount) {
            push(out, Code::UnlimitedApproval, format!("{what} is unlimited"));
            continue;
        }
        match a.token.and_then(|t| ctx.policy.spend_cap(t)) {
            Some(cap) if a.amount <= cap => {}
            Some(cap) => push(
                out,
                Code::ApprovalExceedsCap,
                format!("{what} exceeds the token's spend cap {cap}"),
            ),
            None => push(
                out,
                Code::ApprovalExceedsCap,
                format!("{what}, which has no spend cap"),
            ),
        }
    }
}

/// Check 21's part: who holds the rights.
pub(crate) fn holders(ctx: &Ctx<'_>, out: &mut Out) {
    let p = ctx.policy.policy();
    let counterparty = |a: &Address| {
        p.allowed_targets.contains(a) || p.allowed_touched.contains(a) || ctx.in_trusted_protocol(a)
    };
    let mut judged: Vec<(Code, Address)> = Vec::new();
    let mut once = |out: &mut Out, code: Code, holder: Address, message: String| {
        if !judged.contains(&(code, holder)) {
            judged.push((code, holder));
            push(out, code, message);
        }
    };
    for a in allowances(ctx) {
        if !counterparty(&a.holder) {
            once(
                out,
                Code::SpenderNotAllowed,
                a.holder,
                format!(
                    "{} through {} to {}, which is not an allowed counterparty",
                    describe(a.kind),
                    a.contract,
                    a.holder
                ),
            );
        }
    }
    let Some(report) = ctx.report else { return };
    let account = ctx.intent.account;
    let known = |a: &Address| {
        *a == account
            || counterparty(a)
            || p.allowed_tokens.contains(a)
            || p.allowed_recipients.contains(a)
            || p.fee_recipients.contains(a)
    };
    for r in report.rights.iter().filter(|r| !r.is_allowance()) {
        // Known or not, the operator can move items the bounds cannot name.
        if r.kind == RightKind::StandingOperator {
            once(
                out,
                Code::StandingOperator,
                r.holder,
                format!(
                    "{} touched by the execution is already an operator of every item the account holds of {}: the bounds cannot hold items they do not name",
                    r.holder, r.contract
                ),
            );
            continue;
        }
        let slot = r.slot.map_or_else(String::new, |s| format!(" (slot {s})"));
        // What a record under an opaque value authorises is unknown: refused unless the user
        // trusts that contract with such records.
        if r.kind == RightKind::OpaqueKey {
            if !p.opaque_key_targets.contains(&r.contract) {
                once(
                    out,
                    Code::OpaqueAuthorization,
                    r.contract,
                    format!(
                        "{} recorded something{slot} under a value the calls passed whole that is no address and no constant of its code (an order's digest, a pre-signature): what it authorises cannot be read; name the contract in opaque_key_targets only once you have read what its records authorise",
                        r.contract
                    ),
                );
            }
            continue;
        }
        if known(&r.holder) {
            continue;
        }
        let (code, message) = match r.kind {
            RightKind::DisplacedAccount => (
                Code::ControllerNotAllowed,
                format!(
                    "a slot of {}{slot} held the account's address and now holds {}, which is no known party",
                    r.contract, r.holder
                ),
            ),
            RightKind::CreatedContract => (
                Code::WalletOwnerNotAllowed,
                format!(
                    "{}, created by the execution, names {}{slot}, which is no known party",
                    r.contract, r.holder
                ),
            ),
            _ => (
                Code::RoleHolderNotAllowed,
                format!(
                    "{} recorded {}{slot}, which the calls or their events name and is no known party",
                    r.contract, r.holder
                ),
            ),
        };
        once(out, code, r.holder, message);
    }
}

/// The amount of the allowance-like right of `token` held by `holder`, if there is one (for
/// the claims check).
pub(super) fn right_amount(ctx: &Ctx<'_>, token: Address, holder: Address) -> Option<U256> {
    allowances(ctx)
        .into_iter()
        .filter(|a| a.token == Some(token) && a.holder == holder)
        .map(|a| a.amount)
        .max()
}
