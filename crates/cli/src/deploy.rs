//! `pace deploy`: PaceAccount, or a Safe's PaceModule (`--safe`), at a deterministic CREATE2
//! address, from the embedded bytecode.
//!
//! The address is the one `script/DeployPaceAccount.s.sol` predicts and deploys to for the
//! same owner, verifier and salt: both send `salt ++ initCode` to the standard CREATE2 deployer
//! [`CREATE2_DEPLOYER`], and both default the salt to `keccak256(abi.encode(owner, verifier))`.

use crate::{EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, EXIT_UNCERTAIN, print_stdout, sender};
use alloy::{
    network::TransactionBuilder, providers::Provider, rpc::types::TransactionRequest,
    signers::local::PrivateKeySigner,
};
use alloy_primitives::{Address, B256, Bytes, U256, hex, keccak256};
use alloy_sol_types::SolConstructor;
use clap::Parser;
use pace_contracts::bindings::PaceAccount;
use pace_node::{NodeClient, Tx};
use pace_pipeline::ExecutionResult;
use std::path::PathBuf;

/// The standard CREATE2 deployer (Arachnid's deterministic-deployment-proxy, also anvil's
/// default): called with `salt ++ initCode`, it creates the contract with CREATE2.
pub use pace_contracts::helpers::CREATE2_DEPLOYER;

/// The environment variable holding the deploying account's hex key (without `--keystore`).
pub const DEPLOYER_KEY_ENV: &str = "PACE_DEPLOYER_KEY";

/// Init code that uses the Cancun opcodes PaceAccount needs and returns a 32-byte word: TSTORE
/// 0x2a at slot 0, TLOAD it, MSTORE it at 0, MCOPY it to 0x20, RETURN 0x20..0x40. A chain
/// without EIP-1153 (transient storage) or EIP-5656 (MCOPY) fails it.
const CANCUN_PROBE: [u8; 23] = hex!("602a60005d60005c600052602060006020" "5e60206020f3");

/// Deploy PaceAccount at its deterministic CREATE2 address (the same as
/// `script/DeployPaceAccount.s.sol`) with the embedded bytecode, and print the address as JSON;
/// with `--safe` instead of `--owner`, deploy the PaceModule of that Safe 1.4.1 and print the
/// Safe transaction its owners sign to enable it (`enableModule`).
///
/// The sending account's key comes from PACE_DEPLOYER_KEY (hex) or `--keystore` (password in
/// PACE_KEYSTORE_PASSWORD); anyone may deploy, the owner (or Safe) and verifier are arguments.
/// Refuses a chain without the Cancun opcodes the contracts use (transient storage). When the
/// contract is already there, says so and sends nothing. Exit 0 deployed or already there,
/// 1 reverted, 2 bad input or refused chain, 3 uncertain (the transaction may still land).
#[derive(Debug, Parser)]
pub struct DeployArgs {
    /// The node's JSON-RPC endpoint (http:// or https://).
    #[arg(long)]
    pub rpc: String,
    /// The account's owner (raw execution path and administration; immutable).
    #[arg(long, required_unless_present = "safe", conflicts_with = "safe")]
    pub owner: Option<Address>,
    /// Deploy the PaceModule of this Safe 1.4.1 instead of a PaceAccount (the Safe administers
    /// it; immutable).
    #[arg(long)]
    pub safe: Option<Address>,
    /// The address of the verifier's key, which signs PDRs (rotatable by the owner).
    #[arg(long)]
    pub verifier: Address,
    /// CREATE2 salt (32 bytes hex); default keccak256(abi.encode(owner or safe, verifier)).
    #[arg(long)]
    pub salt: Option<B256>,
    /// Encrypted keystore of the sending account (password in PACE_KEYSTORE_PASSWORD);
    /// default: the hex key in PACE_DEPLOYER_KEY.
    #[arg(long)]
    pub keystore: Option<PathBuf>,
}

/// The default salt: `keccak256(abi.encode(owner, verifier))`, as the forge script's.
pub fn default_salt(owner: Address, verifier: Address) -> B256 {
    keccak256([owner.into_word(), verifier.into_word()].concat())
}

/// PaceAccount's embedded creation code followed by its constructor arguments.
pub fn init_code(owner: Address, verifier: Address) -> Result<Bytes, pace_contracts::Error> {
    let ctor = PaceAccount::constructorCall {
        owner_: owner,
        verifier_: verifier,
    };
    Ok(pace_contracts::artifacts()?
        .get("PaceAccount")?
        .deploy_code(&ctor.abi_encode()))
}

/// The address [`CREATE2_DEPLOYER`] creates the account of `owner` and `verifier` at with `salt`.
pub fn predict(
    owner: Address,
    verifier: Address,
    salt: B256,
) -> Result<Address, pace_contracts::Error> {
    Ok(CREATE2_DEPLOYER.create2_from_code(salt, init_code(owner, verifier)?))
}

/// Runs `eth_call` of [`CANCUN_PROBE`] on the node: `Err` says why the chain cannot run the
/// account, or that the node could not be asked.
pub(crate) async fn probe_cancun(client: &NodeClient) -> Result<(), String> {
    let request = TransactionRequest::default()
        .with_from(client.address())
        .with_deploy_code(Bytes::from_static(&CANCUN_PROBE));
    let refused = |why: String| {
        format!(
            "{} cannot run PaceAccount: the chain does not execute the Cancun opcodes it uses \
             (TSTORE/TLOAD transient storage, EIP-1153; MCOPY, EIP-5656): {why}",
            client.url()
        )
    };
    match client.provider().call(request).await {
        Ok(out) if out[..] == U256::from(0x2a).to_be_bytes::<32>() => Ok(()),
        Ok(out) => Err(refused(format!("the probe returned {out}, not 0x2a"))),
        Err(e) if e.is_error_resp() => Err(refused(format!("the probe failed: {e}"))),
        Err(e) => Err(format!(
            "cannot reach {}: {}",
            client.url(),
            crate::causes(&e)
        )),
    }
}

/// The exit code of a transaction's result: 0 executed, 1 reverted, 3 uncertain.
pub(crate) fn exit_code(result: &ExecutionResult) -> u8 {
    match result {
        ExecutionResult::Executed { .. } => EXIT_APPROVE,
        ExecutionResult::Reverted { .. } => EXIT_REJECT,
        ExecutionResult::Uncertain { .. } => EXIT_UNCERTAIN,
    }
}

/// A current-thread runtime for one command's requests.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))
}

/// Connects to `rpc` as `signer`.
pub(crate) async fn connect(rpc: &str, signer: PrivateKeySigner) -> Result<NodeClient, String> {
    NodeClient::connect(rpc, signer)
        .await
        .map_err(|e| format!("cannot connect to {rpc}: {}", crate::causes(&e)))
}

/// The owner and verifier of the PaceAccount (or PaceModule: its owner is its Safe) at
/// `account`, read from the chain.
pub(crate) async fn owner_and_verifier(
    client: &NodeClient,
    account: Address,
) -> Result<(Address, Address), String> {
    let not_account = |e: pace_node::Error| format!("{account} is not a PaceAccount: {e}");
    let owner = client
        .call_sol(account, &PaceAccount::ownerCall {})
        .await
        .map_err(not_account)?;
    let verifier = client
        .call_sol(account, &PaceAccount::verifierCall {})
        .await
        .map_err(not_account)?;
    Ok((owner, verifier))
}

impl DeployArgs {
    /// Deploys (or finds) the account and prints it.
    pub fn run(self) -> u8 {
        match self.go() {
            Ok(code) => code,
            Err(e) => {
                eprintln!("pace deploy: {e}");
                EXIT_BAD_INPUT
            }
        }
    }

    fn go(&self) -> Result<u8, String> {
        let (holder, module) = match (self.owner, self.safe) {
            (Some(owner), None) => (owner, false),
            (None, Some(safe)) => (safe, true),
            _ => return Err("give exactly one of --owner and --safe".into()),
        };
        if holder.is_zero() || self.verifier.is_zero() {
            return Err("--owner (or --safe) and --verifier must not be the zero address".into());
        }
        let signer = sender::signer(self.keystore.as_deref(), DEPLOYER_KEY_ENV)?;
        let salt = self
            .salt
            .unwrap_or_else(|| default_salt(holder, self.verifier));
        let init_code = if module {
            crate::safe::module_init_code(holder, self.verifier)
        } else {
            init_code(holder, self.verifier)
        }
        .map_err(|e| e.to_string())?;
        let contract = CREATE2_DEPLOYER.create2_from_code(salt, &init_code);
        runtime()?.block_on(async {
            let client = connect(&self.rpc, signer).await?;
            probe_cancun(&client).await.map_err(nothing_sent)?;
            let mut doc = if module {
                if client
                    .code(holder)
                    .await
                    .map_err(|e| e.to_string())?
                    .is_empty()
                {
                    return Err(nothing_sent(format!(
                        "{holder} has no code: no Safe is there"
                    )));
                }
                serde_json::json!({
                    "module": contract,
                    "safe": holder,
                    "salt": salt,
                    "chain_id": client.chain_id(),
                    "enable": {
                        "to": holder,
                        "value": "0",
                        "data": crate::safe::enable_module_calldata(contract),
                        "operation": 0,
                    },
                })
            } else {
                serde_json::json!({
                    "account": contract,
                    "owner": holder,
                    "salt": salt,
                    "chain_id": client.chain_id(),
                })
            };
            let code = client.code(contract).await.map_err(|e| e.to_string())?;
            if !code.is_empty() {
                let (owner, verifier) = owner_and_verifier(&client, contract).await?;
                if owner != holder {
                    return Err(nothing_sent(format!(
                        "{contract} holds code whose owner is {owner}, not {holder}"
                    )));
                }
                doc["status"] = "already_deployed".into();
                doc["verifier"] = serde_json::json!(verifier);
                print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
                return Ok(EXIT_APPROVE);
            }
            let (result, status) = create2(&client, salt, &init_code).await?;
            doc["status"] = status.into();
            if matches!(result, ExecutionResult::Executed { .. }) {
                // The receipt decides the outcome; reading the contract back only confirms it.
                match owner_and_verifier(&client, contract).await {
                    Ok((owner, verifier)) if owner == holder => {
                        doc["verifier"] = serde_json::json!(verifier);
                    }
                    Ok((owner, _)) => {
                        return Err(format!("deployed, but {contract} reports owner {owner}"));
                    }
                    Err(e) => eprintln!("pace deploy: warning: deployed, but {e}"),
                }
            }
            let code = exit_code(&result);
            doc["execution"] = serde_json::to_value(&result).expect("serialises");
            print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
            Ok(code)
        })
    }
}

/// Sends `salt ++ init_code` to [`CREATE2_DEPLOYER`], refusing a chain without it, and
/// returns the receipt's outcome with the deployment status it means (`deployed`, `reverted`,
/// `uncertain`).
pub(crate) async fn create2(
    client: &NodeClient,
    salt: B256,
    init_code: &[u8],
) -> Result<(ExecutionResult, &'static str), String> {
    let deployer = client
        .code(CREATE2_DEPLOYER)
        .await
        .map_err(|e| e.to_string())?;
    if deployer.is_empty() {
        return Err(nothing_sent(format!(
            "no CREATE2 deployer at {CREATE2_DEPLOYER} on this chain (see \
             github.com/Arachnid/deterministic-deployment-proxy)"
        )));
    }
    let data: Bytes = [salt.as_slice(), init_code].concat().into();
    let outcome = client
        .execute(Tx::call(CREATE2_DEPLOYER, U256::ZERO, data))
        .await
        .map_err(|e| nothing_sent(crate::causes(&e)))?;
    let result = ExecutionResult::from(outcome);
    let status = match &result {
        ExecutionResult::Executed { .. } => "deployed",
        ExecutionResult::Reverted { .. } => "reverted",
        ExecutionResult::Uncertain { .. } => "uncertain",
    };
    Ok((result, status))
}

/// `why`, stating that no transaction went out.
fn nothing_sent(why: impl std::fmt::Display) -> String {
    format!("{why}; nothing was sent")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_follows_the_create2_rule() {
        let (owner, verifier) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let salt = default_salt(owner, verifier);
        // abi.encode(address, address): two left-padded words.
        let mut words = [0u8; 64];
        words[12..32].copy_from_slice(owner.as_slice());
        words[44..64].copy_from_slice(verifier.as_slice());
        assert_eq!(salt, keccak256(words));
        let code = init_code(owner, verifier).unwrap();
        let hash = keccak256(
            [
                &[0xff][..],
                CREATE2_DEPLOYER.as_slice(),
                salt.as_slice(),
                keccak256(&code).as_slice(),
            ]
            .concat(),
        );
        let expected = Address::from_slice(&hash[12..]);
        assert_eq!(predict(owner, verifier, salt).unwrap(), expected);
        assert_ne!(predict(verifier, owner, salt).unwrap(), expected);
        assert_ne!(predict(owner, verifier, B256::ZERO).unwrap(), expected);
    }
}
