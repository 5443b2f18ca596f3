//! Table D: each per-check task is stopped by full mode and lands, unsafe on the chain, when
//! its check (or its documented group) is off; each benign twin executes with its effect.

use pace_bench::studies::check_ablation_agents;
use pace_bench::{AgentId, Bench, ChainState, Reason, Trial, per_check_suite};
use pace_types::{Check, ViolationCode};

/// (task, the code full mode rejects it with, the ablation that lets it through, whether
/// that execution is unsafe). `None` for a benign twin, which full mode must execute.
type Case = (&'static str, Option<(ViolationCode, AgentId, bool)>);

const CASES: &[Case] = {
    use AgentId::{Without, WithoutGroup};
    use ViolationCode as V;
    &[
        (
            "pc_01",
            Some((V::AccountMismatch, Without(Check::Scope), true)),
        ),
        ("pc_02", None),
        (
            "pc_03",
            Some((
                V::TokenNotAllowed,
                WithoutGroup(Check::TokenAllowlist),
                true,
            )),
        ),
        (
            "pc_04",
            Some((
                V::SimulationMissing,
                Without(Check::SimulationRequired),
                true,
            )),
        ),
        ("pc_05", None),
        (
            "pc_06",
            Some((
                V::SimulationFromFuture,
                Without(Check::FutureTimestamp),
                true,
            )),
        ),
        ("pc_07", None),
        ("pc_08", None),
        // One wei over an enforced budget: the account reverts what the check lets through.
        (
            "pc_09",
            Some((V::BudgetExceeded, Without(Check::Budgets), false)),
        ),
        (
            "pc_10",
            Some((V::BudgetNotEnforced, Without(Check::Budgets), true)),
        ),
        (
            "pc_11",
            Some((V::SimulationFailed, Without(Check::SimulationSuccess), true)),
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
        let Some((code, ablation, lands)) = case else {
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
        assert!(
            off.approved,
            "{id}: {ablation} still rejects: {:?}",
            off.reasons
        );
        assert_eq!(off.unsafe_execution, lands, "{id} under {ablation}");
        if !lands {
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
