//! Planted bugs, for `make planted` only: does the benchmark notice a broken check?
//!
//! Each [`Bug`] is a one-line fault in the verifier, the policy compiler or the signer, written
//! next to the code it breaks as `if planted(Bug::X) { faulty } else { correct }`. Without the
//! `planted` cargo feature, which nothing but `make planted` enables (in its own target
//! directory), [`planted`] is a constant `false` and the faulty branches compile away. With it,
//! the bug named by the `PACE_PLANTED` environment variable is active for the whole process.

use std::fmt;

/// A bug `make planted` can plant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// An approval of exactly `type(uint256).max` is not seen as unlimited.
    UnlimitedSkipsMax,
    /// The touched-contract allowlist ignores the last contract touched.
    TouchedIgnoresLast,
    /// Any touched contract is accepted as a counterparty.
    AnyTouchedIsCounterparty,
    /// Metadata is matched without folding (hidden characters, confusables).
    MetadataNotFolded,
    /// Metadata patterns compile case-sensitively.
    PatternsCaseSensitive,
    /// Freshness rejects at `age >= max` instead of `age > max`.
    FreshnessInclusive,
    /// The intent hash is compared on its first 4 bytes.
    IntentHashPrefix,
    /// Spend caps see only the declared amounts, not the traced and net outflow.
    SpendCapsDeclaredOnly,
    /// A call without calldata skips the target allowlist.
    EmptyCalldataSkipsTargets,
    /// The signer's outcome ceiling is `scale − tolerance` instead of `scale + tolerance`.
    CeilingScaleMinusTolerance,
    /// The signer reads the outcome tolerance as percent instead of bps.
    TolerancePercent,
    /// The selector allowlist checks only the first call.
    SelectorsFirstCallOnly,
    /// The value cap rejects ether exactly at `max_value_wei` (`>=` instead of `>`). (It
    /// replaces "the value cap checks each call, not the batch total", an equivalent mutant:
    /// the check's second branch, the traced ether outflow, always sees the batch total.)
    ValueCapInclusive,
    /// The health-factor minimum is compared 10 % low.
    HealthFactorLenient,
    /// A failed simulation is accepted.
    SimulationFailureIgnored,
    /// Value conservation ignores assets nobody prices.
    UnpricedIgnored,
    /// The signer leaves out the floor on arriving tokens (`minIn`).
    NoMinIn,
}

impl Bug {
    /// Every bug, in the order `make planted` plants them.
    pub const ALL: &'static [Self] = &[
        Self::UnlimitedSkipsMax,
        Self::TouchedIgnoresLast,
        Self::AnyTouchedIsCounterparty,
        Self::MetadataNotFolded,
        Self::PatternsCaseSensitive,
        Self::FreshnessInclusive,
        Self::IntentHashPrefix,
        Self::SpendCapsDeclaredOnly,
        Self::EmptyCalldataSkipsTargets,
        Self::CeilingScaleMinusTolerance,
        Self::TolerancePercent,
        Self::SelectorsFirstCallOnly,
        Self::ValueCapInclusive,
        Self::HealthFactorLenient,
        Self::SimulationFailureIgnored,
        Self::UnpricedIgnored,
        Self::NoMinIn,
    ];

    /// The name `PACE_PLANTED` takes.
    pub const fn name(self) -> &'static str {
        match self {
            Self::UnlimitedSkipsMax => "unlimited_skips_max",
            Self::TouchedIgnoresLast => "touched_ignores_last",
            Self::AnyTouchedIsCounterparty => "any_touched_is_counterparty",
            Self::MetadataNotFolded => "metadata_not_folded",
            Self::PatternsCaseSensitive => "patterns_case_sensitive",
            Self::FreshnessInclusive => "freshness_inclusive",
            Self::IntentHashPrefix => "intent_hash_prefix",
            Self::SpendCapsDeclaredOnly => "spend_caps_declared_only",
            Self::EmptyCalldataSkipsTargets => "empty_calldata_skips_targets",
            Self::CeilingScaleMinusTolerance => "ceiling_scale_minus_tolerance",
            Self::TolerancePercent => "tolerance_percent",
            Self::SelectorsFirstCallOnly => "selectors_first_call_only",
            Self::ValueCapInclusive => "value_cap_inclusive",
            Self::HealthFactorLenient => "health_factor_lenient",
            Self::SimulationFailureIgnored => "simulation_failure_ignored",
            Self::UnpricedIgnored => "unpriced_ignored",
            Self::NoMinIn => "no_min_in",
        }
    }
}

impl fmt::Display for Bug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `bug` is planted in this process: never without the `planted` feature.
#[cfg(not(feature = "planted"))]
#[inline(always)]
pub const fn planted(_bug: Bug) -> bool {
    false
}

/// Whether `bug` is planted in this process: `PACE_PLANTED` names it.
#[cfg(feature = "planted")]
pub fn planted(bug: Bug) -> bool {
    static ACTIVE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    ACTIVE
        .get_or_init(|| std::env::var("PACE_PLANTED").ok())
        .as_deref()
        == Some(bug.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_nothing_is_planted_by_default() {
        let mut names: Vec<&str> = Bug::ALL.iter().map(|b| b.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Bug::ALL.len());
        #[cfg(not(feature = "planted"))]
        assert!(Bug::ALL.iter().all(|&b| !planted(b)));
    }
}
