//! `pace run`: the whole pipeline against a node.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, input, print_stdout};
use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::B256;
use clap::Parser;
use pace_pipeline::{Chain, ExecutionResult, Pipeline, PipelineConfig};
use pace_signer::PdrSigner;
use std::path::PathBuf;

/// Simulate an intent on the node's state, verify it, sign a PDR if approved, submit it
/// through the account over JSON-RPC and wait for the receipt. Prints one JSON document:
/// the decision, the PDR and the execution result. Exit 0 executed, 1 rejected or reverted,
/// 2 bad input, 3 uncertain (the transaction may have landed: check before retrying).
#[derive(Debug, Parser)]
pub struct RunArgs {
    /// The node's JSON-RPC endpoint (http:// or https://; `SSL_CERT_FILE` trusts a private CA).
    #[arg(long)]
    pub rpc: String,
    /// The intent (JSON).
    #[arg(long)]
    pub intent: PathBuf,
    /// The policy (JSON).
    #[arg(long)]
    pub policy: PathBuf,
    /// The verifier's secret key (hex); default: the PACE_VERIFIER_KEY environment variable.
    #[arg(long, env = "PACE_VERIFIER_KEY", hide_env_values = true)]
    pub verifier_key: String,
    /// The relayer's secret key (hex), which pays for the submission; default: PACE_RELAYER_KEY.
    #[arg(long, env = "PACE_RELAYER_KEY", hide_env_values = true)]
    pub relayer_key: String,
    /// Nonce lane of the PDR.
    #[arg(long, default_value_t = 0)]
    pub nonce_key: u32,
    /// Seconds the PDR stays valid.
    #[arg(long, default_value_t = 300)]
    pub validity_secs: u64,
    /// Sign no bounds on what the simulation moved. Every asset it read and did not move, and
    /// ether, stays held (may not fall): the defence against a contract that behaves
    /// differently for real is not switched off.
    #[arg(long)]
    pub no_outcome_bounds: bool,
    /// Decide and sign, but submit nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Where the PDR goes and how it gets there.
    #[command(flatten)]
    pub account: crate::account::AccountArgs,
    /// The most the relayer pays per gas, in wei (`maxFeePerGas`): a node quoting more is
    /// refused (exit 2) before anything is signed. On the EntryPoint path it also bounds what
    /// the user operation's gas may cost the account's deposit, which the verifier counts
    /// against the policy's `max_value_wei`. Default: no cap.
    #[arg(long, value_name = "WEI")]
    pub max_fee_per_gas: Option<u128>,
}

/// Exit code of a submission whose outcome is unknown.
pub const EXIT_UNCERTAIN: u8 = 3;

impl RunArgs {
    /// Runs the pipeline against the node.
    pub fn run(self) -> u8 {
        match self.go() {
            Ok(code) => code,
            Err(e) => {
                eprintln!("pace run: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    fn go(&self) -> Result<u8, String> {
        let intent = input::intent(&self.intent).map_err(|e| e.to_string())?;
        let policy = input::policy(&self.policy).map_err(|e| e.to_string())?;
        let key: B256 = self
            .verifier_key
            .trim()
            .parse()
            .map_err(|e| format!("--verifier-key: {e}"))?;
        let signer = PdrSigner::from_bytes(&key).map_err(|e| format!("--verifier-key: {e}"))?;
        let relayer: PrivateKeySigner = self
            .relayer_key
            .trim()
            .parse()
            .map_err(|e| format!("--relayer-key: {e}"))?;

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?;
        let client = runtime
            .block_on(pace_node::NodeClient::connect(&self.rpc, relayer))
            .map_err(|e| format!("cannot connect to {}: {}", self.rpc, crate::causes(&e)))?;
        // The simulation runs the transaction this relayer will send, with its fees now.
        let submitter = runtime
            .block_on(Chain::relayer(&&client))
            .map_err(|e| format!("cannot quote the relayer's fees: {}", crate::causes(&e)))?;
        if let Some(cap) = self.max_fee_per_gas
            && submitter.max_fee_per_gas > cap
        {
            return Err(format!(
                "the node quotes maxFeePerGas {} wei, above --max-fee-per-gas {cap}; nothing was \
                 signed or sent",
                submitter.max_fee_per_gas
            ));
        }
        let state = crate::simulate::state(Some(&self.rpc), None)?;
        let pipeline = Pipeline::new(signer).with_config(PipelineConfig {
            validity_secs: self.validity_secs,
            outcome_bounds: !self.no_outcome_bounds,
            relayer: submitter,
            account: self.account.account_kind,
            entry: self.account.entry,
            ..PipelineConfig::default()
        });
        let eval = pipeline
            .evaluate(&state, &intent, &policy, self.nonce_key)
            .map_err(|e| e.to_string())?;
        let mut tokens: Vec<_> = eval
            .report
            .balance_changes
            .iter()
            .map(|c| c.token)
            .collect();
        tokens.dedup();

        let execution = match (&eval.checked, self.dry_run) {
            (Some(checked), false) => {
                let result = runtime.block_on(Pipeline::submit(&mut &client, checked, &tokens));
                Some(result.map_err(|e| format!("nothing was submitted: {}", crate::causes(&e)))?)
            }
            _ => None,
        };
        let code = match (&execution, eval.decision.approved()) {
            (_, false) => EXIT_REJECT,
            // The exact signed transaction did not execute as simulated: nothing was sent.
            (None, true) if eval.refused.is_some() => EXIT_REJECT,
            (None, true) | (Some(ExecutionResult::Executed { .. }), true) => EXIT_APPROVE,
            (Some(ExecutionResult::Reverted { .. }), true) => EXIT_REJECT,
            (Some(ExecutionResult::Uncertain { .. }), true) => EXIT_UNCERTAIN,
        };
        let doc = serde_json::json!({
            "decision": eval.decision,
            "pdr": eval.record.signed().map(|s| serde_json::json!({
                "digest": s.digest,
                "nonce": s.pdr.nonce,
                "bounds": s.pdr.bounds.len(),
            })),
            "simulation": {
                "block_number": eval.report.block_number,
                "success": eval.report.success,
                "balance_changes": eval.report.balance_changes,
            },
            "execution": execution,
        });
        let mut doc = doc;
        if let Some(why) = &eval.refused {
            // Pass 2 ran the exact signed transaction on the simulated state.
            doc["refused"] = serde_json::json!(format!(
                "the signed transaction does not execute as simulated ({why}); nothing was sent"
            ));
        }
        print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
        Ok(code)
    }
}
