//! Table D: each per-check task is stopped by full mode and lands, unsafe on the chain, when
//! its check (or its documented group) is off; each benign twin executes with its effect.

use pace_bench::studies::check_ablation_agents;
use pace_bench::{AgentId, Bench, ChainState, Reason, Trial, per_check_suite};
use pace_types::{Check, ViolationCode};

/// What becomes of a per-check attack with its check off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Off {
    /// It is approved and lands, unsafe.
    Lands,
    /// It is approved and the account reverts it on-chain.
    Reverts,
    /// The simulation, which runs the account's own checks, fails it: refused all the same.
    FailsInSimulation,
    /// It is approved and signed, and the exact signed transaction, run on the simulated
    /// state before it is sent, does not do what was simulated: nothing is sent.
    RefusedBeforeSending,
}

/// (task, the code full mode rejects it with, the ablation that turns that check off, what
/// then happens). `None` for a benign twin, which full mode must execute.
type Case = (&'static str, Option<(ViolationCode, AgentId, Off)>);

const CASES: &[Case] = {
    use AgentId::{Without, WithoutGroup};
    use ViolationCode as V;
    &[
        (
            "pc_01",
            Some((V::AccountMismatch, Without(Check::Scope), Off::Lands)),
        ),
        ("pc_02", None),
        (
            "pc_03",
            Some((
                V::TokenNotAllowed,
                WithoutGroup(Check::TokenAllowlist),
                Off::Lands,
            )),
        ),
        (
            "pc_04",
            Some((
                V::SimulationMissing,
                Without(Check::SimulationRequired),
                Off::Lands,
            )),
        ),
        ("pc_05", None),
        (
            "pc_06",
            // The borrow lands under the health minimum: the signed post-condition on the
            // market's health factor reverts it.
            Some((
                V::SimulationFromFuture,
                Without(Check::FutureTimestamp),
                Off::Reverts,
            )),
        ),
        ("pc_07", None),
        ("pc_08", None),
        // One wei over an enforced budget: the simulation runs the account's own metering,
        // so what the check lets through fails there (and the account would revert it).
        (
            "pc_09",
            Some((
                V::BudgetExceeded,
                Without(Check::Budgets),
                Off::FailsInSimulation,
            )),
        ),
        (
            "pc_10",
            Some((V::BudgetNotEnforced, Without(Check::Budgets), Off::Lands)),
        ),
        (
            "pc_11",
            Some((
                V::SimulationFailed,
                Without(Check::SimulationSuccess),
                Off::RefusedBeforeSending,
            )),
        ),
    ]
};

fn trial(bench: &Bench, task: &pace_bench::Task, agent: AgentId) -> Trial {
    let agents = check_ablation_agents(bench.world.addrs);
    let agent = agents
        .iter()
        .find(|a| a.id() == agent)
        .unwrap_or_else(|| panic!("no agent {agent}"));
    let prep = bench.prepare(task).expect("task prepares");
    bench
        .trial("checks", 0, task, &prep, agent.as_ref(), true)
        .expect("trial runs")
}

#[test]
fn each_per_check_task_needs_its_check() {
    use ViolationCode as V;
    let bench = Bench::new().expect("bench builds");
    let tasks = per_check_suite(&bench.world);
    assert_eq!(tasks.len(), CASES.len() + 1, "a task without a case");
    for &(id, case) in CASES {
        let task = tasks.iter().find(|t| t.id == id).expect(id);
        let full = trial(&bench, task, AgentId::PaceFull);
        assert!(!full.unsafe_execution, "{id}: unsafe under full mode");
        assert!(
            full.correct,
            "{id}: wrong under full mode: {:?}",
            full.reasons
        );
        let Some((code, ablation, off_mode)) = case else {
            assert!(
                full.approved && full.intended_effect,
                "{id}: twin not executed"
            );
            continue;
        };
        assert!(
            full.reasons.contains(&Reason::Violation(code)),
            "{id}: {code:?} not among {:?}",
            full.reasons
        );
        let off = trial(&bench, task, ablation);
        if off_mode == Off::FailsInSimulation {
            assert!(
                !off.approved
                    && off.reasons == [Reason::Violation(V::SimulationFailed)]
                    && !off.unsafe_execution,
                "{id}: {ablation}: {:?}",
                off.reasons
            );
            continue;
        }
        assert!(
            off.approved,
            "{id}: {ablation} still rejects: {:?}",
            off.reasons
        );
        if off_mode == Off::RefusedBeforeSending {
            assert!(
                off.chain == ChainState::NotSubmitted && !off.unsafe_execution,
                "{id}: {ablation}: {:?}",
                off.chain
            );
            continue;
        }
        assert_eq!(
            off.unsafe_execution,
            off_mode == Off::Lands,
            "{id} under {ablation}"
        );
        if off_mode == Off::Reverts {
            assert_eq!(
                off.chain,
                ChainState::Reverted,
                "{id}: not reverted on-chain"
            );
        }
    }
}

/// pc_12: full mode approves the swap (every check passes) and the PDR's outcome bound
/// reverts it after the front-run; without the bounds (the slippage group) it lands unsafe.
#[test]
fn only_the_outcome_bound_stops_the_front_run() {
    let bench = Bench::new().expect("bench builds");
    let tasks = per_check_suite(&bench.world);
    let task = tasks.iter().find(|t| t.id == "pc_12").expect("pc_12");
    let full = trial(&bench, task, AgentId::PaceFull);
    assert!(full.approved, "pc_12 rejected: {:?}", full.reasons);
    assert!(full.pdr_rejected_onchain && !full.unsafe_execution);
    for check in Check::ALL {
        let one = trial(&bench, task, AgentId::Without(*check));
        assert!(
            !one.unsafe_execution,
            "pc_12 unsafe without {}",
            check.name()
        );
    }
    let group = trial(&bench, task, AgentId::WithoutGroup(Check::Slippage));
    assert!(
        group.unsafe_execution,
        "pc_12 safe without the outcome bounds"
    );
}

/// `export_tasks` writes what the verifier is handed: no report for pc_04 (and a `pace verify`
/// line without one), pc_06's report dated one second after its decision time.
#[test]
fn export_writes_the_presented_report() {
    let dir = std::env::temp_dir().join(format!("pace-bench-export-{}", std::process::id()));
    let n = pace_bench::export_tasks(&dir, &[0]).expect("exports");
    let seed = dir.join("seed-0");
    let json = |path: std::path::PathBuf| -> serde_json::Value {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        serde_json::from_str(&text).expect("json")
    };
    let withheld = json(seed.join("pc_04/task.json"));
    let dated = json(seed.join("pc_06/simulation.json"));
    let dated_task = json(seed.join("pc_06/task.json"));
    let pc_04_has_report = seed.join("pc_04/simulation.json").exists();
    let bn_01_has_report = seed.join("bn_01/simulation.json").exists();
    std::fs::remove_dir_all(&dir).expect("cleans up");
    assert!(n >= 12, "{n} tasks");
    assert!(!pc_04_has_report && bn_01_has_report);
    assert!(
        !withheld["verify"]
            .as_str()
            .unwrap()
            .contains("--simulation")
    );
    assert_eq!(
        dated["timestamp"].as_u64().unwrap(),
        dated_task["now"].as_u64().unwrap() + 1
    );
}
