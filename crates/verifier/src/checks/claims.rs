//! 19. The agent's claims against the derived facts.
//!
//! Evidence comes from two trusted sources. Calldata: a decoded call fixes an outflow
//! exactly (or a range, for an exact-output swap) and an approval exactly; once every call
//! is decoded, silence means "none". The trace: when the report lists token flows, a token it
//! does not show did not leave the account (ether only when the report lists ether flows);
//! traced approvals are compared where the report lists them, and touched contracts where the
//! report lists them and the agent claims any (an agent cannot be expected to know every
//! frame of a trace, and the touched-contract allowlist judges the trace itself). A claim
//! that disagrees with any evidence, a fact that is not claimed, and a claim no evidence
//! supports (where the evidence is complete) are all violations.
//!
//! Claims cover ERC-20 approvals (and the `Approval` logs of collections). The rights other
//! contracts record (Permit2 allowances, credit delegation, control handed over in storage)
//! are judged from the trace and the calldata without a claim; a claimed approval of the same
//! token and holder as a Permit2 allowance or a credit delegation is consistent when it
//! claims that right's amount.

use super::{Ctx, Out, push};
use alloy_primitives::U256;
use pace_types::{ETH, ViolationCode as Code};

/// Check 19: `OUTFLOW_CLAIM_MISMATCH`, `APPROVAL_CLAIM_MISMATCH`, `TOUCHED_CLAIM_MISMATCH`.
pub(crate) fn claims(ctx: &Ctx<'_>, out: &mut Out) {
    outflows(ctx, out);
    approvals(ctx, out);
    touched(ctx, out);
}

fn describe_claim(claimed: Option<U256>) -> String {
    claimed.map_or_else(
        || "no outflow is claimed".to_owned(),
        |c| format!("the claim is {c}"),
    )
}

fn outflows(ctx: &Ctx<'_>, out: &mut Out) {
    let facts = ctx.facts;
    for o in &facts.outflows {
        let claimed = o.claimed.unwrap_or_default();
        let token = o.token;
        // Calls the decoder does not know can move a token too: then the decoded amount is
        // only the least that leaves (ether leaves only as call value, always exact).
        let complete = facts.fully_decoded || token == ETH;
        if let Some((lo, hi)) = o.decoded
            && (claimed < lo || (complete && claimed > hi))
        {
            let moves = if lo == hi {
                format!("{lo}")
            } else {
                format!("between {lo} and {hi}")
            };
            push(
                out,
                Code::OutflowClaimMismatch,
                format!(
                    "outflow of token {token}: the calldata moves {moves}, {}",
                    describe_claim(o.claimed)
                ),
            );
            continue;
        }
        let traced_evidence = if token == ETH {
            o.traced.is_some()
        } else {
            facts.report_has_flows
        };
        if traced_evidence {
            let traced = o.traced.unwrap_or_default();
            if claimed != traced {
                push(
                    out,
                    Code::OutflowClaimMismatch,
                    format!(
                        "outflow of token {token}: the trace shows {traced}, {}",
                        describe_claim(o.claimed)
                    ),
                );
            }
        }
    }
}

fn approvals(ctx: &Ctx<'_>, out: &mut Out) {
    let facts = ctx.facts;
    for a in &facts.allowances {
        let (token, spender) = (a.token, a.spender);
        let what = format!("approval of token {token} to {spender}");
        let claim = a.claimed.map_or_else(
            || "it is not claimed".to_owned(),
            |c| format!("the claim is {c}"),
        );
        if a.claim_conflict {
            push(
                out,
                Code::ApprovalClaimMismatch,
                format!("{what}: the claims list it twice with different amounts"),
            );
        } else if let Some(d) = a.decoded.filter(|&d| a.claimed != Some(d)) {
            push(
                out,
                Code::ApprovalClaimMismatch,
                format!("{what}: the calldata approves {d}, {claim}"),
            );
        } else if let Some(t) = a.traced.filter(|&t| a.claimed != Some(t)) {
            push(
                out,
                Code::ApprovalClaimMismatch,
                format!("{what}: the trace shows {t}, {claim}"),
            );
        } else if a.decoded.is_none() && a.traced.is_none() {
            // A right recorded outside the token (a Permit2 allowance, a credit delegation)
            // supports a claim of the same token and holder with its amount.
            match super::rights::right_amount(ctx, token, spender) {
                Some(r) if a.claimed != Some(r) => push(
                    out,
                    Code::ApprovalClaimMismatch,
                    format!("{what}: the trace and the calldata show a right of {r}, {claim}"),
                ),
                Some(_) => {}
                None if facts.fully_decoded || facts.report_has_approvals => push(
                    out,
                    Code::ApprovalClaimMismatch,
                    format!("{what}: claimed, but neither the calldata nor the trace grants it"),
                ),
                None => {}
            }
        }
    }
}

fn touched(ctx: &Ctx<'_>, out: &mut Out) {
    let Some(report) = ctx.report.filter(|r| !r.touched_contracts.is_empty()) else {
        return;
    };
    let traced = &report.touched_contracts;
    let claimed = &ctx.intent.claimed.touched;
    if claimed.is_empty() {
        return;
    }
    for (i, addr) in traced.iter().enumerate() {
        if !claimed.contains(addr) && !traced[..i].contains(addr) {
            push(
                out,
                Code::TouchedClaimMismatch,
                format!("the execution touched {addr}, which the claims omit"),
            );
        }
    }
    for (i, addr) in claimed.iter().enumerate() {
        if !traced.contains(addr) && !claimed[..i].contains(addr) {
            push(
                out,
                Code::TouchedClaimMismatch,
                format!("claimed touched contract {addr} was not touched in the simulation"),
            );
        }
    }
}
