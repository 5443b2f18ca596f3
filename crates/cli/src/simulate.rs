//! `pace simulate`: run an intent on the embedded world (or a node's state) and print the report.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, input, print_stdout};
use alloy_primitives::Address;
use clap::Parser;
use pace_abi::revert::RevertDecoder;
use pace_evm::InProcessEvm;
use pace_pipeline::{Relayer, SUBMISSION_GAS_LIMIT, Simulator};
use pace_types::{CompiledPolicy, Intent, Policy, SimulationReport};
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
    /// Who will submit the intent (`tx.origin` of the simulated transaction; recorded in the
    /// report's `execution.origin`). Default: the embedded world's relayer on the embedded
    /// world, the zero address on `--rpc`. The simulated submission pays no fees (its block
    /// has no base fee) unless `--max-fee-per-gas` is given.
    #[arg(long)]
    pub relayer: Option<alloy_primitives::Address>,
    /// The relayer's `maxFeePerGas` in wei (and its priority fee with
    /// `--priority-fee-per-gas`): the simulated submission pays real fees, so the relayer must
    /// hold `gas limit × maxFeePerGas`.
    #[arg(long)]
    pub max_fee_per_gas: Option<u128>,
    /// The relayer's `maxPriorityFeePerGas` in wei (with `--max-fee-per-gas`; default 0).
    #[arg(long, default_value_t = 0, requires = "max_fee_per_gas")]
    pub priority_fee_per_gas: u128,
    /// Where the PDR will go and how it will get there, as `pace run` takes them (recorded in
    /// the report's `execution`).
    #[command(flatten)]
    pub account: crate::account::AccountArgs,
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

/// The policy that asks the simulator to read nothing beyond what the execution touches.
fn nothing() -> CompiledPolicy {
    Policy::default()
        .compile()
        .expect("the default policy compiles")
}

impl SimulateArgs {
    /// The relayer the simulation submits as: `--relayer` or `default`, with `gas_limit`,
    /// paying the fees `--max-fee-per-gas` gives (none without it).
    fn relayer(&self, default: Address, gas_limit: u64) -> Relayer {
        Relayer {
            address: self.relayer.unwrap_or(default),
            gas_limit,
            max_fee_per_gas: self.max_fee_per_gas.unwrap_or(0),
            priority_fee_per_gas: self.priority_fee_per_gas,
        }
    }

    /// Simulates and prints; 0 when a report was produced (even of a reverting intent).
    pub fn run(self) -> u8 {
        match self.simulated() {
            Ok((_, _, report)) => {
                print_stdout(&serde_json::to_string_pretty(&report).expect("reports serialise"));
                EXIT_APPROVE
            }
            Err(e) => {
                eprintln!("pace simulate: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    /// The state simulated on, the intent and its report: what `pace simulate` prints (and
    /// `pace policy suggest` reads). `Err` is bad input: a file, the node, or the intent.
    pub(crate) fn simulated(&self) -> Result<(InProcessEvm, Intent, SimulationReport), String> {
        let intent = input::intent(&self.intent).map_err(|e| e.to_string())?;
        let policy = match &self.policy {
            Some(path) => Some(input::policy(path).map_err(|e| e.to_string())?),
            None => None,
        };
        let (evm, policy, simulator) = match self.rpc.as_deref() {
            // Without a policy, nothing beyond what the execution touches is read.
            Some(url) => {
                let evm = InProcessEvm::fork(url, self.block)
                    .map_err(|e| format!("cannot fork {url}: {e}"))?;
                let relayer = self.relayer(Address::ZERO, SUBMISSION_GAS_LIMIT);
                let simulator = Simulator::new(RevertDecoder::default(), relayer);
                (evm, policy.unwrap_or_else(nothing), simulator)
            }
            // The embedded world's mocks revert with errors only the world can name; its
            // default policy is read when none is given.
            None => {
                let world = embedded_world()?;
                let policy = policy.unwrap_or_else(|| {
                    CompiledPolicy::try_from(pace_world::default_policy(&world.addrs))
                        .expect("the default policy compiles")
                });
                let relayer = self.relayer(world.addrs.relayer, world.evm.tx_gas_limit());
                let simulator = Simulator::new(pace_world::revert_decoder(), relayer);
                (world.evm, policy, simulator)
            }
        };
        let simulator = simulator
            .with_account_kind(self.account.account_kind)
            .with_entry(self.account.entry);
        let report = simulator
            .simulate(&evm, intent.clone(), &policy)
            .map_err(|e| format!("{}: {e}", self.intent.display()))?
            .into_report();
        Ok((evm, intent, report))
    }
}
