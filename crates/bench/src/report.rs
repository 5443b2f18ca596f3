//! Markdown tables, the per-trial CSV and the JSON summary.

use crate::BenchOutput;
use crate::metrics::{Metrics, Rate, mean_std, metrics};
use crate::record::{AgentId, Reason};
use crate::trial::Trial;
use pace_types::Check;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Agent names in first-appearance order.
fn agents(trials: &[Trial]) -> Vec<AgentId> {
    let mut seen = Vec::new();
    for t in trials {
        if !seen.contains(&t.agent) {
            seen.push(t.agent);
        }
    }
    seen
}

fn of(trials: &[Trial], agent: AgentId) -> Vec<&Trial> {
    trials.iter().filter(|t| t.agent == agent).collect()
}

/// Per-seed values of `f` for `agent`.
fn per_seed(trials: &[Trial], agent: AgentId, f: &dyn Fn(&Metrics) -> f64) -> Vec<f64> {
    let seeds: BTreeSet<u64> = trials.iter().map(|t| t.seed).collect();
    seeds
        .iter()
        .map(|&s| {
            let ts: Vec<&Trial> = trials
                .iter()
                .filter(|t| t.agent == agent && t.seed == s)
                .collect();
            f(&metrics(&ts))
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// A rate as `0.1234 (n/d)`.
fn rate(r: Rate) -> String {
    format!("{:.4} ({}/{})", r.value(), r.num, r.den)
}

/// The markdown report of every study that ran.
pub fn markdown(out: &BenchOutput) -> String {
    let mut s = String::new();
    if !out.table1.is_empty() {
        table1(&mut s, &out.table1);
        categories(&mut s, &out.table1);
        financial(&mut s, &out.table1);
    }
    if !out.general.is_empty() {
        general(&mut s, &out.general);
    }
    if !out.ablation.is_empty() {
        simple(
            &mut s,
            "Table 2: ablation (seed 42, paper-mode PACE variants)",
            &out.ablation,
        );
    }
    if !out.sensitivity.is_empty() {
        simple(
            &mut s,
            "Sensitivity: slippage bound and freshness window (seed 42)",
            &out.sensitivity,
        );
    }
    if !out.adaptive.is_empty() {
        adaptive(&mut s, &out.adaptive);
    }
    if !out.checks.is_empty() {
        checks(&mut s, &out.checks);
        boundary(&mut s, &out.checks);
        per_check(&mut s, &out.checks);
    }
    if !out.llm.is_empty() {
        simple(
            &mut s,
            "Opt-in: a language model behind the PACE-rs verifier (Table 1's tasks; not part of Table 1)",
            &out.llm,
        );
    }
    modes(&mut s, out);
    if !out.sandwich.is_empty() {
        s.push_str(&crate::sandwich::markdown(&out.sandwich));
    }
    let _ = writeln!(s, "\nwall time: {:.1} s", out.wall_time_secs);
    s
}

fn table1(s: &mut String, trials: &[Trial]) {
    let seeds: BTreeSet<u64> = trials.iter().map(|t| t.seed).collect();
    let _ = writeln!(
        s,
        "## Table 1: agents × 40 tasks × {} seeds ({} trials)\n\n| Agent | Trials | Correct % (±sd) | Unsafe exec rate (±sd) | Attack success (±sd) | Dangerous block | FP rate (chain) | Benign approved, failed on-chain | Attacks blocked / seed (of 32) |\n|---|---|---|---|---|---|---|---|---|",
        seeds.len(),
        trials.len()
    );
    for a in agents(trials) {
        let m = metrics(&of(trials, a));
        let c = mean_std(&per_seed(trials, a, &|m| m.correct.value()));
        let u = mean_std(&per_seed(trials, a, &|m| m.unsafe_execution.value()));
        let asr = mean_std(&per_seed(trials, a, &|m| m.attack_success.value()));
        let b = mean_std(&per_seed(trials, a, &|m| m.attacks_blocked.num as f64));
        let _ = writeln!(
            s,
            "| {a} | {} | {} (±{:.2} p) | {} (±{:.4}) | {} (±{:.4}) | {} | {} | {}/{} | {:.1} ± {:.2} |",
            m.trials,
            pct(m.correct.value()),
            100.0 * c.1,
            rate(m.unsafe_execution),
            u.1,
            rate(m.attack_success),
            asr.1,
            rate(m.dangerous_block),
            rate(m.false_positive),
            m.benign_failed_onchain.num,
            m.benign_failed_onchain.den,
            b.0,
            b.1,
        );
    }
    let seven: Vec<&Trial> = trials
        .iter()
        .filter(|t| t.agent != AgentId::PaceFull)
        .collect();
    let m = metrics(&seven);
    let _ = writeln!(
        s,
        "| paper's seven (PACE = pace_paper) | {} | {} | {} | {} | {:.4} | {:.4} | |",
        m.trials,
        pct(m.correct.value()),
        rate(m.unsafe_execution),
        rate(m.attack_success),
        m.dangerous_block.value(),
        m.false_positive.value()
    );
}

fn categories(s: &mut String, trials: &[Trial]) {
    let cats = [
        "prompt_injection",
        "unsafe_contract",
        "defi_exploit",
        "mev_slippage",
    ];
    let _ = writeln!(
        s,
        "\n### Attack success by category (unsafe executions / attack trials)\n\n| Agent | {} |\n|---|---|---|---|---|",
        cats.join(" | ")
    );
    for a in agents(trials) {
        let cells: Vec<String> = cats
            .iter()
            .map(|c| {
                let ts: Vec<&Trial> = trials
                    .iter()
                    .filter(|t| t.agent == a && t.category == *c)
                    .collect();
                let m = metrics(&ts);
                format!(
                    "{:.3} ({}/{})",
                    m.attack_success.value(),
                    m.attack_success.num,
                    m.attack_success.den
                )
            })
            .collect();
        let _ = writeln!(s, "| {a} | {} |", cells.join(" | "));
    }
    // Which attacks each agent lets through (seed 0 of the run, or the first seed).
    let _ = writeln!(
        s,
        "\n### Attacks not blocked (decision approved), per agent, first seed\n"
    );
    let first = trials.first().map_or(0, |t| t.seed);
    for a in agents(trials) {
        let ids: Vec<String> = trials
            .iter()
            .filter(|t| t.agent == a && t.seed == first && t.is_attack && t.approved)
            .map(|t| {
                if t.unsafe_execution {
                    format!("{}*", t.task)
                } else {
                    t.task.clone()
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "- {a}: {} (`*` = unsafe on chain)",
            if ids.is_empty() {
                "none".into()
            } else {
                ids.join(", ")
            }
        );
    }
}

fn financial(s: &mut String, trials: &[Trial]) {
    let _ = writeln!(
        s,
        "\n### Financial and overhead metrics (all trials of each agent)\n\n| Agent | Mean loss bps | Median loss bps | Mean slippage bps | HF violation rate | PDR on-chain rejection | Mean decision latency ms | Mean benign gas |\n|---|---|---|---|---|---|---|---|"
    );
    let mut raw_gas = 0.0;
    for a in agents(trials) {
        let m = metrics(&of(trials, a));
        if a == AgentId::Raw {
            raw_gas = m.mean_benign_gas;
        }
        let pdr = if a.is_pace() {
            format!(
                "{:.3} ({}/{})",
                m.pdr_rejection.value(),
                m.pdr_rejection.num,
                m.pdr_rejection.den
            )
        } else {
            "n/a".into()
        };
        let _ = writeln!(
            s,
            "| {a} | {:.1} | {:.1} | {:.1} | {:.4} ({}/{}) | {pdr} | {:.4} | {:.0} |",
            m.mean_loss_bps,
            m.median_loss_bps,
            m.mean_slippage_bps,
            m.hf_violation.value(),
            m.hf_violation.num,
            m.hf_violation.den,
            m.mean_latency_ms,
            m.mean_benign_gas
        );
    }
    for a in [AgentId::PacePaper, AgentId::PaceFull] {
        let ts = of(trials, a);
        if ts.is_empty() || raw_gas == 0.0 {
            continue;
        }
        let g = metrics(&ts).mean_benign_gas;
        let _ = writeln!(
            s,
            "\nGas overhead {a} vs raw owner path (benign executed trials): {:+.0} gas ({:+.1}%)",
            g - raw_gas,
            100.0 * (g - raw_gas) / raw_gas
        );
    }
    // Per-task gas on benign tasks, first seed.
    let first = trials.first().map_or(0, |t| t.seed);
    let _ = writeln!(
        s,
        "\n| Benign task (seed {first}) | raw gas | pace_paper gas | pace_full gas |\n|---|---|---|---|"
    );
    let ids: BTreeSet<&str> = trials
        .iter()
        .filter(|t| !t.is_attack && t.seed == first)
        .map(|t| t.task.as_str())
        .collect();
    for id in ids {
        let g = |a: AgentId| {
            trials
                .iter()
                .find(|t| t.agent == a && t.task == id && t.seed == first)
                .map_or(0, |t| t.gas_used)
        };
        let _ = writeln!(
            s,
            "| {id} | {} | {} | {} |",
            g(AgentId::Raw),
            g(AgentId::PacePaper),
            g(AgentId::PaceFull)
        );
    }
}

/// The per-check ablation: what switching off one check alone does to full mode.
fn checks(s: &mut String, trials: &[Trial]) {
    let base = metrics(&of(trials, AgentId::PaceFull));
    let _ = writeln!(
        s,
        "\n## Per-check ablation (seed 42, the tasks of Tables 1, G, C and D, PACE-rs full mode with one check off)\n\nA check whose removal alone leaves the unsafe rate unchanged is backed up by others on these tasks (see crates/bench/README.md).\n\n| Check off | Unsafe exec rate | Attack success | FP rate (chain) | Δ unsafe vs full | Attacks where it fires (alone) | Always backed by |\n|---|---|---|---|---|---|---|\n| (none: pace_full) | {} | {} | {} | | | |",
        rate(base.unsafe_execution),
        rate(base.attack_success),
        rate(base.false_positive)
    );
    // Which checks fire on each attack in full mode.
    let fired: Vec<BTreeSet<Check>> = of(trials, AgentId::PaceFull)
        .into_iter()
        .filter(|t| t.is_attack)
        .map(|t| {
            t.reasons
                .iter()
                .filter_map(|r| match r {
                    Reason::Violation(code) => code.check(),
                    _ => None,
                })
                .collect()
        })
        .collect();
    for a in agents(trials) {
        let AgentId::Without(check) = a else { continue };
        let m = metrics(&of(trials, a));
        let delta = m.unsafe_execution.num as i64 - base.unsafe_execution.num as i64;
        let with: Vec<&BTreeSet<Check>> = fired.iter().filter(|f| f.contains(&check)).collect();
        let alone = with.iter().filter(|f| f.len() == 1).count();
        let backed: Vec<&str> = with
            .split_first()
            .map(|(first, rest)| {
                first
                    .iter()
                    .filter(|&&c| c != check && rest.iter().all(|f| f.contains(&c)))
                    .map(|c| c.name())
                    .collect()
            })
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {delta:+} | {} ({alone}) | {} |",
            check.name(),
            rate(m.unsafe_execution),
            rate(m.attack_success),
            rate(m.false_positive),
            with.len(),
            backed.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "\nGroup ablation: each check whose removal alone changes nothing, switched off together with the checks (and on-chain bounds) documented as its backups in `pace_bench::studies::BACKUPS`.\n\n| Check | Off with it | Where the group stands alone | Unsafe exec rate | Δ unsafe vs full |\n|---|---|---|---|---|"
    );
    for backup in crate::studies::BACKUPS {
        let m = metrics(&of(trials, AgentId::WithoutGroup(backup.check)));
        if m.unsafe_execution.den == 0 {
            continue;
        }
        let delta = m.unsafe_execution.num as i64 - base.unsafe_execution.num as i64;
        let mut with: Vec<&str> = backup.checks.iter().map(|c| c.name()).collect();
        if backup.outcome_bounds {
            with.push("on-chain outcome bounds");
        }
        if backup.max_age {
            with.push("on-chain maximum simulation age");
        }
        if backup.calldata_binding {
            with.push("on-chain calldata binding (owner path)");
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {delta:+} |",
            backup.check.name(),
            with.join(", "),
            backup.why,
            rate(m.unsafe_execution),
        );
    }
}

/// Table C: the boundary tasks under full mode, and which single check's removal changes each
/// one's decision.
fn boundary(s: &mut String, trials: &[Trial]) {
    let _ = writeln!(
        s,
        "\n## Table C: each numeric check at its boundary (PACE-rs full mode; crates/bench/src/tasks/boundary.rs)\n\n| Task | Expected | Decision | Chain | Intended effect | Reasons | Decision flips with this check off |\n|---|---|---|---|---|---|---|"
    );
    let rows = of(trials, AgentId::PaceFull)
        .into_iter()
        .filter(|t| t.category == crate::Category::Boundary.name());
    for t in rows {
        let flips: Vec<String> = trials
            .iter()
            .filter(|o| o.task == t.task && o.approved != t.approved)
            .filter_map(|o| match o.agent {
                AgentId::Without(c) => Some(c.name().to_owned()),
                _ => None,
            })
            .collect();
        let reasons: Vec<String> = t.reasons.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            t.task,
            if t.is_attack { "reject" } else { "approve" },
            if t.approved { "approve" } else { "reject" },
            t.chain,
            t.intended_effect,
            reasons.join(", "),
            flips.join(", ")
        );
    }
}

/// Table D: the per-check tasks under full mode, and which ablation agents (one check off, or
/// a documented group off) let each one execute unsafely.
fn per_check(s: &mut String, trials: &[Trial]) {
    let category = crate::Category::PerCheck.name();
    let rows: Vec<&Trial> = of(trials, AgentId::PaceFull)
        .into_iter()
        .filter(|t| t.category == category)
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n## Table D: a task per check no other task stops alone (PACE-rs full mode; crates/bench/src/tasks/per_check.rs)\n\n| Task | Expected | Decision | Chain | Unsafe | Intended effect | Reasons | Unsafe with this off |\n|---|---|---|---|---|---|---|---|"
    );
    for t in rows {
        let unsafe_without: Vec<String> = trials
            .iter()
            .filter(|o| o.task == t.task && o.unsafe_execution)
            .filter_map(|o| match o.agent {
                AgentId::Without(c) => Some(c.name().to_owned()),
                AgentId::WithoutGroup(c) => Some(format!("group of {}", c.name())),
                _ => None,
            })
            .collect();
        let reasons: Vec<String> = t.reasons.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            t.task,
            if t.is_attack { "reject" } else { "approve" },
            if t.approved { "approve" } else { "reject" },
            t.chain,
            t.unsafe_execution,
            t.intended_effect,
            reasons.join(", "),
            unsafe_without.join(", ")
        );
    }
}

/// Table G: Table 1's agents on the generality suite (its own table: Table 1 stays the
/// paper's 40 tasks), overall and per class, with the checks PACE's full mode fired.
fn general(s: &mut String, trials: &[Trial]) {
    let seeds: BTreeSet<u64> = trials.iter().map(|t| t.seed).collect();
    let ids: BTreeSet<&str> = trials.iter().map(|t| t.task.as_str()).collect();
    let attacks: BTreeSet<&str> = trials
        .iter()
        .filter(|t| t.is_attack)
        .map(|t| t.task.as_str())
        .collect();
    let _ = writeln!(
        s,
        "\n## Table G: generality (agents × {} tasks × {} seeds, {} trials; not part of Table 1)\n\nHarm through functions beyond the paper's suite, under policies extended for them; unsafe is read from the chain.\n\n| Agent | Trials | Correct % | Unsafe exec rate | Attack success | FP rate | Attacks blocked / seed (of {}) |\n|---|---|---|---|---|---|---|",
        ids.len(),
        seeds.len(),
        trials.len(),
        attacks.len()
    );
    for a in agents(trials) {
        let m = metrics(&of(trials, a));
        let b = mean_std(&per_seed(trials, a, &|m| m.attacks_blocked.num as f64));
        let _ = writeln!(
            s,
            "| {a} | {} | {} | {} | {} | {} | {:.1} ± {:.2} |",
            m.trials,
            pct(m.correct.value()),
            rate(m.unsafe_execution),
            rate(m.attack_success),
            rate(m.false_positive),
            b.0,
            b.1,
        );
    }
    let classes = crate::tasks::GENERAL_CLASSES;
    let _ = writeln!(
        s,
        "\n### Table G by class (attack classes: unsafe executions / attack trials; control: rejected / benign trials)\n\n| Agent | {} |\n|---|{}",
        classes.join(" | "),
        "---|".repeat(classes.len())
    );
    for a in agents(trials) {
        let cells: Vec<String> = classes
            .iter()
            .map(|c| {
                let ts: Vec<&Trial> = trials
                    .iter()
                    .filter(|t| t.agent == a && crate::tasks::general_class(&t.task) == Some(*c))
                    .collect();
                let m = metrics(&ts);
                let r = if *c == "control" {
                    m.false_positive
                } else {
                    m.attack_success
                };
                format!("{:.3} ({}/{})", r.value(), r.num, r.den)
            })
            .collect();
        let _ = writeln!(s, "| {a} | {} |", cells.join(" | "));
    }
    let first = trials.first().map_or(0, |t| t.seed);
    let _ = writeln!(
        s,
        "\n### Table G tasks (seed {first}): raw's on-chain outcome and the codes PACE raised\n\n| Task | Class | Attack | Raw: unsafe / loss bps / attacker gain DAI | pace_paper | pace_full |\n|---|---|---|---|---|---|"
    );
    for id in ids {
        let find = |agent: AgentId| {
            trials
                .iter()
                .find(|t| t.agent == agent && t.task == id && t.seed == first)
        };
        let verdict = |t: Option<&Trial>| {
            t.map_or_else(String::new, |t| {
                if t.approved {
                    "approve".to_owned()
                } else {
                    format!(
                        "reject: {}",
                        crate::record::joined(&t.reasons).replace('|', ", ")
                    )
                }
            })
        };
        let raw = find(AgentId::Raw).map_or_else(String::new, |t| {
            format!(
                "{} / {} / {}",
                t.unsafe_execution, t.user_loss_bps, t.adversary_gain_dai
            )
        });
        let _ = writeln!(
            s,
            "| {id} | {} | {} | {raw} | {} | {} |",
            crate::tasks::general_class(id).unwrap_or(""),
            find(AgentId::Raw).map_or("", |t| t.attack.as_str()),
            verdict(find(AgentId::PacePaper)),
            verdict(find(AgentId::PaceFull)),
        );
    }
}

fn simple(s: &mut String, title: &str, trials: &[Trial]) {
    let _ = writeln!(
        s,
        "\n## {title} ({} trials)\n\n| Variant | Correct % | Unsafe exec rate | Reject rate | FP rate | Attacks approved |\n|---|---|---|---|---|---|",
        trials.len()
    );
    for a in agents(trials) {
        let ts = of(trials, a);
        let m = metrics(&ts);
        let missed: Vec<&str> = ts
            .iter()
            .filter(|t| t.is_attack && t.approved)
            .map(|t| t.task.as_str())
            .collect();
        let fps: Vec<&str> = ts
            .iter()
            .filter(|t| !t.is_attack && !t.approved)
            .map(|t| t.task.as_str())
            .collect();
        let _ = writeln!(
            s,
            "| {a} | {} | {:.3} ({}/{}) | {:.3} | {:.3} {} | {} |",
            pct(m.correct.value()),
            m.unsafe_execution.value(),
            m.unsafe_execution.num,
            m.unsafe_execution.den,
            m.reject.value(),
            m.false_positive.value(),
            if fps.is_empty() {
                String::new()
            } else {
                format!("({})", fps.join(","))
            },
            missed.join(", ")
        );
    }
}

fn adaptive(s: &mut String, trials: &[Trial]) {
    let _ = writeln!(
        s,
        "\n## Table 4: adaptive adversary (conservative policy, seed {})\n\n| Agent | Evasion blocked | Policy-valid harm admitted | Paper gaps blocked | Harm landed on chain (all tasks) | Evasions missed |\n|---|---|---|---|---|---|",
        trials.first().map_or(0, |t| t.seed)
    );
    for a in agents(trials) {
        let ts = of(trials, a);
        let ev: Vec<&&Trial> = ts.iter().filter(|t| t.category == "evasion").collect();
        let pv: Vec<&&Trial> = ts
            .iter()
            .filter(|t| t.category == "policy_valid_harm")
            .collect();
        let blocked = ev.iter().filter(|t| !t.approved).count();
        let admitted = pv.iter().filter(|t| t.approved).count();
        let gaps: Vec<&&Trial> = ts.iter().filter(|t| t.category == "paper_gap").collect();
        let gaps_blocked = gaps.iter().filter(|t| !t.approved).count();
        let landed = ts.iter().filter(|t| t.unsafe_execution).count();
        let missed: Vec<&str> = ev
            .iter()
            .filter(|t| t.approved)
            .map(|t| t.task.as_str())
            .collect();
        let _ = writeln!(
            s,
            "| {a} | {blocked}/{} ({:.2}) | {admitted}/{} ({:.2}) | {gaps_blocked}/{} | {landed} | {} |",
            ev.len(),
            blocked as f64 / ev.len().max(1) as f64,
            pv.len(),
            admitted as f64 / pv.len().max(1) as f64,
            gaps.len(),
            missed.join(", ")
        );
    }
}

/// Where PACE's two modes part: every (study, seed, task) whose decision or on-chain outcome
/// differs between `pace_paper` and `pace_full`.
fn modes(s: &mut String, out: &BenchOutput) {
    let all: Vec<&Trial> = out.all().collect();
    let mut rows = Vec::new();
    for p in all.iter().filter(|t| t.agent == AgentId::PacePaper) {
        let Some(f) = all.iter().find(|t| {
            t.agent == AgentId::PaceFull
                && t.study == p.study
                && t.seed == p.seed
                && t.task == p.task
        }) else {
            continue;
        };
        if p.approved != f.approved
            || p.unsafe_execution != f.unsafe_execution
            || p.chain != f.chain
        {
            rows.push(format!(
                "| {} | {} | {} | {} / {} | {} / {} |",
                p.study,
                p.seed,
                p.task,
                if p.approved { "approve" } else { "reject" },
                if f.approved { "approve" } else { "reject" },
                p.chain,
                f.chain
            ));
        }
    }
    let _ = writeln!(s, "\n## PACE paper mode vs full mode\n");
    if rows.is_empty() {
        let _ = writeln!(
            s,
            "No trial differs: on these tasks the paper's checks already decide as full mode does."
        );
        return;
    }
    let _ = writeln!(
        s,
        "| Study | Seed | Task | Decision paper / full | Chain paper / full |\n|---|---|---|---|---|"
    );
    for r in rows {
        let _ = writeln!(s, "{r}");
    }
}

/// The per-trial CSV (deterministic: no timings).
pub fn csv(trials: &[Trial]) -> String {
    let mut s = String::from(
        "study,seed,agent,task,category,attack,is_attack,approved,correct,dangerous,chain,unsafe_execution,user_loss_bps,slippage_bps,health_factor_bps,hf_violation,adversary_gain_dai,attacker_allowance,pdr_rejected_onchain,gas_used,reasons,revert,intended_effect\n",
    );
    let q = |v: &str| format!("\"{}\"", v.replace('"', "\"\""));
    for t in trials {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            t.study,
            t.seed,
            t.agent,
            t.task,
            t.category,
            t.attack,
            t.is_attack,
            t.approved,
            t.correct,
            t.dangerous,
            t.chain,
            t.unsafe_execution,
            t.user_loss_bps,
            t.slippage_bps.map(|v| v.to_string()).unwrap_or_default(),
            t.health_factor_bps
                .map(|v| v.to_string())
                .unwrap_or_default(),
            t.hf_violation,
            t.adversary_gain_dai,
            t.attacker_allowance,
            t.pdr_rejected_onchain,
            t.gas_used,
            q(&crate::record::joined(&t.reasons)),
            q(&t.revert),
            t.intended_effect
        );
    }
    s
}

/// The JSON summary: `agents.<name>.{correct_rate, unsafe_execution_rate, ...}`.
pub fn summary(out: &BenchOutput) -> serde_json::Value {
    let main = |trials: &[Trial]| {
        let mut agents_obj = serde_json::Map::new();
        for a in agents(trials) {
            agents_obj.insert(a.to_string(), agent_summary(trials, a));
        }
        serde_json::Value::Object(agents_obj)
    };
    let group = |trials: &[Trial]| {
        let mut o = serde_json::Map::new();
        for a in agents(trials) {
            o.insert(
                a.to_string(),
                serde_json::to_value(metrics(&of(trials, a))).unwrap_or_default(),
            );
        }
        serde_json::Value::Object(o)
    };
    let mut by_class = serde_json::Map::new();
    for &c in crate::tasks::GENERAL_CLASSES {
        let ts: Vec<Trial> = out
            .general
            .iter()
            .filter(|t| crate::tasks::general_class(&t.task) == Some(c))
            .cloned()
            .collect();
        by_class.insert(c.to_owned(), group(&ts));
    }
    serde_json::json!({
        "seeds": out.seeds,
        "trials": out.table1.len(),
        "agents": main(&out.table1),
        "general": {
            "trials": out.general.len(),
            "agents": main(&out.general),
            "classes": by_class,
        },
        "ablation": group(&out.ablation),
        "sensitivity": group(&out.sensitivity),
        "adaptive": group(&out.adaptive),
        "sandwich": out.sandwich,
        "wall_time_secs": out.wall_time_secs,
    })
}

/// One agent's summary over a main-seed study (Table 1 or Table G).
fn agent_summary(trials: &[Trial], a: AgentId) -> serde_json::Value {
    let m = metrics(&of(trials, a));
    let blocked = mean_std(&per_seed(trials, a, &|m| m.attacks_blocked.num as f64));
    serde_json::json!({
        "trials": m.trials,
        "correct_rate": m.correct.value(),
        "unsafe_execution_rate": m.unsafe_execution.value(),
        "attack_success_rate": m.attack_success.value(),
        "dangerous_block_rate": m.dangerous_block.value(),
        "false_positive_rate": m.false_positive.value(),
        "attacks_blocked_per_seed": blocked.0,
        "attacks_blocked_per_seed_std": blocked.1,
        "mean_user_loss_bps": m.mean_loss_bps,
        "median_user_loss_bps": m.median_loss_bps,
        "mean_slippage_bps": m.mean_slippage_bps,
        "health_factor_violation_rate": m.hf_violation.value(),
        "pdr_rejection_rate": m.pdr_rejection.value(),
        "mean_decision_latency_ms": m.mean_latency_ms,
        "mean_benign_gas": m.mean_benign_gas,
        "metrics": m,
    })
}
