//! `pace world`: what the embedded world contains.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, print_stdout};
use clap::Parser;

/// Print the embedded world's chain, block, addresses and default policy as JSON, so intents
/// and policies can be written against it (`pace simulate` and `pace demo` run on it).
#[derive(Debug, Parser)]
pub struct WorldArgs {}

impl WorldArgs {
    /// Builds the world and prints it.
    pub fn run(self) -> u8 {
        let world = match crate::simulate::embedded_world() {
            Ok(w) => w,
            Err(e) => {
                eprintln!("pace world: {e}");
                return EXIT_BAD_INPUT;
            }
        };
        let doc = serde_json::json!({
            "chain_id": world.evm.chain_id(),
            "block_number": world.evm.block_number(),
            "timestamp": world.evm.timestamp(),
            "addresses": world.addrs,
            "policy": pace_world::default_policy(&world.addrs),
        });
        print_stdout(&serde_json::to_string_pretty(&doc).expect("the world serialises"));
        EXIT_APPROVE
    }
}
