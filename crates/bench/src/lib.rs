//! The PACE benchmark (paper sections 6-7) on a real EVM: the 40-task suite in five categories,
//! the seven agents of section 5.4 plus PACE-rs's full mode, the section 6.3 metrics with their
//! denominators, Table 1, the Table 2 ablation, the sensitivity sweeps, the Table 4
//! adaptive adversary and the section 5.3 MEV sandwich optimiser; beyond the paper, Table G
//! (generality): Table 1's agents on 16 tasks whose harm travels through functions outside the
//! paper's suite (payouts in the trace, burns, unpriced assets, LP tokens, value left at a
//! counterparty), with benign controls; and the per-check study (every check off in turn, and
//! each documented group), with Table C (each numeric check at its limit and one unit past)
//! and Table D (a task for each check no other task stops alone).
//!
//! Every approved trial executes on revm, on a fork (a clone) of one embedded world: PACE
//! through `PaceAccount.executeBatchPDR` with its signed PDR, the baselines through the owner's
//! raw `executeBatch`. Whether an execution is unsafe is judged from the chain's outcome
//! (attacker balances and allowances, the account's loss, its health factor), never from the
//! task's label. Deterministic: no clock enters a decision, so the same seeds give the same
//! CSV (latency is measured but kept out of it).

pub mod agents;
pub mod figures;
pub mod llm;
pub mod metrics;
pub mod record;
pub mod report;
pub mod sandwich;
pub mod studies;
pub mod tasks;
pub mod trial;

pub use agents::{Agent, DecisionInput, ExecPath, PdrVerifier, PolicyAgent, Verdict};
pub use metrics::{Metrics, Rate, metrics};
pub use record::{AgentId, ChainState, Reason};
pub use studies::{BenchConfig, default_threads};
pub use tasks::{
    Category, Expected, Presented, Severity, Task, boundary_suite, general_suite, per_check_suite,
    suite,
};
pub use trial::{Bench, Prepared, Trial};

use std::path::Path;
use std::time::Instant;

/// Errors of the benchmark.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Building the world, simulating or executing failed.
    #[error("bench setup: {0}")]
    Setup(String),
    /// Writing the outputs failed.
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}

/// `Result` with the benchmark's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything one `pace bench` run produced.
#[derive(Debug, Default)]
pub struct BenchOutput {
    /// Table 1 trials (8 agents × 40 tasks × seeds).
    pub table1: Vec<Trial>,
    /// Table G trials (Table 1's agents × the 16 generality tasks × the same seeds).
    pub general: Vec<Trial>,
    /// Ablation trials.
    pub ablation: Vec<Trial>,
    /// Sensitivity trials.
    pub sensitivity: Vec<Trial>,
    /// Adaptive-adversary trials.
    pub adaptive: Vec<Trial>,
    /// Per-check ablation trials: full mode with each check off (Table 1 and G tasks).
    pub checks: Vec<Trial>,
    /// The opt-in language-model study (not in [`Self::all`], hence not in `trials.csv`).
    pub llm: Vec<Trial>,
    /// The MEV sandwich study.
    pub sandwich: Vec<sandwich::SandwichRow>,
    /// Seeds of Table 1.
    pub seeds: Vec<u64>,
    /// Wall time of the whole run.
    pub wall_time_secs: f64,
}

impl BenchOutput {
    /// Every trial, in study order.
    pub fn all(&self) -> impl Iterator<Item = &Trial> {
        self.table1
            .iter()
            .chain(&self.general)
            .chain(&self.ablation)
            .chain(&self.sensitivity)
            .chain(&self.adaptive)
            .chain(&self.checks)
    }
}

/// Builds the world once and runs the configured studies.
pub fn run(config: &BenchConfig, progress: studies::Progress<'_>) -> Result<BenchOutput> {
    let start = Instant::now();
    let bench = Bench::new()?;
    let addrs = bench.world.addrs;
    let mut out = BenchOutput {
        seeds: config.seeds.clone(),
        ..BenchOutput::default()
    };
    let t = config.threads;
    if config.table1 {
        out.table1 = studies::run_study(
            &bench,
            "table1",
            &config.seeds,
            &studies::main_tasks,
            &studies::table1(addrs),
            t,
            progress,
        )?;
    }
    if config.general {
        out.general = studies::run_study(
            &bench,
            "general",
            &config.seeds,
            &studies::general_tasks,
            &studies::table1(addrs),
            t,
            progress,
        )?;
    }
    if config.ablation {
        let seed = [config.ablation_seed];
        out.ablation = studies::run_study(
            &bench,
            "ablation",
            &seed,
            &studies::main_tasks,
            &studies::ablation_agents(addrs),
            1,
            progress,
        )?;
        out.checks = studies::run_study(
            &bench,
            "checks",
            &seed,
            &studies::all_tasks,
            &studies::check_ablation_agents(addrs),
            1,
            progress,
        )?;
        out.sensitivity = studies::run_study(
            &bench,
            "sensitivity",
            &seed,
            &studies::main_tasks,
            &studies::sensitivity_agents(addrs),
            1,
            progress,
        )?;
    }
    if config.adaptive {
        let seed = [config.adaptive_seed];
        out.adaptive = studies::run_study(
            &bench,
            "adaptive",
            &seed,
            &studies::adaptive_tasks,
            &studies::adaptive_agents(addrs),
            1,
            progress,
        )?;
    }
    if let Some(study) = &config.llm {
        let model = study
            .model()
            .map_err(|e| Error::Setup(format!("--llm: {e}")))?;
        let agents: Vec<Box<dyn Agent>> = vec![Box::new(llm::LlmGuard::new(model, addrs))];
        out.llm = studies::run_study(
            &bench,
            "llm",
            &config.seeds,
            &studies::main_tasks,
            &agents,
            t,
            progress,
        )?;
    }
    out.sandwich = sandwich::run();
    out.wall_time_secs = start.elapsed().as_secs_f64();
    Ok(out)
}

/// Writes each seed's tasks as the files `pace verify` reads: `<dir>/seed-<n>/<task>/`
/// `intent.json`, `policy.json`, `simulation.json` and `task.json` (expected decision, labels
/// and the decision time to pass as `--now`).
pub fn export_tasks(dir: &Path, seeds: &[u64]) -> Result<usize> {
    let bench = Bench::new()?;
    let mut n = 0;
    for &seed in seeds {
        let mut tasks = suite(&bench.world, seed);
        tasks.extend(general_suite(&bench.world, seed));
        tasks.extend(tasks::adaptive_suite(&bench.world, seed));
        tasks.extend(boundary_suite(&bench.world));
        tasks.extend(per_check_suite(&bench.world));
        for task in &tasks {
            let prep = bench.prepare(task)?;
            let d = dir.join(format!("seed-{seed}")).join(task.id);
            std::fs::create_dir_all(&d)?;
            let json = |v: &dyn erased::Json| v.to_json();
            std::fs::write(d.join("intent.json"), json(&task.submitted_intent()))?;
            std::fs::write(d.join("policy.json"), json(&task.policy))?;
            // What the verifier is handed: no file for a withheld report.
            if let Some(report) = &prep.presented {
                std::fs::write(d.join("simulation.json"), json(report))?;
            }
            let simulation = if prep.presented.is_some() {
                " --simulation simulation.json"
            } else {
                ""
            };
            let meta = serde_json::json!({
                "id": task.id,
                "seed": seed,
                "category": task.category,
                "expected": task.expected,
                "attack": task.attack,
                "severity": task.severity,
                "prompt": task.prompt,
                "now": prep.now,
                "verify": format!("pace verify --intent intent.json --policy policy.json{simulation} --now {}", prep.now),
            });
            std::fs::write(
                d.join("task.json"),
                serde_json::to_string_pretty(&meta).unwrap_or_default(),
            )?;
            n += 1;
        }
    }
    Ok(n)
}

mod erased {
    /// Object-safe pretty JSON.
    pub(crate) trait Json {
        fn to_json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn to_json(&self) -> String {
            serde_json::to_string_pretty(self).unwrap_or_default()
        }
    }
}
