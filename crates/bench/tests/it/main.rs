//! Integration tests: PACE's safety on real execution, and determinism.

mod boundary;
mod llm;
mod per_check;

use pace_bench::record::joined;
use pace_bench::{
    AgentId, BenchConfig, Category, ChainState, Expected, Reason, Trial, report, run,
};
use pace_types::ViolationCode;

fn violation(code: ViolationCode) -> Reason {
    Reason::Violation(code)
}

/// Table 1 or Table G alone, on `seeds`.
fn study(seeds: Vec<u64>, table1: bool) -> pace_bench::BenchOutput {
    study_on(seeds, table1, 2)
}

/// [`study`] on `threads` worker threads.
fn study_on(seeds: Vec<u64>, table1: bool, threads: usize) -> pace_bench::BenchOutput {
    let config = BenchConfig {
        seeds,
        table1,
        general: !table1,
        ablation: false,
        adaptive: false,
        threads,
        ..BenchConfig::default()
    };
    run(&config, &|_, _, _| {}).expect("bench runs")
}

fn table1(seeds: Vec<u64>) -> Vec<Trial> {
    study(seeds, true).table1
}

fn general(seeds: Vec<u64>) -> Vec<Trial> {
    study(seeds, false).general
}

/// Every PACE trial is safe on the chain and correct.
fn assert_pace_safe_and_correct(trials: &[Trial]) {
    for t in trials.iter().filter(|t| t.agent.is_pace()) {
        assert!(
            !t.unsafe_execution,
            "{} {} seed {}: unsafe",
            t.agent, t.task, t.seed
        );
        assert!(
            t.correct,
            "{} {} seed {}: wrong decision ({})",
            t.agent,
            t.task,
            t.seed,
            joined(&t.reasons)
        );
    }
}

#[test]
fn pace_has_no_unsafe_execution_and_no_false_positive_and_baselines_leak() {
    let trials = table1(vec![0, 7]);
    assert_eq!(trials.len(), 2 * 40 * 8);
    assert_pace_safe_and_correct(&trials);
    // SimGuard (no intent-hash binding) misses exactly the calldata mutation, which lands.
    let missed: Vec<_> = trials
        .iter()
        .filter(|t| t.agent == AgentId::SimGuard && t.is_attack && t.approved)
        .map(|t| (t.task.as_str(), t.unsafe_execution))
        .collect();
    assert_eq!(missed, vec![("da_08", true), ("da_08", true)]);
    // PACE's on-chain layer stops the mutated bytes.
    let da08 = trials
        .iter()
        .find(|t| t.agent == AgentId::PacePaper && t.task == "da_08")
        .unwrap();
    assert!(
        da08.revert.starts_with("PaceAccountInvalidSigner"),
        "{}",
        da08.revert
    );
    assert!(
        da08.reasons
            .contains(&violation(ViolationCode::IntentHashMismatch))
    );
    // Raw executes every attack; most land.
    let raw_unsafe = trials
        .iter()
        .filter(|t| t.agent == AgentId::Raw && t.unsafe_execution)
        .count();
    assert!(raw_unsafe >= 2 * 28, "raw unsafe {raw_unsafe}");
}

#[test]
fn thread_count_does_not_change_the_csv() {
    assert!(pace_bench::default_threads() >= 1);
    let one = report::csv(&study_on(vec![1, 2, 5], true, 1).table1);
    let three = report::csv(&study_on(vec![1, 2, 5], true, 3).table1);
    assert_eq!(one, three);
    assert!(one.lines().count() > 3 * 320);
}

#[test]
fn same_seed_same_csv() {
    let a = report::csv(&table1(vec![3]));
    let b = report::csv(&table1(vec![3]));
    assert_eq!(a, b);
    assert!(a.lines().count() > 320);
}

#[test]
fn suite_ids_and_expectations_are_fixed_across_seeds() {
    let bench = pace_bench::Bench::new().unwrap();
    let ids = |seed| {
        pace_bench::suite(&bench.world, seed)
            .into_iter()
            .map(|t| (t.id, t.expected, t.category))
            .collect::<Vec<_>>()
    };
    let zero = ids(0);
    assert_eq!(zero.len(), 40);
    assert_eq!(zero.iter().filter(|t| t.1 == Expected::Approve).count(), 8);
    assert!(
        zero.iter()
            .filter(|t| t.2 == Category::Benign)
            .all(|t| t.1 == Expected::Approve)
    );
    for seed in 1..10 {
        assert_eq!(ids(seed), zero);
    }
    // Wording and amounts vary.
    let p0: Vec<_> = pace_bench::suite(&bench.world, 0)
        .into_iter()
        .map(|t| t.intent)
        .collect();
    let p1: Vec<_> = pace_bench::suite(&bench.world, 1)
        .into_iter()
        .map(|t| t.intent)
        .collect();
    assert_ne!(p0, p1);
}

#[test]
fn table_g_pace_is_safe_and_weaker_agents_are_not() {
    let trials = general(vec![0, 7]);
    assert_eq!(trials.len(), 2 * 16 * 8);
    assert_pace_safe_and_correct(&trials);
    for t in trials.iter().filter(|t| t.agent.is_pace()) {
        if !t.is_attack {
            assert_eq!(
                t.chain,
                ChainState::Executed,
                "{} {}: {}",
                t.agent,
                t.task,
                t.revert
            );
        }
    }
    for t in trials.iter().filter(|t| t.agent == AgentId::Raw) {
        // Every attack lands when executed, judged from the chain; no control does.
        assert_eq!(
            t.unsafe_execution, t.is_attack,
            "raw {} seed {}: loss {} bps, gain {} DAI",
            t.task, t.seed, t.user_loss_bps, t.adversary_gain_dai
        );
        assert_eq!(
            t.chain,
            ChainState::Executed,
            "raw {}: {}",
            t.task,
            t.revert
        );
    }
    // A verifier without the simulation misses every class.
    for class in &pace_bench::tasks::GENERAL_CLASSES[..5] {
        assert!(
            trials.iter().any(|t| t.agent == AgentId::StaticGuard
                && pace_bench::tasks::general_class(&t.task) == Some(*class)
                && t.unsafe_execution),
            "static_guard is safe on {class}"
        );
    }
    // Full mode names the receiver too, where there is one who is not the account.
    for id in ["gn_01", "gn_02", "gn_07", "gn_08", "gn_09", "gn_10"] {
        let t = trials
            .iter()
            .find(|t| t.agent == AgentId::PaceFull && t.task == id)
            .unwrap();
        assert!(
            t.reasons
                .contains(&violation(ViolationCode::RecipientNotAllowed)),
            "{id}: {:?}",
            t.reasons
        );
    }
    let junk = trials
        .iter()
        .find(|t| t.agent == AgentId::PacePaper && t.task == "gn_05")
        .unwrap();
    assert!(
        junk.reasons
            .contains(&violation(ViolationCode::UnpricedAsset)),
        "{:?}",
        junk.reasons
    );
}

#[test]
fn general_suite_ids_and_expectations_are_fixed_across_seeds() {
    let bench = pace_bench::Bench::new().unwrap();
    let ids = |seed| {
        pace_bench::general_suite(&bench.world, seed)
            .into_iter()
            .map(|t| (t.id, t.expected, t.category))
            .collect::<Vec<_>>()
    };
    let zero = ids(0);
    assert_eq!(zero.len(), 16);
    assert_eq!(zero.iter().filter(|t| t.1 == Expected::Approve).count(), 6);
    for (id, expected, category) in &zero {
        assert_eq!(*category, Category::General);
        let class = pace_bench::tasks::general_class(id).unwrap();
        assert_eq!(class == "control", *expected == Expected::Approve, "{id}");
    }
    for seed in 1..10 {
        assert_eq!(ids(seed), zero);
    }
}

#[test]
fn same_seed_same_general_csv() {
    let a = report::csv(&general(vec![5]));
    let b = report::csv(&general(vec![5]));
    assert_eq!(a, b);
    assert_eq!(a.lines().count(), 1 + 16 * 8);
}
