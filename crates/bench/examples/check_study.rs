//! The per-check ablation study alone (study `checks`: every task of Tables 1, G, C and the
//! per-check tasks under full mode, each check off in turn and each documented group off), on
//! one seed: the narrowest run that shows what each check contributes.
//!
//! ```text
//! cargo run --release -p pace-bench --example check_study -- [SEED] [CSV]
//! ```
//!
//! Prints the per-check ablation and Table C as markdown; writes the trials to `CSV` when it is
//! given. The seed defaults to the ablation seed (42).

use pace_bench::{Bench, BenchOutput, report, studies};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let seed = match args.next().map(|s| s.parse::<u64>()) {
        None => studies::BenchConfig::default().ablation_seed,
        Some(Ok(s)) => s,
        Some(Err(e)) => {
            eprintln!("check_study: SEED: {e}");
            return ExitCode::from(2);
        }
    };
    let csv = args.next();
    let run = || -> pace_bench::Result<BenchOutput> {
        let bench = Bench::new()?;
        let checks = studies::run_study(
            &bench,
            "checks",
            &[seed],
            &studies::all_tasks,
            &studies::check_ablation_agents(bench.world.addrs),
            1,
            &|_, _, _| {},
        )?;
        Ok(BenchOutput {
            checks,
            seeds: vec![seed],
            ..BenchOutput::default()
        })
    };
    let out = match run() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("check_study: {e}");
            return ExitCode::from(2);
        }
    };
    println!("{}", report::markdown(&out).trim_end());
    if let Some(path) = csv
        && let Err(e) = std::fs::write(&path, report::csv(&out.checks))
    {
        eprintln!("check_study: writing {path}: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
