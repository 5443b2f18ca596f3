//! [`ApprovedIntent`]: what a PDR can be signed for, and only the verifier makes one.

use pace_types::{Bps, Decision, FactRead, Hashed, Intent};

/// An intent the verifier approved: the intent, the approving [`Decision`] and the time it
/// was judged at, held together.
///
/// Only [`approve`](crate::approve) and [`approve_hashed`](crate::approve_hashed) make one,
/// and only for a decision without violations. Like [`Hashed`], it keeps an invariant by its
/// type: its fields are private, it has no public constructor, no `Default` and no
/// `Deserialize`, and it lends its parts out only by shared reference. So a caller cannot
/// assemble one, read one from a file, turn a rejection into one or swap the intent of one;
/// `pace-signer` signs nothing else, so every signed PDR attests a decision the verifier made,
/// over the exact intent, policy hash and simulation hash it names. The compile-fail tests in
/// `tests/compile_fail/` check that the forgeries do not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovedIntent {
    intent: Hashed<Intent>,
    decision: Decision,
    now: u64,
    relied: Vec<FactRead>,
    outcome_tolerance_bps: Bps,
    min_health_factor_bps: Option<Bps>,
}

impl ApprovedIntent {
    /// The approval of `intent` by `decision` (made at `now`, resting on the reads `relied`,
    /// under a policy of `outcome_tolerance_bps` and `min_health_factor_bps`), or the decision
    /// back when it rejects.
    pub(crate) fn seal(
        intent: Hashed<Intent>,
        decision: Decision,
        now: u64,
        relied: Vec<FactRead>,
        (outcome_tolerance_bps, min_health_factor_bps): (Bps, Option<Bps>),
    ) -> Verdict {
        debug_assert_eq!(decision.intent_hash, intent.hash());
        if decision.approved() {
            Verdict::Approved(Box::new(Self {
                intent,
                decision,
                now,
                relied,
                outcome_tolerance_bps,
                min_health_factor_bps,
            }))
        } else {
            Verdict::Rejected(decision)
        }
    }

    /// The approved intent, with its hash (the decision's `intent_hash`).
    pub fn intent(&self) -> &Hashed<Intent> {
        &self.intent
    }

    /// The approving decision (no violations), with the policy and simulation hashes judged.
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    /// When the intent was judged: the `now` (unix seconds) the verifier was given.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The reads of the judged simulation this approval rests on that the execution can
    /// change (a received share's value by its issuer's own rate, ...): what the signer
    /// re-checks on-chain after the calls. Empty without a report.
    pub fn relied(&self) -> &[FactRead] {
        &self.relied
    }

    /// The approving policy's `outcome_tolerance_bps`: how far the execution may stray from the
    /// simulation, for the signed bounds and for the reads in [`Self::relied`].
    pub fn outcome_tolerance_bps(&self) -> Bps {
        self.outcome_tolerance_bps
    }

    /// The approving policy's `min_health_factor_bps`: the floor of every health factor in
    /// [`Self::relied`].
    pub fn min_health_factor_bps(&self) -> Option<Bps> {
        self.min_health_factor_bps
    }

    /// Gives the decision back, for the audit record; the approval is spent.
    pub fn into_decision(self) -> Decision {
        self.decision
    }
}

/// What [`approve`](crate::approve) concluded: the [`ApprovedIntent`] a PDR can be signed for,
/// or the rejecting [`Decision`] with every violation found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub enum Verdict {
    /// No violations.
    Approved(Box<ApprovedIntent>),
    /// At least one violation.
    Rejected(Decision),
}

impl Verdict {
    /// The decision, either way.
    pub fn decision(&self) -> &Decision {
        match self {
            Self::Approved(a) => a.decision(),
            Self::Rejected(d) => d,
        }
    }

    /// The decision, either way; an approval is spent.
    pub fn into_decision(self) -> Decision {
        match self {
            Self::Approved(a) => a.into_decision(),
            Self::Rejected(d) => d,
        }
    }

    /// The approval, if the intent was approved.
    pub fn approval(&self) -> Option<&ApprovedIntent> {
        match self {
            Self::Approved(a) => Some(a),
            Self::Rejected(_) => None,
        }
    }

    /// The approval, if the intent was approved.
    pub fn into_approval(self) -> Option<ApprovedIntent> {
        match self {
            Self::Approved(a) => Some(*a),
            Self::Rejected(_) => None,
        }
    }
}
