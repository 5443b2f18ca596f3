//! `pace bench`: the paper's evaluation (sections 6-7) on the embedded EVM.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, print_stdout};
use clap::Parser;
use pace_bench::{BenchConfig, llm::LlmStudy, report};
use pace_llm::LlmConfig;
use std::io::Write as _;
use std::path::PathBuf;

/// Run the benchmark: 40 tasks × 10 seeds × 8 agents (Table 1), the ablation and sensitivity
/// studies (seed 42) and the adaptive adversary (Table 4), executing every approved trial on
/// revm. Prints markdown tables on stdout, progress on stderr, and writes `trials.csv`,
/// `summary.json` and the figures to `--out` when it is given (nothing is written otherwise).
#[derive(Debug, Parser)]
pub struct BenchArgs {
    /// Output folder for the per-trial CSV, the summary and the figures (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write the JSON summary here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Seeds of the main study, e.g. `0..10` or `3`.
    #[arg(long, default_value = "0..10")]
    pub seeds: String,
    /// Only Tables 1 and G (skip the ablation, sensitivity and adaptive studies).
    #[arg(long)]
    pub quick: bool,
    /// Worker threads for Table 1 (and Table G); every available core by default. The
    /// trials do not depend on it.
    #[arg(long, default_value_t = pace_bench::default_threads())]
    pub threads: usize,
    /// Write each seed's tasks as `pace verify` input files to this folder, then exit.
    #[arg(long, value_name = "DIR")]
    pub export_tasks: Option<PathBuf>,
    /// Also run a language model behind the PACE-rs verifier on Table 1's tasks: an
    /// OpenAI-compatible endpoint (`http(s)://host:port/v1`; requests go to
    /// `{URL}/chat/completions`, the key from `PACE_LLM_API_KEY`). Its trials go to
    /// `llm_trials.csv`, never into Table 1 or `trials.csv`.
    #[arg(long, value_name = "URL")]
    pub llm: Option<String>,
    /// The model name sent to `--llm`.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "gpt-4o-mini",
        requires = "llm"
    )]
    pub llm_model: String,
    /// Append every model exchange to this JSON-lines trace.
    #[arg(long, value_name = "FILE", requires = "llm")]
    pub llm_trace: Option<PathBuf>,
    /// Trust the root certificates in this PEM file for an `https://` `--llm`, besides the
    /// system's (which `SSL_CERT_FILE` replaces).
    #[arg(long, value_name = "FILE", requires = "llm")]
    pub llm_ca_cert: Option<PathBuf>,
}

fn parse_seeds(s: &str) -> Option<Vec<u64>> {
    if let Some((a, b)) = s.split_once("..") {
        let (a, b) = (a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?);
        return (a < b).then(|| (a..b).collect());
    }
    s.split(',').map(|x| x.trim().parse().ok()).collect()
}

impl BenchArgs {
    /// Runs the benchmark; 0 on success, 2 on failure.
    pub fn run(self) -> u8 {
        let Some(seeds) = parse_seeds(&self.seeds) else {
            eprintln!("pace bench: --seeds: expected `a..b` or a comma-separated list");
            return EXIT_BAD_INPUT;
        };
        if let Some(dir) = &self.export_tasks {
            return match pace_bench::export_tasks(dir, &seeds) {
                Ok(n) => {
                    eprintln!("pace bench: wrote {n} tasks to {}", dir.display());
                    EXIT_APPROVE
                }
                Err(e) => {
                    eprintln!("pace bench: {e}");
                    EXIT_BAD_INPUT
                }
            };
        }
        let config = BenchConfig {
            seeds,
            table1: true,
            ablation: !self.quick,
            adaptive: !self.quick,
            threads: self.threads.max(1),
            llm: self.llm.as_ref().map(|url| LlmStudy {
                model: LlmConfig {
                    ca_cert: self.llm_ca_cert.clone(),
                    ..LlmConfig::from_env(url.as_str(), self.llm_model.as_str())
                },
                trace: self.llm_trace.clone(),
            }),
            ..BenchConfig::default()
        };
        // A bad endpoint or trace path fails now, not after the other studies ran.
        if let Some(Err(e)) = config.llm.as_ref().map(LlmStudy::model) {
            eprintln!("pace bench: --llm: {e}");
            return EXIT_BAD_INPUT;
        }
        let progress = |study: &str, done: usize, total: usize| {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r[pace bench] {study}: {done}/{total} seeds   ");
            if done == total {
                let _ = writeln!(err);
            }
        };
        let out = match pace_bench::run(&config, &progress) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("pace bench: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        print_stdout(report::markdown(&out).trim_end());
        let trials: Vec<_> = out.all().cloned().collect();
        let summary = serde_json::to_string_pretty(&report::summary(&out)).unwrap_or_default();
        if let Some(path) = &self.json
            && let Err(e) = write_file(path, &summary)
        {
            eprintln!("pace bench: writing {}: {e}", path.display());
            return EXIT_BAD_INPUT;
        }
        let Some(dir) = &self.out else {
            eprintln!(
                "pace bench: {} trials in {:.1} s; no --out, so no CSV, summary or figures written",
                trials.len(),
                out.wall_time_secs
            );
            return EXIT_APPROVE;
        };
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join("trials.csv"), report::csv(&trials)))
            .and_then(|()| std::fs::write(dir.join("summary.json"), &summary))
            .and_then(|()| match out.llm.is_empty() {
                true => Ok(()),
                false => std::fs::write(dir.join("llm_trials.csv"), report::csv(&out.llm)),
            });
        if let Err(e) = written {
            eprintln!("pace bench: writing outputs to {}: {e}", dir.display());
            return EXIT_BAD_INPUT;
        }
        // Figures hook: PNG charts via `pace-plot`.
        match pace_bench::figures::write_figures(&out, &dir.join("figures")) {
            Ok(files) => eprintln!(
                "pace bench: {} figures in {}",
                files.len(),
                dir.join("figures").display()
            ),
            Err(e) => eprintln!("pace bench: figures skipped: {e}"),
        }
        eprintln!(
            "pace bench: {} trials in {:.1} s; CSV and summary in {}",
            trials.len(),
            out.wall_time_secs,
            dir.display()
        );
        EXIT_APPROVE
    }
}

/// Writes `text` to `path`, creating its parent folder if missing (it is part of the path the
/// caller named).
fn write_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}
