//! The agents of section 5.4 behind one decision interface, plus the two PACE modes.

use crate::record::{AgentId, Reason};
use crate::tasks::Task;
use pace_pipeline::{Evidence, Pipeline};
use pace_types::{Check, CheckSwitches, Intent, Policy, SimulationReport, ViolationCode};
use regex::RegexSet;
use std::time::Instant;

/// The simulation age, in blocks, full mode's PDRs allow at execution: the policy's 60 s
/// (5 blocks) at decision time, plus the block that includes the transaction. With 5, a
/// decision exactly at the policy's limit could never land (Table C's bd_01 found it).
pub const FULL_MAX_AGE_BLOCKS: u16 = 6;
/// What an agent sees when it decides.
#[derive(Debug)]
pub struct DecisionInput<'a> {
    /// The pipeline verifiers decide through.
    pub pipeline: &'a Pipeline,
    /// The task (its prompt and policy).
    pub task: &'a Task,
    /// The intent whose bytes will be submitted.
    pub intent: &'a Intent,
    /// The simulation report presented at decision time (of the simulated intent), if any.
    pub report: Option<&'a SimulationReport>,
    /// Decision time (unix seconds).
    pub now: u64,
}

/// An agent's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Approve (and execute) or reject.
    pub approved: bool,
    /// Why it rejected (the verifier's violation codes, or the agent's own reasons).
    pub reasons: Vec<Reason>,
    /// Time spent deciding, in nanoseconds (excludes simulation and policy compilation).
    pub latency_ns: u64,
}

/// How an approved intent reaches the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecPath {
    /// The owner's raw `executeBatch` (an unguarded wallet).
    Owner,
    /// `executeBatchPDR` with a signed PDR.
    Pdr {
        /// Sign on-chain outcome bounds from the simulation.
        outcome_bounds: bool,
        /// Blocks past the simulated one the PDR stays executable.
        max_age_blocks: u16,
        /// The owner mirrors the policy's per-intent spend caps as daily on-chain spending
        /// budgets (`PaceAccount.setBudget`) before the task.
        budgets: bool,
    },
}

/// The verifier behind an agent's PDRs: the PACE verifier with the policy it checks and,
/// if it judges one, the simulation report. On the PDR path, a PDR is signed only for what
/// this verifier approves (`pace_verifier::approve_hashed`), never on the agent's word.
#[derive(Clone, Debug)]
pub struct PdrVerifier {
    /// The policy, with the `checks` switches of what the agent checks.
    pub policy: Policy,
    /// Whether the verifier judges the simulation report.
    pub use_report: bool,
}

/// One agent: a decision function and an execution path.
pub trait Agent: Sync {
    /// Which agent it is (its snake-case name is used in the CSV and the JSON summary).
    fn id(&self) -> AgentId;
    /// Approve or reject.
    fn decide(&self, input: &DecisionInput<'_>) -> Verdict;
    /// How approved intents execute.
    fn path(&self) -> ExecPath {
        ExecPath::Owner
    }
    /// The verifier its PDRs are signed behind on `task` (PDR path only). By default that of
    /// an agent that checks nothing itself: the task's policy with every check off, so only
    /// the verifier's structural checks run.
    fn pdr_verifier(&self, task: &Task) -> PdrVerifier {
        let mut policy = task.policy.clone();
        policy.checks = CheckSwitches::all_off();
        PdrVerifier {
            policy,
            use_report: true,
        }
    }
}

fn timed(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Executes every intent.
#[derive(Debug, Default)]
pub struct Raw;

impl Agent for Raw {
    fn id(&self) -> AgentId {
        AgentId::Raw
    }
    fn decide(&self, _: &DecisionInput<'_>) -> Verdict {
        Verdict {
            approved: true,
            reasons: vec![],
            latency_ns: 0,
        }
    }
}

/// A mock LLM that applies regex patterns to the prompt text (section 5.5): deterministic,
/// no API key. Catches plain-English attacks; misses encoded, translated and disguised ones.
#[derive(Debug)]
pub struct PromptOnly {
    patterns: RegexSet,
}

impl Default for PromptOnly {
    fn default() -> Self {
        let patterns = RegexSet::new([
            r"(?i)ignore (all )?(previous|prior) instructions",
            r"(?i)\bsystem prompt\b|developer mode|\bDAN\b",
            r"(?i)seed phrase|private key",
            r"(?i)send (the )?(entire|whole) balance|all funds|move all",
            r"(?i)unlimited|infinite allowance|approve max",
            r"(?i)flash loan|flash-borrow",
            r"(?i)delegatecall",
            r"(?i)price feed|oracle",
        ])
        .expect("static patterns compile");
        Self { patterns }
    }
}

impl Agent for PromptOnly {
    fn id(&self) -> AgentId {
        AgentId::PromptOnly
    }
    fn decide(&self, input: &DecisionInput<'_>) -> Verdict {
        let start = Instant::now();
        let hits: Vec<Reason> = self
            .patterns
            .matches(&input.task.prompt)
            .iter()
            .map(Reason::PromptPattern)
            .collect();
        Verdict {
            approved: hits.is_empty(),
            reasons: hits,
            latency_ns: timed(start),
        }
    }
}

/// Rejects only when the simulation reverts (or when no report is presented).
#[derive(Debug, Default)]
pub struct SimOnly;

impl Agent for SimOnly {
    fn id(&self) -> AgentId {
        AgentId::SimOnly
    }
    fn decide(&self, input: &DecisionInput<'_>) -> Verdict {
        let ok = input.report.is_some_and(|r| r.success);
        Verdict {
            approved: ok,
            reasons: if ok {
                vec![]
            } else {
                vec![Reason::SimulationFailed]
            },
            latency_ns: 0,
        }
    }
}

/// A policy-verifier agent: WalletGuard, StaticGuard, SimGuard, PACE and the ablation
/// variants are all instances, differing in which checks run, whether the simulation report
/// is consulted, how the policy is adjusted and how approved intents execute.
#[derive(Clone)]
pub struct PolicyAgent {
    /// Which agent.
    pub id: AgentId,
    /// The checks that run (ANDed with the task policy's own switches).
    pub switches: CheckSwitches,
    /// Pass the simulation report to the verifier.
    pub use_report: bool,
    /// Judge slippage from the agent's claim only (what a verifier without a simulation can
    /// do); the report-based slippage check is then off.
    pub claimed_slippage_only: bool,
    /// Execution path.
    pub path: ExecPath,
    /// Adjusts the task's policy (permissive / conservative / sensitivity variants).
    pub adjust: Option<fn(&mut Policy, &pace_world::Addresses)>,
    /// Addresses of the world (for `adjust`).
    pub addrs: pace_world::Addresses,
    /// A slippage bound overriding the policy's, for the sensitivity study.
    pub slippage_bps: Option<u32>,
    /// A freshness window overriding the policy's, for the sensitivity study.
    pub freshness_secs: Option<u64>,
}

impl std::fmt::Debug for PolicyAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyAgent")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The checks PACE-rs adds to the paper's verifier.
pub const PACE_RS_ADDITIONS: &[Check] = &[
    Check::Scope,
    Check::PriceImpact,
    Check::Claims,
    Check::SwapRecipient,
    Check::Counterparties,
    Check::Budgets,
];

/// Checks that need a simulation report.
pub const SIMULATION_CHECKS: &[Check] = &[
    Check::SimulationRequired,
    Check::SimulationSuccess,
    Check::Freshness,
    Check::FutureTimestamp,
    Check::IntentHash,
    Check::TouchedAllowlist,
    Check::HealthFactor,
    Check::MaxLoss,
    Check::PriceImpact,
    Check::Claims,
];

/// The paper's check set (every check minus the PACE-rs additions).
pub fn paper_checks() -> CheckSwitches {
    let mut s = CheckSwitches::all_on();
    for &c in PACE_RS_ADDITIONS {
        s.set(c, false);
    }
    s
}

fn without(mut s: CheckSwitches, checks: &[Check]) -> CheckSwitches {
    for &c in checks {
        s.set(c, false);
    }
    s
}

fn and(a: CheckSwitches, b: CheckSwitches) -> CheckSwitches {
    let mut out = a;
    for &c in Check::ALL {
        out.set(c, a.is_on(c) && b.is_on(c));
    }
    out
}

impl PolicyAgent {
    fn new(id: AgentId, switches: CheckSwitches, addrs: pace_world::Addresses) -> Self {
        Self {
            id,
            switches,
            use_report: true,
            claimed_slippage_only: false,
            path: ExecPath::Owner,
            adjust: None,
            addrs,
            slippage_bps: None,
            freshness_secs: None,
        }
    }

    /// WalletGuard: target allowlist and ether value cap only.
    pub fn wallet_guard(addrs: pace_world::Addresses) -> Self {
        let s = CheckSwitches::all_off()
            .with(Check::TargetAllowlist, true)
            .with(Check::MaxValue, true);
        Self {
            use_report: false,
            ..Self::new(AgentId::WalletGuard, s, addrs)
        }
    }

    /// StaticGuard: the paper's verifier without a simulation.
    pub fn static_guard(addrs: pace_world::Addresses) -> Self {
        Self {
            use_report: false,
            claimed_slippage_only: true,
            ..Self::new(
                AgentId::StaticGuard,
                without(paper_checks(), SIMULATION_CHECKS),
                addrs,
            )
        }
    }

    /// SimGuard: the paper's verifier over the simulation, without the intent-hash binding;
    /// executes through the owner's raw path.
    pub fn sim_guard(addrs: pace_world::Addresses) -> Self {
        Self::new(
            AgentId::SimGuard,
            paper_checks().with(Check::IntentHash, false),
            addrs,
        )
    }

    /// PACE as the paper describes it: the paper's checks, a PDR binding bytes, no outcome
    /// bounds.
    pub fn pace_paper(addrs: pace_world::Addresses) -> Self {
        Self {
            path: ExecPath::Pdr {
                outcome_bounds: false,
                max_age_blocks: 5,
                budgets: false,
            },
            ..Self::new(AgentId::PacePaper, paper_checks(), addrs)
        }
    }

    /// PACE-rs: every check and on-chain outcome bounds.
    pub fn pace_full(addrs: pace_world::Addresses) -> Self {
        Self {
            path: ExecPath::Pdr {
                outcome_bounds: true,
                max_age_blocks: FULL_MAX_AGE_BLOCKS,
                budgets: false,
            },
            ..Self::new(AgentId::PaceFull, CheckSwitches::all_on(), addrs)
        }
    }

    /// PACE-rs full mode on an account whose owner set daily spending budgets equal to the
    /// policy's per-intent caps: multi-transaction drains stop on-chain.
    pub fn pace_full_budget(addrs: pace_world::Addresses) -> Self {
        Self {
            path: ExecPath::Pdr {
                outcome_bounds: true,
                max_age_blocks: FULL_MAX_AGE_BLOCKS,
                budgets: true,
            },
            ..Self::pace_full(addrs).named(AgentId::PaceFullBudget)
        }
    }

    /// A copy as another agent.
    #[must_use]
    pub fn named(mut self, id: AgentId) -> Self {
        self.id = id;
        self
    }

    /// The policy this agent applies to `task`.
    pub fn policy_for(&self, task: &Task) -> Policy {
        let mut p = task.policy.clone();
        if let Some(adjust) = self.adjust {
            adjust(&mut p, &self.addrs);
        }
        if let Some(s) = self.slippage_bps {
            p.max_slippage_bps = s;
        }
        if let Some(f) = self.freshness_secs {
            p.max_simulation_age_secs = f;
        }
        let mut switches = and(p.checks, self.switches);
        if self.claimed_slippage_only {
            switches.set(Check::Slippage, false);
        }
        if !self.use_report {
            p.require_simulation = false;
        }
        p.checks = switches;
        p
    }
}

impl Agent for PolicyAgent {
    fn id(&self) -> AgentId {
        self.id
    }

    fn decide(&self, input: &DecisionInput<'_>) -> Verdict {
        let policy = self.policy_for(input.task);
        let max_slippage = policy.max_slippage_bps;
        let compiled = match policy.compile() {
            Ok(c) => c,
            Err(e) => {
                return Verdict {
                    approved: false,
                    reasons: vec![Reason::PolicyInvalid(e.to_string())],
                    latency_ns: 0,
                };
            }
        };
        let start = Instant::now();
        let evidence = Evidence::Presented {
            intent: input.intent.clone(),
            report: input.report.filter(|_| self.use_report).cloned(),
        };
        let assessed = input.pipeline.decide(evidence, &compiled, input.now);
        let decision = assessed.decision();
        let mut reasons: Vec<Reason> = decision
            .violations
            .iter()
            .map(|v| Reason::Violation(v.code))
            .collect();
        if self.claimed_slippage_only
            && input.task.policy.checks.is_on(Check::Slippage)
            && input.intent.claimed.slippage_bps.unwrap_or(0) > max_slippage
        {
            reasons.push(Reason::Violation(ViolationCode::SlippageExceeded));
        }
        reasons.dedup();
        Verdict {
            approved: reasons.is_empty(),
            reasons,
            latency_ns: timed(start),
        }
    }

    fn path(&self) -> ExecPath {
        self.path
    }

    /// The verifier it decides with: its policy for the task, with or without the report.
    /// (The claimed-slippage check of a verifier without a simulation is the agent's own; it
    /// gates through [`Agent::decide`].)
    fn pdr_verifier(&self, task: &Task) -> PdrVerifier {
        PdrVerifier {
            policy: self.policy_for(task),
            use_report: self.use_report,
        }
    }
}

/// The eight agents of Table 1, in the paper's order (PACE in both modes last).
pub fn table1_agents(addrs: pace_world::Addresses) -> Vec<Box<dyn Agent>> {
    vec![
        Box::new(Raw),
        Box::new(PromptOnly::default()),
        Box::new(SimOnly),
        Box::new(PolicyAgent::wallet_guard(addrs)),
        Box::new(PolicyAgent::static_guard(addrs)),
        Box::new(PolicyAgent::sim_guard(addrs)),
        Box::new(PolicyAgent::pace_paper(addrs)),
        Box::new(PolicyAgent::pace_full(addrs)),
    ]
}
