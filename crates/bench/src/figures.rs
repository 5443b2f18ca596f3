//! The figures hook: SVG charts of the studies, drawn with `pace-plot`.
//!
//! `table1_rates.svg` (Table 1's three rates per agent), `attacks_blocked.svg` (attacks blocked
//! per seed), `ablation_unsafe.svg` (Table 2's unsafe rate per ablation) and
//! `sensitivity_slippage.svg` (correct % against the slippage bound, on a logarithmic axis).
//! They only picture what the tables and `trials.csv` already hold.

use crate::BenchOutput;
use crate::metrics::{mean_std, metrics};
use crate::record::AgentId;
use crate::trial::Trial;
use pace_plot::{BarChart, LineChart, Scale, Series};
use std::path::{Path, PathBuf};

/// The slippage bounds of the sensitivity study, in bps.
const SLIPPAGE_BPS: [u32; 3] = [10, 100, 1_000];

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

/// "N seeds", or "seed S" for one, of `trials`.
fn seeds(trials: &[Trial]) -> String {
    let seeds: std::collections::BTreeSet<u64> = trials.iter().map(|t| t.seed).collect();
    match seeds.iter().next() {
        Some(s) if seeds.len() == 1 => format!("seed {s}"),
        _ => format!("{} seeds", seeds.len()),
    }
}

fn plot_err(e: &pace_plot::Error) -> crate::Error {
    crate::Error::Setup(format!("figure: {e}"))
}

/// Attacks blocked by `a`, averaged over the seeds of `trials`.
fn blocked_per_seed(trials: &[Trial], a: AgentId) -> f64 {
    let seeds: std::collections::BTreeSet<u64> = trials.iter().map(|t| t.seed).collect();
    let per: Vec<f64> = seeds
        .iter()
        .map(|&s| {
            let ts: Vec<&Trial> = trials
                .iter()
                .filter(|t| t.agent == a && t.seed == s)
                .collect();
            metrics(&ts).attacks_blocked.num as f64
        })
        .collect();
    mean_std(&per).0
}

/// Writes `chart` to `dir/name` and records the path.
fn bars(
    dir: &Path,
    name: &str,
    chart: &BarChart<'_>,
    written: &mut Vec<PathBuf>,
) -> crate::Result<()> {
    let p = dir.join(name);
    chart.save(&p).map_err(|e| plot_err(&e))?;
    written.push(p);
    Ok(())
}

/// Writes the figures of every study that ran into `dir`; returns their paths.
pub fn write_figures(out: &BenchOutput, dir: &Path) -> crate::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    if !out.table1.is_empty() {
        let names = agents(&out.table1);
        let names_s: Vec<String> = names.iter().map(ToString::to_string).collect();
        let labels: Vec<&str> = names_s.iter().map(String::as_str).collect();
        let m: Vec<crate::Metrics> = names
            .iter()
            .map(|a| agent_metrics(&out.table1, *a))
            .collect();
        let series = [
            Series::new(
                "unsafe execution rate",
                m.iter().map(|m| m.unsafe_execution.value()).collect(),
            ),
            Series::new(
                "attack success rate",
                m.iter().map(|m| m.attack_success.value()).collect(),
            ),
            Series::new(
                "false-positive rate",
                m.iter().map(|m| m.false_positive.value()).collect(),
            ),
        ];
        let title = format!("Table 1: safety by agent ({})", seeds(&out.table1));
        let chart = BarChart {
            title: &title,
            categories: &labels,
            category_title: "agent",
            value_title: "rate (0 to 1)",
            series: &series,
        };
        bars(dir, "table1_rates.svg", &chart, &mut written)?;
        let blocked = [Series::new(
            "attacks blocked per seed",
            names
                .iter()
                .map(|a| blocked_per_seed(&out.table1, *a))
                .collect(),
        )];
        let chart = BarChart {
            title: "Attacks blocked per seed (of 32)",
            categories: &labels,
            category_title: "agent",
            value_title: "attacks blocked, mean over seeds",
            series: &blocked,
        };
        bars(dir, "attacks_blocked.svg", &chart, &mut written)?;
    }
    if !out.ablation.is_empty() {
        let names = agents(&out.ablation);
        let names_s: Vec<String> = names.iter().map(ToString::to_string).collect();
        let labels: Vec<&str> = names_s.iter().map(String::as_str).collect();
        let unsafe_rate = [Series::new(
            "unsafe execution rate",
            names
                .iter()
                .map(|a| agent_metrics(&out.ablation, *a).unsafe_execution.value())
                .collect(),
        )];
        let title = format!(
            "Table 2: unsafe execution rate by ablation ({})",
            seeds(&out.ablation)
        );
        let chart = BarChart {
            title: &title,
            categories: &labels,
            category_title: "ablation",
            value_title: "unsafe execution rate (0 to 1)",
            series: &unsafe_rate,
        };
        bars(dir, "ablation_unsafe.svg", &chart, &mut written)?;
    }
    if !out.sensitivity.is_empty() {
        let x: Vec<f64> = SLIPPAGE_BPS.iter().map(|&b| f64::from(b)).collect();
        let correct = [Series::new(
            "correct %",
            SLIPPAGE_BPS
                .iter()
                .map(|&bps| {
                    100.0
                        * agent_metrics(&out.sensitivity, AgentId::Slippage(bps))
                            .correct
                            .value()
                })
                .collect(),
        )];
        let p = dir.join("sensitivity_slippage.svg");
        LineChart {
            title: "Correct decisions vs the policy's slippage bound",
            x: &x,
            x_title: "max_slippage_bps (log scale)",
            x_scale: Scale::Log10,
            y_title: "correct %",
            series: &correct,
        }
        .save(&p)
        .map_err(|e| plot_err(&e))?;
        written.push(p);
    }
    Ok(written)
}
