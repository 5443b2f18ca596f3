//! The studies: Table 1 (agents × tasks × seeds), Table G (generality: Table 1's agents on
//! the generality suite, same seeds), Table 2 (ablation), the sensitivity sweeps and Table 4
//! (adaptive adversary).

use crate::agents::{Agent, ExecPath, PolicyAgent, Raw, SIMULATION_CHECKS, table1_agents};
use crate::record::AgentId;
use crate::tasks::{
    Task, adaptive_suite, boundary_suite, conservative_policy, general_suite, per_check_suite,
    suite,
};
use crate::trial::{Bench, Trial};
use crate::{Error, Result};
use alloy_primitives::U256;
use pace_types::{Check, Policy};
use pace_world::Addresses;

/// Which studies to run, on which seeds.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Seeds of the main study (Table 1).
    pub seeds: Vec<u64>,
    /// Seed of the ablation and sensitivity studies.
    pub ablation_seed: u64,
    /// Seed of the adaptive-adversary study.
    pub adaptive_seed: u64,
    /// Run Table 1.
    pub table1: bool,
    /// Run Table G (the generality suite, on the seeds of Table 1).
    pub general: bool,
    /// Run the ablation and sensitivity studies.
    pub ablation: bool,
    /// Run the adaptive-adversary study.
    pub adaptive: bool,
    /// Worker threads of the multi-seed studies (Tables 1 and G); [`default_threads`] by
    /// default. The trials do not depend on it.
    pub threads: usize,
    /// The opt-in language-model study: Table 1's tasks on the same seeds, judged by this
    /// model behind the PACE-rs verifier. `None` (the default) runs no model.
    pub llm: Option<crate::llm::LlmStudy>,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            seeds: (0..10).collect(),
            ablation_seed: 42,
            adaptive_seed: 0,
            table1: true,
            general: true,
            ablation: true,
            adaptive: true,
            threads: default_threads(),
            llm: None,
        }
    }
}

/// Every core the machine offers (`std::thread::available_parallelism`), or 1 when that is
/// unknown.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Trials grouped by seed.
type SeedTrials = Vec<(u64, Vec<Trial>)>;

/// Progress callback: (study, done, total).
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// Runs `agents` on every task of every seed (tasks from `make`), in parallel over seeds.
pub fn run_study(
    bench: &Bench,
    study: &str,
    seeds: &[u64],
    make: &(dyn Fn(&Bench, u64) -> Vec<Task> + Sync),
    agents: &[Box<dyn Agent>],
    threads: usize,
    progress: Progress<'_>,
) -> Result<Vec<Trial>> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = seeds.len();
    let chunks: Vec<Vec<u64>> = {
        let n = threads.max(1);
        (0..n)
            .map(|i| seeds.iter().copied().skip(i).step_by(n).collect())
            .collect()
    };
    let results: Vec<Result<SeedTrials>> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let done = &done;
                s.spawn(move || -> Result<SeedTrials> {
                    let mut out = Vec::new();
                    for &seed in chunk {
                        let trials = seed_trials(bench, study, seed, &make(bench, seed), agents)?;
                        out.push((seed, trials));
                        let d = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                        progress(study, d, total);
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Setup("worker panicked".into())))
            })
            .collect()
    });
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    all.sort_by_key(|(seed, _)| seeds.iter().position(|s| s == seed));
    Ok(all.into_iter().flat_map(|(_, t)| t).collect())
}

fn seed_trials(
    bench: &Bench,
    study: &str,
    seed: u64,
    tasks: &[Task],
    agents: &[Box<dyn Agent>],
) -> Result<Vec<Trial>> {
    let mut out = Vec::new();
    for task in tasks {
        let prep = bench.prepare(task)?;
        // The unguarded execution decides whether the task is dangerous.
        let raw = bench.trial(study, seed, task, &prep, &Raw, false)?;
        let dangerous = raw.unsafe_execution;
        for agent in agents {
            let mut t = if agent.id() == AgentId::Raw {
                raw.clone()
            } else {
                bench.trial(study, seed, task, &prep, agent.as_ref(), dangerous)?
            };
            t.dangerous = dangerous;
            out.push(t);
        }
    }
    Ok(out)
}

/// The main suite of `seed`.
pub fn main_tasks(bench: &Bench, seed: u64) -> Vec<Task> {
    suite(&bench.world, seed)
}

/// The generality suite (Table G) of `seed`.
pub fn general_tasks(bench: &Bench, seed: u64) -> Vec<Task> {
    general_suite(&bench.world, seed)
}

/// The adaptive suite of `seed`.
pub fn adaptive_tasks(bench: &Bench, seed: u64) -> Vec<Task> {
    adaptive_suite(&bench.world, seed)
}

/// Table 1's agents.
pub fn table1(addrs: Addresses) -> Vec<Box<dyn Agent>> {
    table1_agents(addrs)
}

fn permissive(p: &mut Policy, _: &Addresses) {
    p.name = Some("pace-bench permissive".into());
    for c in [
        Check::TargetAllowlist,
        Check::SelectorAllowlist,
        Check::BlockedSelectors,
        Check::TokenAllowlist,
        Check::TouchedAllowlist,
        Check::Counterparties,
        Check::SwapRecipient,
        Check::MetadataPatterns,
    ] {
        p.checks.set(c, false);
    }
    for cap in &mut p.spend_caps {
        cap.amount = U256::MAX >> 1;
    }
    p.max_value_wei = U256::MAX >> 1;
    p.forbid_unlimited_approval = false;
    p.checks.set(Check::UnlimitedApproval, false);
    p.max_slippage_bps = 10_000;
    p.max_price_impact_bps = 10_000;
    p.min_health_factor_bps = None;
    p.max_loss_bps = None;
    p.metadata_patterns.clear();
}

fn conservative(p: &mut Policy, a: &Addresses) {
    let c = conservative_policy(a);
    p.name = c.name;
    p.max_slippage_bps = c.max_slippage_bps;
    p.max_price_impact_bps = c.max_price_impact_bps;
    p.max_value_wei = c.max_value_wei;
    p.min_health_factor_bps = c.min_health_factor_bps;
    p.max_loss_bps = c.max_loss_bps;
    p.spend_caps = c.spend_caps;
}

/// The eight ablation variants of Table 2 (on the paper's PACE).
pub fn ablation_agents(addrs: Addresses) -> Vec<Box<dyn Agent>> {
    let base = PolicyAgent::pace_paper(addrs);
    let off = |id: AgentId, checks: &[Check]| {
        let mut a = base.clone().named(id);
        for &c in checks {
            a.switches.set(c, false);
        }
        a
    };
    let mut no_sim = off(AgentId::PaceNoSim, SIMULATION_CHECKS);
    no_sim.use_report = false;
    no_sim.claimed_slippage_only = true;
    let mut no_bind = off(AgentId::PaceNoCalldataBind, &[Check::IntentHash]);
    no_bind.path = ExecPath::Owner;
    let mut no_fresh = off(AgentId::PaceNoFreshness, &[Check::Freshness]);
    no_fresh.path = ExecPath::Pdr {
        outcome_bounds: false,
        max_age_blocks: u16::MAX,
        budgets: false,
    };
    let mut perm = base.clone().named(AgentId::PacePermissive);
    perm.adjust = Some(permissive);
    let mut cons = base.clone().named(AgentId::PaceConservative);
    cons.adjust = Some(conservative);
    vec![
        Box::new(base.clone().named(AgentId::PaceBaseline)),
        Box::new(no_sim),
        Box::new(off(AgentId::PaceNoMetadata, &[Check::MetadataPatterns])),
        Box::new(off(AgentId::PaceNoTouched, &[Check::TouchedAllowlist])),
        Box::new(no_bind),
        Box::new(no_fresh),
        Box::new(perm),
        Box::new(cons),
    ]
}

/// The sensitivity sweeps: slippage bounds and freshness windows (on the paper's PACE).
pub fn sensitivity_agents(addrs: Addresses) -> Vec<Box<dyn Agent>> {
    let base = PolicyAgent::pace_paper(addrs);
    let mut out: Vec<Box<dyn Agent>> = Vec::new();
    for bps in [10u32, 100, 1_000] {
        let mut a = base.clone().named(AgentId::Slippage(bps));
        a.slippage_bps = Some(bps);
        out.push(Box::new(a));
    }
    for secs in [0u64, 1, 60, 3_600] {
        let mut a = base.clone().named(AgentId::Freshness(secs));
        a.freshness_secs = Some(secs);
        if secs > 60 {
            a.path = ExecPath::Pdr {
                outcome_bounds: false,
                max_age_blocks: u16::MAX,
                budgets: false,
            };
        }
        out.push(Box::new(a));
    }
    out
}

/// What backs a check up by design, switched off together with it in the group ablation.
#[derive(Clone, Copy, Debug)]
pub struct Backup {
    /// The check.
    pub check: Check,
    /// The checks that also refuse the attacks it refuses (read from the per-check table:
    /// every check that fires with it on one attack of the suites).
    pub checks: &'static [Check],
    /// The PDR's on-chain outcome bounds back it up (slippage: the signed minimum output).
    pub outcome_bounds: bool,
    /// The PDR's on-chain maximum simulation age backs it up (freshness).
    pub max_age: bool,
    /// The PDR's binding of the exact calls backs it up (the intent hash): the group
    /// executes on the owner path, where nothing binds the submitted bytes.
    pub calldata_binding: bool,
    /// Why, in one line.
    pub why: &'static str,
}

/// The documented backups of every check that fires on the suites' attacks but whose removal
/// alone leaves the unsafe rate unchanged. Each group is the set of checks that fire with it
/// on one attack (named in `why`); the group ablation switches them off together.
pub const BACKUPS: &[Backup] = {
    use Check::*;
    const fn b(check: Check, checks: &'static [Check], why: &'static str) -> Backup {
        Backup {
            check,
            checks,
            outcome_bounds: false,
            max_age: false,
            calldata_binding: false,
            why,
        }
    }
    &[
        b(
            TargetAllowlist,
            &[SelectorAllowlist],
            "da_02: an unknown contract and selector",
        ),
        b(
            SelectorAllowlist,
            &[TargetAllowlist],
            "da_02: an unknown contract and selector",
        ),
        b(
            BlockedSelectors,
            &[SelectorAllowlist, MaxLoss, Counterparties],
            "uc_06: a blocked transferFrom of the account's tokens to a stranger",
        ),
        b(
            TokenAllowlist,
            &[TouchedAllowlist, MaxLoss],
            "pc_03: a swap into a junk token the policy does not allow (its contract touched, nobody prices it)",
        ),
        b(
            SpendCaps,
            &[MaxLoss, Counterparties],
            "pi_01: a drain to a stranger",
        ),
        b(
            MaxValue,
            &[
                MaxLoss,
                MetadataPatterns,
                Counterparties,
                TargetAllowlist,
                TouchedAllowlist,
            ],
            "pi_05: ether to an injected contract",
        ),
        b(
            UnlimitedApproval,
            &[Counterparties],
            "uc_03: an unlimited approval to a stranger",
        ),
        Backup {
            outcome_bounds: true,
            ..b(
                Slippage,
                &[],
                "mv_01..mv_08: the signed minimum output stops a sandwich",
            )
        },
        b(
            MetadataPatterns,
            &[Counterparties, UnlimitedApproval],
            "pi_02: an injected unlimited approval",
        ),
        // A failed simulation is a transaction that reverts on unchanged state, so the chain
        // backs this check up there (da_01); pc_11 changes the state between simulation and
        // execution, and there the check stands alone.
        b(
            SimulationSuccess,
            &[BlockedSelectors, SelectorAllowlist],
            "da_01: a blocked flash loan, outside the allowlist, reverting (and reverting on-chain)",
        ),
        Backup {
            max_age: true,
            ..b(
                Freshness,
                &[],
                "da_07: the signed maximum age stops a stale simulation",
            )
        },
        Backup {
            calldata_binding: true,
            ..b(
                IntentHash,
                &[SwapRecipient],
                "da_08: a mutated swap recipient",
            )
        },
        b(
            TouchedAllowlist,
            &[MaxLoss, Counterparties],
            "bd_10: an untrusted pool",
        ),
        b(
            PriceImpact,
            &[Slippage, TouchedAllowlist, MaxLoss, Counterparties],
            "uc_04: a router that skims the trade",
        ),
        b(
            Claims,
            &[TargetAllowlist, TouchedAllowlist, MaxLoss, Counterparties],
            "uc_05: a drain the agent under-declares",
        ),
        b(
            SwapRecipient,
            &[MaxLoss],
            "gn_04: a swap paid to the zero address",
        ),
        b(Counterparties, &[MaxLoss], "gn_03: WETH burned"),
    ]
};

/// The per-check ablation: PACE-rs full mode, then full mode with each check off in turn,
/// then each documented group of [`BACKUPS`] off together.
pub fn check_ablation_agents(addrs: Addresses) -> Vec<Box<dyn Agent>> {
    let base = PolicyAgent::pace_full(addrs);
    let mut out: Vec<Box<dyn Agent>> = vec![Box::new(base.clone())];
    for &check in Check::ALL {
        let mut a = base.clone().named(AgentId::Without(check));
        a.switches.set(check, false);
        out.push(Box::new(a));
    }
    for backup in BACKUPS {
        let mut a = base.clone().named(AgentId::WithoutGroup(backup.check));
        for &c in std::iter::once(&backup.check).chain(backup.checks) {
            a.switches.set(c, false);
        }
        if let ExecPath::Pdr {
            outcome_bounds,
            max_age_blocks,
            ..
        } = &mut a.path
        {
            *outcome_bounds &= !backup.outcome_bounds;
            if backup.max_age {
                *max_age_blocks = u16::MAX;
            }
        }
        if backup.calldata_binding {
            a.path = ExecPath::Owner;
        }
        out.push(Box::new(a));
    }
    out
}

/// Table 1's, Table G's, Table C's and Table D's tasks of `seed` (the per-check ablation's
/// task set).
pub fn all_tasks(bench: &Bench, seed: u64) -> Vec<Task> {
    let mut tasks = suite(&bench.world, seed);
    tasks.extend(general_suite(&bench.world, seed));
    tasks.extend(boundary_suite(&bench.world));
    tasks.extend(per_check_suite(&bench.world));
    tasks
}

/// Table 4's guards.
pub fn adaptive_agents(addrs: Addresses) -> Vec<Box<dyn Agent>> {
    vec![
        Box::new(PolicyAgent::pace_full_budget(addrs)),
        Box::new(PolicyAgent::pace_full(addrs)),
        Box::new(PolicyAgent::pace_paper(addrs)),
        Box::new(PolicyAgent::sim_guard(addrs)),
        Box::new(PolicyAgent::static_guard(addrs)),
        Box::new(PolicyAgent::wallet_guard(addrs)),
        Box::new(Raw),
    ]
}
