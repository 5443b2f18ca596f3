//! The Safe 1.4.1 side of a `PaceModule` (`contracts/PaceModule.sol`): the module's creation
//! code, the Safe transaction that enables it, and the module's administration as a Safe
//! transaction, since only the Safe itself may administer its module.

use alloy::signers::{SignerSync, local::PrivateKeySigner};
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_abi::bindings::{ISafe, PaceModule};
use pace_node::NodeClient;

/// `PaceModule`'s embedded creation code followed by its constructor arguments.
pub(crate) fn module_init_code(
    safe: Address,
    verifier: Address,
) -> Result<Bytes, pace_contracts::Error> {
    let ctor = PaceModule::constructorCall {
        safe_: safe,
        verifier_: verifier,
    };
    Ok(pace_contracts::artifacts()?
        .get("PaceModule")?
        .deploy_code(&ctor.abi_encode()))
}

/// The Safe's call that enables `module`: what its owners sign as a Safe transaction to itself.
pub(crate) fn enable_module_calldata(module: Address) -> Bytes {
    ISafe::enableModuleCall { module }.abi_encode().into()
}

/// The Safe `module` guards, when `module` is a `PaceModule` whose owner is that Safe.
pub(crate) async fn module_safe(client: &NodeClient, module: Address) -> Option<Address> {
    client.call_sol(module, &PaceModule::safeCall {}).await.ok()
}

/// A Safe transaction (`CALL`, no refund) at the Safe's current nonce, and its hash.
#[derive(Clone, Debug)]
pub(crate) struct SafeTx {
    pub safe: Address,
    pub to: Address,
    pub data: Bytes,
    pub nonce: U256,
    pub hash: B256,
}

impl SafeTx {
    /// (`to`, `data`) as `safe`'s next transaction, hashed by the Safe itself.
    pub(crate) async fn next(
        client: &NodeClient,
        safe: Address,
        to: Address,
        data: Bytes,
    ) -> Result<Self, String> {
        let read = |e: pace_node::Error| format!("reading the Safe {safe}: {e}");
        let nonce = client
            .call_sol(safe, &ISafe::nonceCall {})
            .await
            .map_err(read)?;
        let hash = client
            .call_sol(
                safe,
                &ISafe::getTransactionHashCall {
                    to,
                    value: U256::ZERO,
                    data: data.clone(),
                    operation: 0,
                    safeTxGas: U256::ZERO,
                    baseGas: U256::ZERO,
                    gasPrice: U256::ZERO,
                    gasToken: Address::ZERO,
                    refundReceiver: Address::ZERO,
                    nonce,
                },
            )
            .await
            .map_err(read)?;
        Ok(Self {
            safe,
            to,
            data,
            nonce,
            hash,
        })
    }

    /// One owner's 65-byte signature of the transaction's hash, as a Safe takes it.
    pub(crate) fn sign(&self, key: &PrivateKeySigner) -> Result<Bytes, String> {
        let sig = key
            .sign_hash_sync(&self.hash)
            .map_err(|e| format!("signing the Safe transaction: {e}"))?;
        Ok(Bytes::from(sig.as_bytes().to_vec()))
    }

    /// `execTransaction` of it with `signatures` (sorted by owner, concatenated).
    pub(crate) fn exec_calldata(&self, signatures: Bytes) -> Bytes {
        ISafe::execTransactionCall {
            to: self.to,
            value: U256::ZERO,
            data: self.data.clone(),
            operation: 0,
            safeTxGas: U256::ZERO,
            baseGas: U256::ZERO,
            gasPrice: U256::ZERO,
            gasToken: Address::ZERO,
            refundReceiver: Address::ZERO,
            signatures,
        }
        .abi_encode()
        .into()
    }

    /// The transaction as JSON, for owners who sign it with their own Safe tooling.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "safe": self.safe,
            "to": self.to,
            "value": "0",
            "data": self.data,
            "operation": 0,
            "nonce": self.nonce.to_string(),
            "safe_tx_hash": self.hash,
        })
    }
}

/// The threshold of `safe` and whether `who` is one of its owners.
pub(crate) async fn threshold_and_owner(
    client: &NodeClient,
    safe: Address,
    who: Address,
) -> Result<(U256, bool), String> {
    let read = |e: pace_node::Error| format!("{safe} is not a Safe: {e}");
    let threshold = client
        .call_sol(safe, &ISafe::getThresholdCall {})
        .await
        .map_err(read)?;
    let owner = client
        .call_sol(safe, &ISafe::isOwnerCall { owner: who })
        .await
        .map_err(read)?;
    Ok((threshold, owner))
}
