//! `pace demo`: the scripted agent on the embedded in-process EVM.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, print_stdout};
use clap::Parser;

/// Run five agent proposals (a benign swap and four attacks) through simulate -> verify ->
/// sign -> execute on the embedded world, and print what happened to each.
#[derive(Debug, Parser)]
pub struct DemoArgs {}

impl DemoArgs {
    /// Runs the demo; exit code 0 unless the machinery itself fails.
    pub fn run(self) -> u8 {
        match pace_pipeline::demo::run() {
            Ok(run) => {
                print_stdout(&format!(
                    "PACE demo on the embedded in-process EVM (revm): PaceAccount {} with real Uniswap V2 bytecode\n",
                    run.addrs.account
                ));
                print_stdout(pace_pipeline::demo::render(&run).trim_end());
                EXIT_APPROVE
            }
            Err(e) => {
                eprintln!("pace demo: {e}");
                EXIT_BAD_INPUT
            }
        }
    }
}
