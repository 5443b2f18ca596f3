//! `pace simulate`: run an intent on the embedded world (or a node's state) and print the report.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, input, print_stdout};
use clap::Parser;
use pace_evm::InProcessEvm;
use pace_simulator::SimulateOptions;
use std::path::PathBuf;

/// Simulate an intent on revm and print the SimulationReport as JSON. The state is the
/// embedded world (see `pace world`) unless `--rpc` names a node to fork from.
///
/// With `--policy`, the simulator also measures the policy's tokens and reads the price
/// sources it names (feeds, vaults, pools), which value conservation needs when the
/// execution does not touch them. On the embedded world without `--policy`, the world's
/// default policy plays that part.
#[derive(Debug, Parser)]
pub struct SimulateArgs {
    /// The intent (JSON).
    #[arg(long)]
    pub intent: PathBuf,
    /// The policy the report will be verified against (JSON): its tokens and price sources
    /// are read too.
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Fork the state from this node's JSON-RPC endpoint (http:// or https://) instead of the
    /// embedded world.
    #[arg(long)]
    pub rpc: Option<String>,
    /// With `--rpc`: the block to fork at (default: latest).
    #[arg(long, requires = "rpc")]
    pub block: Option<u64>,
}

/// The embedded world, with the development verifier key ([`pace_signer::DEV_VERIFIER_KEY`],
/// as in `pace demo`) as the account's verifier.
pub(crate) fn embedded_world() -> Result<pace_world::World, String> {
    let signer = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
        .map_err(|e| e.to_string())?;
    pace_world::World::new(signer.address()).map_err(|e| e.to_string())
}

/// The state to simulate on: a fork of `rpc` at `block`, or the embedded world.
pub(crate) fn state(rpc: Option<&str>, block: Option<u64>) -> Result<InProcessEvm, String> {
    match rpc {
        Some(url) => InProcessEvm::fork(url, block)
            .map_err(|e| format!("cannot fork {url}: {}", crate::causes(&e))),
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
        let options = match &self.policy {
            Some(path) => match input::policy(path) {
                Ok(p) => SimulateOptions::for_policy(&p),
                Err(e) => {
                    eprintln!("pace simulate: {e}");
                    return EXIT_BAD_INPUT;
                }
            },
            None => SimulateOptions::default(),
        };
        let (evm, options) = match (self.rpc.as_deref(), self.policy.is_some()) {
            (Some(url), _) => match InProcessEvm::fork(url, self.block) {
                Ok(evm) => (evm, options),
                Err(e) => {
                    eprintln!("pace simulate: cannot fork {url}: {e}");
                    return EXIT_BAD_INPUT;
                }
            },
            // The embedded world's mocks revert with errors only the world can name.
            (None, with_policy) => match embedded_world() {
                Ok(world) if with_policy => (
                    world.evm,
                    options.with_revert_decoder(pace_world::revert_decoder()),
                ),
                Ok(world) => {
                    let defaults = pace_world::default_policy(&world.addrs);
                    (
                        world.evm,
                        SimulateOptions::for_policy(&defaults)
                            .with_revert_decoder(pace_world::revert_decoder()),
                    )
                }
                Err(e) => {
                    eprintln!("pace simulate: {e}");
                    return EXIT_BAD_INPUT;
                }
            },
        };
        match pace_simulator::simulate_with(&evm, &intent, &options) {
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
