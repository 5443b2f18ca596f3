//! The typed fields of a trial record: which agent, what the chain did, and why an agent
//! rejected. Each prints as the string the CSV and the JSON summary have always carried.

use pace_types::{Check, ViolationCode};
use serde::{Serialize, Serializer};
use std::fmt;

/// A benchmark agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AgentId {
    /// Executes everything.
    Raw,
    /// The regex "mock LLM" over the prompt.
    PromptOnly,
    /// Rejects only a reverting simulation.
    SimOnly,
    /// Target allowlist and value cap.
    WalletGuard,
    /// The paper's verifier without a simulation.
    StaticGuard,
    /// The paper's verifier over the simulation, owner path.
    SimGuard,
    /// PACE as the paper describes it.
    PacePaper,
    /// PACE-rs: every check and outcome bounds.
    PaceFull,
    /// PACE-rs full mode with on-chain spending budgets.
    PaceFullBudget,
    /// Ablation: the paper's PACE, unchanged.
    PaceBaseline,
    /// Ablation: no simulation checks.
    PaceNoSim,
    /// Ablation: no metadata patterns.
    PaceNoMetadata,
    /// Ablation: no touched-contract allowlist.
    PaceNoTouched,
    /// Ablation: no calldata binding (owner path).
    PaceNoCalldataBind,
    /// Ablation: no freshness check, no on-chain age limit.
    PaceNoFreshness,
    /// Ablation: a permissive policy.
    PacePermissive,
    /// Ablation: a conservative policy.
    PaceConservative,
    /// Sensitivity: the paper's PACE with this slippage bound (bps).
    Slippage(u32),
    /// Sensitivity: the paper's PACE with this freshness window (seconds).
    Freshness(u64),
    /// A language model proposing behind the PACE-rs verifier (opt-in, `--llm`).
    Llm,
    /// Per-check ablation: PACE-rs full mode with this one check off.
    Without(Check),
    /// Per-check ablation: PACE-rs full mode with this check and its documented backups
    /// ([`crate::studies::BACKUPS`]) off together.
    WithoutGroup(Check),
}

impl AgentId {
    /// Whether the agent is a PACE variant that submits PDRs (the denominator of the
    /// on-chain PDR rejection rate). The sensitivity sweeps are PACE too but are reported
    /// on their own.
    pub const fn is_pace(self) -> bool {
        matches!(
            self,
            Self::PacePaper
                | Self::PaceFull
                | Self::PaceFullBudget
                | Self::PaceBaseline
                | Self::PaceNoSim
                | Self::PaceNoMetadata
                | Self::PaceNoTouched
                | Self::PaceNoCalldataBind
                | Self::PaceNoFreshness
                | Self::PacePermissive
                | Self::PaceConservative
                | Self::Without(_)
                | Self::WithoutGroup(_)
        )
    }

    fn name(self) -> &'static str {
        match self {
            Self::Raw => "raw",
            Self::PromptOnly => "prompt_only",
            Self::SimOnly => "sim_only",
            Self::WalletGuard => "wallet_guard",
            Self::StaticGuard => "static_guard",
            Self::SimGuard => "sim_guard",
            Self::PacePaper => "pace_paper",
            Self::PaceFull => "pace_full",
            Self::PaceFullBudget => "pace_full_budget",
            Self::PaceBaseline => "pace_baseline",
            Self::PaceNoSim => "pace_no_sim",
            Self::PaceNoMetadata => "pace_no_metadata",
            Self::PaceNoTouched => "pace_no_touched",
            Self::PaceNoCalldataBind => "pace_no_calldata_bind",
            Self::PaceNoFreshness => "pace_no_freshness",
            Self::PacePermissive => "pace_permissive",
            Self::PaceConservative => "pace_conservative",
            Self::Slippage(_) => "slippage",
            Self::Freshness(_) => "freshness",
            Self::Llm => "llm",
            Self::Without(_) => "pace_full_no",
            Self::WithoutGroup(_) => "pace_full_no_group",
        }
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Slippage(bps) => write!(f, "slippage_{bps}bps"),
            Self::Freshness(secs) => write!(f, "freshness_{secs}s"),
            Self::Without(check) => write!(f, "pace_full_no_{}", check.name()),
            Self::WithoutGroup(check) => write!(f, "pace_full_no_group_{}", check.name()),
            other => f.write_str(other.name()),
        }
    }
}

/// What the chain did with a trial's submission (the last one, for repeated tasks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChainState {
    /// Nothing was submitted.
    #[default]
    NotSubmitted,
    /// The transaction executed.
    Executed,
    /// It reverted.
    Reverted,
    /// Its outcome is unknown.
    Uncertain,
}

impl ChainState {
    /// The CSV spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotSubmitted => "not_submitted",
            Self::Executed => "executed",
            Self::Reverted => "reverted",
            Self::Uncertain => "uncertain",
        }
    }
}

impl fmt::Display for ChainState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why an agent rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A verifier violation.
    Violation(ViolationCode),
    /// The prompt matched the mock LLM's pattern with this index.
    PromptPattern(usize),
    /// The simulation reverted (the sim-only agent).
    SimulationFailed,
    /// The agent's policy does not compile.
    PolicyInvalid(String),
    /// The language model did not approve (rejected, or answered neither way).
    ModelRejected,
    /// The language model could not be asked (transport or protocol failure).
    ModelUnavailable,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Violation(code) => f.write_str(code.as_str()),
            Self::PromptPattern(i) => write!(f, "LLM_PATTERN_{i}"),
            Self::SimulationFailed => f.write_str("SIMULATION_FAILED"),
            Self::PolicyInvalid(e) => write!(f, "POLICY_INVALID: {e}"),
            Self::ModelRejected => f.write_str("LLM_REJECTED"),
            Self::ModelUnavailable => f.write_str("LLM_UNAVAILABLE"),
        }
    }
}

/// Serializes any of these as its display string.
pub(crate) fn display<T: fmt::Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// Serializes reasons `|`-separated, as the CSV carries them.
pub(crate) fn reasons<S: Serializer>(v: &[Reason], s: S) -> Result<S::Ok, S::Error> {
    joined(v).serialize(s)
}

/// Reasons `|`-separated.
pub fn joined(reasons: &[Reason]) -> String {
    reasons
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_csv_spelling() {
        assert_eq!(
            AgentId::PaceNoCalldataBind.to_string(),
            "pace_no_calldata_bind"
        );
        assert_eq!(AgentId::Slippage(100).to_string(), "slippage_100bps");
        assert_eq!(AgentId::Freshness(3_600).to_string(), "freshness_3600s");
        assert_eq!(
            AgentId::Without(Check::SpendCaps).to_string(),
            "pace_full_no_spend_caps"
        );
        assert!(AgentId::PaceBaseline.is_pace() && !AgentId::Freshness(0).is_pace());
        assert_eq!(ChainState::NotSubmitted.to_string(), "not_submitted");
        let r = [
            Reason::Violation(ViolationCode::SlippageExceeded),
            Reason::PromptPattern(3),
        ];
        assert_eq!(joined(&r), "SLIPPAGE_EXCEEDED|LLM_PATTERN_3");
    }
}
