//! The entry points: [`verify`] and [`verify_hashed`] judge; [`approve`] and
//! [`approve_hashed`] judge and, for an approval, hand out the [`ApprovedIntent`] to sign.

use crate::{ApprovedIntent, Verdict, checks, facts::Facts, signatures};
use alloy_primitives::B256;
use pace_types::{
    Check, CompiledPolicy, Decision, Hashed, Intent, SimulationReport, Violation, ViolationCode,
};

/// Judges `intent` (with its simulation `report`, if any) against `policy` at unix time `now`.
///
/// Pure and deterministic: no I/O, no clock (the caller passes `now`), no randomness; the
/// same inputs give a byte-identical [`Decision`]. Every check runs (unless switched off in
/// `policy.checks`), and every violation is reported, in the order of [`Check::ALL`] (the
/// structural `NO_CALLS` / `MALFORMED_CALLDATA` first). The decision is an approval iff there
/// are no violations.
///
/// Computes the intent and report hashes itself (most of its cost: keccak over their
/// canonical JSON). To judge values hashed once up front, use [`verify_hashed`]; both give the
/// same decision.
pub fn verify(
    intent: &Intent,
    policy: &CompiledPolicy,
    report: Option<&SimulationReport>,
    now: u64,
) -> Decision {
    judge(
        intent,
        intent.intent_hash(),
        policy,
        report.map(|r| (r, r.simulation_hash())),
        now,
    )
}

/// [`verify`] for an intent and report whose hashes were computed once, when they were
/// wrapped in [`Hashed`] (which cannot be mutated afterwards, so the hashes are exact).
pub fn verify_hashed(
    intent: &Hashed<Intent>,
    policy: &CompiledPolicy,
    report: Option<&Hashed<SimulationReport>>,
    now: u64,
) -> Decision {
    judge(
        intent.get(),
        intent.hash(),
        policy,
        report.map(|r| (r.get(), r.hash())),
        now,
    )
}

/// [`verify`], and for an approval the [`ApprovedIntent`] a PDR can be signed for: the only
/// way to get one. The decision is the one [`verify`] gives.
pub fn approve(
    intent: &Intent,
    policy: &CompiledPolicy,
    report: Option<&SimulationReport>,
    now: u64,
) -> Verdict {
    let intent = Hashed::new(intent.clone());
    let decision = judge(
        intent.get(),
        intent.hash(),
        policy,
        report.map(|r| (r, r.simulation_hash())),
        now,
    );
    let relied = report.map_or_else(Vec::new, |r| {
        crate::relied::relied(r, policy.policy(), intent.account)
    });
    let p = policy.policy();
    let limits = (p.outcome_tolerance_bps, p.min_health_factor_bps);
    ApprovedIntent::seal(intent, decision, now, relied, limits)
}

/// [`approve`] for an intent and report hashed once up front (see [`verify_hashed`]). Takes
/// the intent by value: an approval keeps it.
pub fn approve_hashed(
    intent: Hashed<Intent>,
    policy: &CompiledPolicy,
    report: Option<&Hashed<SimulationReport>>,
    now: u64,
) -> Verdict {
    let decision = verify_hashed(&intent, policy, report, now);
    let relied = report.map_or_else(Vec::new, |r| {
        crate::relied::relied(r.get(), policy.policy(), intent.account)
    });
    let p = policy.policy();
    let limits = (p.outcome_tolerance_bps, p.min_health_factor_bps);
    ApprovedIntent::seal(intent, decision, now, relied, limits)
}

/// The most calls an intent may carry.
pub const MAX_CALLS: usize = 64;
/// The most entries any claim list or the metadata may carry.
pub const MAX_LIST_LEN: usize = 256;
/// The most entries any list of a simulation report may carry. Reports come from the trusted
/// simulator, but `pace verify` reads them from files, and the checks compare them pairwise.
pub const MAX_REPORT_LIST_LEN: usize = 4096;

/// The most assets one price fact may be worth.
pub const MAX_PRICE_LEGS: usize = 8;

/// `TOO_LARGE` when the intent exceeds [`MAX_CALLS`] or [`MAX_LIST_LEN`], or a report list
/// exceeds [`MAX_REPORT_LIST_LEN`]; the verifier then stops there, so an oversized input costs
/// linear time only.
fn oversized(intent: &Intent, report: Option<&SimulationReport>) -> Option<Violation> {
    let c = &intent.claimed;
    let lists = [
        ("calls", intent.calls.len(), MAX_CALLS),
        ("claimed.approvals", c.approvals.len(), MAX_LIST_LEN),
        ("claimed.outflows", c.outflows.len(), MAX_LIST_LEN),
        ("claimed.touched", c.touched.len(), MAX_LIST_LEN),
        ("metadata", intent.metadata.len(), MAX_LIST_LEN),
    ];
    let report_lists = report.map(|r| {
        [
            ("the report's touched_contracts", r.touched_contracts.len()),
            ("the report's precompiles", r.precompiles.len()),
            ("the report's token_flows", r.token_flows.len()),
            ("the report's approvals", r.approvals.len()),
            ("the report's balance_changes", r.balance_changes.len()),
            ("the report's budgets", r.budgets.len()),
            ("the report's nft_flows", r.nft_flows.len()),
            ("the report's prices", r.prices.len()),
            ("the report's positions", r.positions.len()),
            ("the report's minters", r.minters.len()),
            ("the report's burners", r.burners.len()),
            // Rights and lending health (adapters).
            ("the report's lending", r.lending.len()),
            ("the report's rights", r.rights.len()),
            ("the report's item_approvals", r.item_approvals.len()),
            ("the report's unread_positions", r.unread_positions.len()),
        ]
        .map(|(name, len)| (name, len, MAX_REPORT_LIST_LEN))
    });
    // A rate is worth one asset (a pool side, a vault's asset, a feed's quote) or two (an LP
    // token); a longer list is no rate the simulator writes.
    let worth = report
        .and_then(|r| r.prices.iter().map(|p| p.worth.len()).max())
        .map(|len| ("a price fact's worth", len, MAX_PRICE_LEGS));
    lists
        .iter()
        .chain(report_lists.iter().flatten())
        .chain(worth.iter())
        .find(|(_, len, max)| len > max)
        .map(|(name, len, max)| {
            Violation::new(
                ViolationCode::TooLarge,
                format!("{name} has {len} entries, more than the {max} allowed"),
            )
        })
}

fn judge(
    intent: &Intent,
    intent_hash: B256,
    policy: &CompiledPolicy,
    report: Option<(&SimulationReport, B256)>,
    now: u64,
) -> Decision {
    let (report, simulation_hash) = match report {
        Some((r, h)) => (Some(r), Some(h)),
        None => (None, None),
    };
    // Bound the work an agent can demand: the checks compare agent-supplied lists pairwise.
    if let Some(v) = oversized(intent, report) {
        return Decision::new(intent_hash, policy.policy_hash(), simulation_hash, vec![v]);
    }
    // The account's own signatures are judged as the calls that grant what they grant.
    let (judged, mut violations) = signatures::judged(intent);
    let intent = judged.as_ref();
    let mut facts = Facts::derive(intent, report);
    // Rights and lending health (adapters): `approve(address,uint256)` on a collection.
    facts.classify_item_approvals(intent, policy, report);
    let ctx = checks::Ctx {
        intent,
        policy,
        report,
        now,
        intent_hash,
        facts: &facts,
    };
    checks::structural(&ctx, &mut violations);
    for &check in Check::ALL {
        if policy.checks.is_on(check) {
            checks::run(check, &ctx, &mut violations);
        }
    }
    Decision::new(
        intent_hash,
        policy.policy_hash(),
        simulation_hash,
        violations,
    )
}
