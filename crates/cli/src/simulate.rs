//! `pace simulate`: run an intent on the embedded world (or a node's state) and print the report.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, input, print_stdout};
use clap::Parser;
use pace_evm::InProcessEvm;
use std::path::PathBuf;

/// Simulate an intent on revm and print the SimulationReport as JSON. The state is the
/// embedded world (see `pace world`) unless `--rpc` names a node to fork from.
#[derive(Debug, Parser)]
pub struct SimulateArgs {
    /// The intent (JSON).
    #[arg(long)]
    pub intent: PathBuf,
    /// Fork the state from this node's JSON-RPC endpoint (http://) instead of the embedded world.
    #[arg(long)]
    pub rpc: Option<String>,
    /// With `--rpc`: the block to fork at (default: latest).
    #[arg(long, requires = "rpc")]
    pub block: Option<u64>,
}

/// The embedded world, with the demo's verifier as the account's verifier.
pub(crate) fn embedded_world() -> Result<pace_world::World, String> {
    let signer = pace_signer::PdrSigner::from_bytes(&pace_pipeline::demo::DEMO_VERIFIER_KEY)
        .map_err(|e| e.to_string())?;
    pace_world::World::new(signer.address()).map_err(|e| e.to_string())
}

/// The state to simulate on: a fork of `rpc` at `block`, or the embedded world.
pub(crate) fn state(rpc: Option<&str>, block: Option<u64>) -> Result<InProcessEvm, String> {
    match rpc {
        Some(url) => InProcessEvm::fork(url, block).map_err(|e| format!("cannot fork {url}: {e}")),
        None => embedded_world().map(|w| w.evm),
    }
}

impl SimulateArgs {
    /// Simulates and prints; 0 when a report was produced (even of a reverting intent).
    pub fn run(self) -> u8 {
        let intent = match input::intent(&self.intent) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("pace simulate: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        let evm = match state(self.rpc.as_deref(), self.block) {
            Ok(evm) => evm,
            Err(e) => {
                eprintln!("pace simulate: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        match pace_simulator::simulate(&evm, &intent) {
            Ok(report) => {
                print_stdout(&serde_json::to_string_pretty(&report).expect("reports serialise"));
                EXIT_APPROVE
            }
            Err(e) => {
                eprintln!("pace simulate: {}: {e}", self.intent.display());
                EXIT_BAD_INPUT
            }
        }
    }
}
