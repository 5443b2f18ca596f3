//! The figures hook: PNG charts of the studies, drawn with `pace-plot`.

use crate::BenchOutput;
use crate::metrics::{mean_std, metrics};
use crate::record::AgentId;
use crate::trial::Trial;
use std::path::{Path, PathBuf};

fn agents(trials: &[Trial]) -> Vec<AgentId> {
    let mut seen: Vec<AgentId> = Vec::new();
    for t in trials {
        if !seen.contains(&t.agent) {
            seen.push(t.agent);
        }
    }
    seen
}

fn agent_metrics(trials: &[Trial], a: AgentId) -> crate::Metrics {
    let ts: Vec<&Trial> = trials.iter().filter(|t| t.agent == a).collect();
    metrics(&ts)
}

fn plot_err(e: &pace_plot::Error) -> crate::Error {
    crate::Error::Setup(format!("figure: {e}"))
}

/// Writes the figures of every study that ran into `dir`; returns their paths.
pub fn write_figures(out: &BenchOutput, dir: &Path) -> crate::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    if !out.table1.is_empty() {
        let names = agents(&out.table1);
        let names_s: Vec<String> = names.iter().map(ToString::to_string).collect();
        let labels: Vec<&str> = names_s.iter().map(String::as_str).collect();
        let series: Vec<(&str, Vec<f64>)> = vec![
            (
                "unsafe execution rate",
                names
                    .iter()
                    .map(|a| agent_metrics(&out.table1, *a).unsafe_execution.value())
                    .collect(),
            ),
            (
                "attack success rate",
                names
                    .iter()
                    .map(|a| agent_metrics(&out.table1, *a).attack_success.value())
                    .collect(),
            ),
            (
                "false-positive rate",
                names
                    .iter()
                    .map(|a| agent_metrics(&out.table1, *a).false_positive.value())
                    .collect(),
            ),
        ];
        let p = dir.join("table1_rates.png");
        pace_plot::grouped_bar_chart(
            &p,
            "Table 1: safety by agent (10 seeds)",
            &labels,
            &series,
            "rate",
        )
        .map_err(|e| plot_err(&e))?;
        written.push(p);
        let blocked: Vec<f64> = names
            .iter()
            .map(|a| {
                let seeds: std::collections::BTreeSet<u64> =
                    out.table1.iter().map(|t| t.seed).collect();
                let per: Vec<f64> = seeds
                    .iter()
                    .map(|&s| {
                        let ts: Vec<&Trial> = out
                            .table1
                            .iter()
                            .filter(|t| t.agent == *a && t.seed == s)
                            .collect();
                        metrics(&ts).attacks_blocked.num as f64
                    })
                    .collect();
                mean_std(&per).0
            })
            .collect();
        let p = dir.join("attacks_blocked.png");
        pace_plot::bar_chart(
            &p,
            "Attacks blocked per seed (of 32)",
            &labels,
            &blocked,
            "attacks",
        )
        .map_err(|e| plot_err(&e))?;
        written.push(p);
    }
    if !out.ablation.is_empty() {
        let names = agents(&out.ablation);
        let names_s: Vec<String> = names.iter().map(ToString::to_string).collect();
        let labels: Vec<&str> = names_s
            .iter()
            .map(|n| n.trim_start_matches("pace_"))
            .collect();
        let values: Vec<f64> = names
            .iter()
            .map(|a| agent_metrics(&out.ablation, *a).unsafe_execution.value())
            .collect();
        let p = dir.join("ablation_unsafe.png");
        pace_plot::bar_chart(
            &p,
            "Table 2: unsafe execution rate by ablation",
            &labels,
            &values,
            "rate",
        )
        .map_err(|e| plot_err(&e))?;
        written.push(p);
    }
    if !out.sensitivity.is_empty() {
        let x = [10.0, 100.0, 1_000.0];
        let correct: Vec<f64> = [10, 100, 1_000]
            .into_iter()
            .map(|bps| {
                100.0
                    * agent_metrics(&out.sensitivity, AgentId::Slippage(bps))
                        .correct
                        .value()
            })
            .collect();
        let p = dir.join("sensitivity_slippage.png");
        pace_plot::line_chart(
            &p,
            "Correct % vs slippage bound",
            &x,
            &[("correct %", correct)],
            "max slippage (bps)",
            "correct %",
        )
        .map_err(|e| plot_err(&e))?;
        written.push(p);
    }
    Ok(written)
}
