//! Table C's computed limits (bd_11..bd_18): at the limit, the simulated figure is the policy's
//! limit and full mode executes the task with its intended effect; one wei past, the figure is
//! one step past, full mode rejects it with the check's own code, and switching that check off,
//! and no other, lets it through to an execution.

use alloy_primitives::U256;
use pace_bench::studies::check_ablation_agents;
use pace_bench::{AgentId, Bench, ChainState, Reason, Task, Trial, boundary_suite};
use pace_contracts::bindings::IERC20;
use pace_evm::InProcessEvm;
use pace_types::units::shortfall_bps;
use pace_types::{Check, SimulationReport, ViolationCode};

/// A pair: (at the limit, one wei past, the check, its code).
const PAIRS: &[(&str, &str, Check, ViolationCode)] = &[
    (
        "bd_11",
        "bd_12",
        Check::PriceImpact,
        ViolationCode::PriceImpactExceeded,
    ),
    (
        "bd_13",
        "bd_14",
        Check::HealthFactor,
        ViolationCode::HealthFactorTooLow,
    ),
    (
        "bd_15",
        "bd_16",
        Check::MaxLoss,
        ViolationCode::LossExceeded,
    ),
    (
        "bd_17",
        "bd_18",
        Check::UnlimitedApproval,
        ViolationCode::ApprovalExceedsCap,
    ),
];

fn run(bench: &Bench, task: &Task, agent: AgentId) -> (Trial, InProcessEvm, SimulationReport) {
    let agents = check_ablation_agents(bench.world.addrs);
    let agent = agents
        .iter()
        .find(|a| a.id() == agent)
        .unwrap_or_else(|| panic!("no agent {agent}"));
    let prep = bench.prepare(task).expect("task prepares");
    let (trial, chain) = bench
        .trial_on_chain("checks", 0, task, &prep, agent.as_ref(), true)
        .expect("trial runs");
    (trial, chain, prep.report)
}

/// The verifier's violations of `task` on `report` under its policy changed by `adjust`.
fn violations(
    task: &Task,
    report: &SimulationReport,
    adjust: impl FnOnce(&mut pace_types::Policy),
) -> Vec<pace_types::Violation> {
    let mut policy = task.policy.clone();
    adjust(&mut policy);
    let policy = policy.compile().expect("policy compiles");
    let now = report.timestamp + task.sim_age_secs;
    pace_verifier::verify(&task.intent, &policy, Some(report), now).violations
}

/// The account's delta loss and its notional (wei), from the conservation violation's message.
fn conservation_loss(v: &[pace_types::Violation]) -> (U256, U256) {
    let m = v
        .iter()
        .find(|v| v.code == ViolationCode::LossExceeded && v.message.contains("account's delta"))
        .unwrap_or_else(|| panic!("no conservation loss among {v:?}"));
    let numbers: Vec<U256> = m
        .message
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    // "... loses <loss> wei ..., above max_loss_bps <bps> of the <notional> wei ..."
    (numbers[0], numbers[2])
}

/// The simulated figure of each pair's check, from the report (and the verifier for the loss).
fn assert_figures(tasks: &[Task], reports: &[(&str, SimulationReport)]) {
    let find = |id: &str| {
        let task = tasks.iter().find(|t| t.id == id).expect(id);
        let report = &reports.iter().find(|r| r.0 == id).expect(id).1;
        (task, report)
    };
    let impact = |r: &SimulationReport| {
        let s = r.swap.as_ref().expect("swap facts");
        (
            s.price_impact_bps,
            s.price_impact_bps
                .max(shortfall_bps(s.quoted_out, s.amount_out)),
        )
    };
    for (id, step) in [("bd_11", 0), ("bd_12", 1)] {
        let (task, r) = find(id);
        let max = task.policy.max_price_impact_bps + step;
        assert_eq!(impact(r), (max, max), "{id}: price impact");
    }
    for (id, step) in [("bd_13", 0), ("bd_14", 1)] {
        let (task, r) = find(id);
        let min = task.policy.min_health_factor_bps.expect("a minimum") - step;
        assert_eq!(r.health_factor_after_bps, Some(min), "{id}: health factor");
    }
    // The loss: exactly max_loss_bps of the notional (rounded down) at the limit, one wei more
    // past it; the swap's own figure is the limit in both (rounded up).
    for (id, step) in [("bd_15", 0u8), ("bd_16", 1)] {
        let (task, r) = find(id);
        let max = task.policy.loss_bound_bps();
        assert_eq!(r.loss_bps, Some(max), "{id}: swap loss");
        let v = violations(task, r, |p| p.max_loss_bps = Some(max - 1));
        let (loss, notional) = conservation_loss(&v);
        let allowed = notional * U256::from(max) / U256::from(10_000u64);
        assert_eq!(loss, allowed + U256::from(step), "{id}: account's loss");
    }
}

#[test]
fn computed_limits_hold_and_one_wei_past_only_their_check_refuses() {
    let bench = Bench::new().expect("bench builds");
    let tasks = boundary_suite(&bench.world);
    let mut reports = Vec::new();
    for &(at, past, check, code) in PAIRS {
        let task = tasks.iter().find(|t| t.id == at).expect(at);
        let (full, chain, report) = run(&bench, task, AgentId::PaceFull);
        assert!(
            full.approved && full.chain == ChainState::Executed && full.intended_effect,
            "{at}: not executed with its effect: {:?} {} {}",
            full.reasons,
            full.chain,
            full.revert
        );
        assert!(full.correct && !full.unsafe_execution, "{at}");
        if check == Check::UnlimitedApproval {
            // The effect the judge does not measure: the allowance is the cap, on-chain.
            let a = bench.world.addrs;
            let allowance = chain
                .view_sol(
                    a.weth,
                    &IERC20::allowanceCall {
                        owner: a.account,
                        spender: a.router,
                    },
                )
                .expect("allowance");
            assert_eq!(Some(allowance), task.policy.spend_cap(a.weth), "{at}");
        }
        reports.push((at, report));

        let task = tasks.iter().find(|t| t.id == past).expect(past);
        let (full, _, report) = run(&bench, task, AgentId::PaceFull);
        assert!(!full.approved, "{past}: approved");
        assert_eq!(
            full.reasons,
            vec![Reason::Violation(code)],
            "{past}: not its check's code alone"
        );
        let (off, _, _) = run(&bench, task, AgentId::Without(check));
        assert!(off.approved, "{past}: still rejected: {:?}", off.reasons);
        assert_eq!(off.chain, ChainState::Executed, "{past}: {}", off.revert);
        for &other in Check::ALL.iter().filter(|&&c| c != check) {
            let (t, _, _) = run(&bench, task, AgentId::Without(other));
            assert!(!t.approved, "{past}: approved without {}", other.name());
        }
        reports.push((past, report));
    }
    assert_figures(&tasks, &reports);
}
