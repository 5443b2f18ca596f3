//! `pace hash`.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, input, print_stdout};
use clap::Parser;
use std::{collections::BTreeMap, path::PathBuf};

/// Print the content hashes of the given documents as a JSON object
/// (`intent_hash`, `policy_hash`, `simulation_hash`, `descriptor_hash`: what a policy's
/// `protocols[].hash` pins).
#[derive(Debug, Clone, Parser)]
#[command(group(clap::ArgGroup::new("documents").required(true).multiple(true)))]
pub struct HashArgs {
    /// An intent (JSON).
    #[arg(long, value_name = "FILE", group = "documents")]
    pub intent: Option<PathBuf>,
    /// A policy (JSON).
    #[arg(long, value_name = "FILE", group = "documents")]
    pub policy: Option<PathBuf>,
    /// A simulation report (JSON).
    #[arg(long, value_name = "FILE", group = "documents")]
    pub simulation: Option<PathBuf>,
    /// A protocol descriptor (JSON).
    #[arg(long, value_name = "FILE", group = "documents")]
    pub descriptor: Option<PathBuf>,
}

impl HashArgs {
    /// Runs the command and returns the exit code (0, or 2 on bad input).
    pub fn run(self) -> u8 {
        match self.hashes() {
            Ok(hashes) => {
                print_stdout(&serde_json::to_string_pretty(&hashes).expect("hashes serialize"));
                EXIT_APPROVE
            }
            Err(e) => {
                eprintln!("pace: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    fn hashes(&self) -> Result<BTreeMap<&'static str, String>, crate::InputError> {
        let mut hashes = BTreeMap::new();
        if let Some(path) = &self.intent {
            hashes.insert(
                "intent_hash",
                input::intent(path)?.intent_hash().to_string(),
            );
        }
        if let Some(path) = &self.policy {
            hashes.insert(
                "policy_hash",
                input::policy(path)?.policy_hash().to_string(),
            );
        }
        if let Some(path) = &self.simulation {
            hashes.insert(
                "simulation_hash",
                input::report(path)?.simulation_hash().to_string(),
            );
        }
        if let Some(path) = &self.descriptor {
            hashes.insert(
                "descriptor_hash",
                input::descriptor(path)?.hash().to_string(),
            );
        }
        Ok(hashes)
    }
}
