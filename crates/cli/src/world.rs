//! `pace world`: what the embedded world contains, and (`--rpc URL --deploy`) the world put
//! onto a development node.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, print_stdout};
use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::Address;
use clap::Parser;
use pace_node::NodeClient;
use pace_world::on_node::copy_state;

/// Print the embedded world's chain, block, addresses and default policy as JSON, so intents
/// and policies can be written against it (`pace simulate` and `pace demo` run on it).
///
/// With `--rpc URL --deploy`, also write the whole world (tokens, Uniswap V2, fixtures, the
/// account) onto the development node at URL (anvil: `anvil_setCode`, `anvil_setStorageAt`,
/// ...), at the same addresses, and mine a block holding it, so `pace run --rpc URL` works
/// against it. It overwrites those addresses on the node: a second run resets the world.
#[derive(Debug, Parser)]
pub struct WorldArgs {
    /// The development node's JSON-RPC endpoint, with `--deploy`.
    #[arg(long, requires = "deploy")]
    pub rpc: Option<String>,
    /// Put the world onto the node at `--rpc`.
    #[arg(long, requires = "rpc")]
    pub deploy: bool,
    /// The account's verifier key address (default: the public development verifier key's, as
    /// in `pace demo`: its PDRs are signed with PACE_VERIFIER_KEY =
    /// 0x5a5a…5a, never a key for real funds).
    #[arg(long, requires = "deploy")]
    pub verifier: Option<Address>,
}

impl WorldArgs {
    /// Builds the world, puts it on the node if asked, and prints it.
    pub fn run(self) -> u8 {
        match self.go() {
            Ok(code) => code,
            Err(e) => {
                eprintln!("pace world: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    fn go(&self) -> Result<u8, String> {
        let world = match self.verifier {
            Some(verifier) => pace_world::World::new(verifier).map_err(|e| e.to_string())?,
            None => crate::simulate::embedded_world()?,
        };
        let mut doc = serde_json::json!({
            "chain_id": world.evm.chain_id(),
            "block_number": world.evm.block_number(),
            "timestamp": world.evm.timestamp(),
            "addresses": world.addrs,
            "policy": pace_world::default_policy(&world.addrs),
        });
        if let (Some(rpc), true) = (&self.rpc, self.deploy) {
            doc["node"] = crate::deploy::runtime()?.block_on(async {
                // Nothing is signed: copying uses the node's development methods only.
                let reader = PrivateKeySigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
                    .map_err(|e| e.to_string())?;
                let client = NodeClient::connect(rpc, reader)
                    .await
                    .map_err(|e| format!("cannot connect to {rpc}: {}", crate::causes(&e)))?;
                let copied = copy_state(&world.evm, &client)
                    .await
                    .map_err(|e| format!("cannot put the world on {rpc}: {}", crate::causes(&e)))?;
                Ok::<_, String>(serde_json::json!({
                    "rpc": rpc,
                    "chain_id": client.chain_id(),
                    "block_number": copied.block.number,
                    "timestamp": copied.block.timestamp,
                    "accounts": copied.accounts,
                    "storage_slots": copied.slots,
                }))
            })?;
        }
        print_stdout(&serde_json::to_string_pretty(&doc).expect("the world serialises"));
        Ok(EXIT_APPROVE)
    }
}
