//! `pace deploy-helpers`: the stateless helper contracts the account's post-conditions read
//! (`PaceShareValue`), each at its one address on every chain (CREATE2 through the standard
//! deployer, salt 0), from the embedded bytecode. Anyone may deploy them; a PDR that relies on
//! one is signed only where its code is.

use crate::{
    EXIT_APPROVE, EXIT_BAD_INPUT,
    deploy::{DEPLOYER_KEY_ENV, connect, create2, exit_code, runtime},
    print_stdout, sender,
};
use alloy_primitives::B256;
use clap::Parser;
use pace_pipeline::ExecutionResult;
use std::path::PathBuf;

/// Deploy the helper contracts post-conditions read (PaceShareValue: what shares of a
/// two-reserve pool are worth) at their addresses, each only where it has no code yet, and
/// print them as JSON. Exit 0 deployed or already there, 1 reverted, 2 bad input, 3 uncertain.
#[derive(Debug, Parser)]
pub struct DeployHelpersArgs {
    /// The node's JSON-RPC endpoint (http:// or https://).
    #[arg(long)]
    pub rpc: String,
    /// Encrypted keystore of the sending account (password in PACE_KEYSTORE_PASSWORD);
    /// default: the hex key in PACE_DEPLOYER_KEY.
    #[arg(long)]
    pub keystore: Option<PathBuf>,
}

impl DeployHelpersArgs {
    /// Deploys (or finds) the helpers and prints them.
    pub fn run(self) -> u8 {
        match self.go() {
            Ok(code) => code,
            Err(e) => {
                eprintln!("pace deploy-helpers: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    fn go(&self) -> Result<u8, String> {
        let signer = sender::signer(self.keystore.as_deref(), DEPLOYER_KEY_ENV)?;
        let helper = pace_contracts::helpers::share_value().map_err(|e| e.to_string())?;
        runtime()?.block_on(async {
            let client = connect(&self.rpc, signer).await?;
            let mut doc = serde_json::json!({
                "name": "PaceShareValue",
                "address": helper.address,
                "chain_id": client.chain_id(),
            });
            if !client
                .code(helper.address)
                .await
                .map_err(|e| e.to_string())?
                .is_empty()
            {
                doc["status"] = "already_deployed".into();
                print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
                return Ok(EXIT_APPROVE);
            }
            let (result, status) = create2(&client, B256::ZERO, &helper.init_code).await?;
            doc["status"] = status.into();
            if matches!(result, ExecutionResult::Executed { .. }) {
                let code = client
                    .code(helper.address)
                    .await
                    .map_err(|e| e.to_string())?;
                if code != helper.runtime {
                    return Err(format!(
                        "deployed, but {} holds other code than PaceShareValue's",
                        helper.address
                    ));
                }
            }
            let code = exit_code(&result);
            doc["execution"] = serde_json::to_value(&result).expect("serialises");
            print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
            Ok(code)
        })
    }
}
