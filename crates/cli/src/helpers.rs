//! `pace deploy-helpers`: the stateless helper contracts the account's post-conditions read
//! (`PaceShareValue`), each at its one address on every chain (CREATE2 through the standard
//! deployer, salt 0), from the embedded bytecode. Anyone may deploy them; a PDR that relies on
//! one is signed only where its code is.

use crate::{
    EXIT_APPROVE, EXIT_BAD_INPUT, deploy::CREATE2_DEPLOYER, deploy::DEPLOYER_KEY_ENV,
    deploy::connect, deploy::exit_code, deploy::runtime, print_stdout, sender,
};
use alloy_primitives::{B256, Bytes, U256};
use clap::Parser;
use pace_node::Tx;
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
            if client
                .code(CREATE2_DEPLOYER)
                .await
                .map_err(|e| e.to_string())?
                .is_empty()
            {
                return Err(format!(
                    "no CREATE2 deployer at {CREATE2_DEPLOYER} on this chain; nothing was sent"
                ));
            }
            let data: Bytes = [B256::ZERO.as_slice(), &helper.init_code].concat().into();
            let outcome = client
                .execute(Tx::call(CREATE2_DEPLOYER, U256::ZERO, data))
                .await
                .map_err(|e| format!("{}; nothing was sent", crate::causes(&e)))?;
            let result = ExecutionResult::from(outcome);
            doc["status"] = match &result {
                ExecutionResult::Executed { .. } => "deployed",
                ExecutionResult::Reverted { .. } => "reverted",
                ExecutionResult::Uncertain { .. } => "uncertain",
            }
            .into();
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
