//! The world on a real node (feature `node`): [`copy_state`] writes an in-process world's whole
//! state (code, balances, nonces, storage) onto a development node with anvil's `anvil_set*`
//! methods, so the node holds the same contracts at the same addresses as the in-process world.
//! `pace world --rpc URL --deploy` and the test kit's `world_on_anvil` both use it.
//!
//! Development nodes only: a real chain refuses `anvil_setCode`, which is reported as such.

use alloy::{providers::Provider, transports::TransportError};
use alloy_primitives::{Address, B256, U256};
use pace_evm::{ForkError, InProcessEvm};
use pace_node::NodeClient;

/// Why the state could not be copied.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The node refused or failed a request (a real chain has no `anvil_set*` methods).
    #[error("{method} failed (is this a development node such as anvil?): {source}")]
    Rpc {
        /// The JSON-RPC method.
        method: &'static str,
        /// The transport's error.
        #[source]
        source: TransportError,
    },
    /// Reading the node failed.
    #[error(transparent)]
    Node(#[from] pace_node::Error),
    /// The in-process state could not be read.
    #[error("reading {address}'s code from the in-process state: {source}")]
    Code {
        /// The account.
        address: Address,
        /// The state's error.
        #[source]
        source: ForkError,
    },
}

/// What [`copy_state`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copied {
    /// Accounts written.
    pub accounts: usize,
    /// Storage slots written.
    pub slots: usize,
    /// The block mined with the state: its number and timestamp.
    pub block: pace_node::BlockInfo,
}

/// Copies every account of `evm`'s in-memory state onto the node behind `client` with anvil's
/// `anvil_set*` methods and mines a block holding it. The block is mined at `evm`'s timestamp
/// when the node's latest block is older than that (a node started for the world, as the test
/// kit does), otherwise at the node's own next timestamp: a node's clock never goes back.
pub async fn copy_state(evm: &InProcessEvm, client: &NodeClient) -> Result<Copied, CopyError> {
    let p = client.provider();
    let mut accounts: Vec<(&Address, _)> = evm.db().cache.accounts.iter().collect();
    accounts.sort_by_key(|(a, _)| **a);
    let mut slots_written = 0;
    for &(&address, account) in &accounts {
        let info = &account.info;
        let code = evm
            .code(address)
            .map_err(|source| CopyError::Code { address, source })?;
        let _: () = p
            .raw_request("anvil_setBalance".into(), (address, info.balance))
            .await
            .map_err(rpc("anvil_setBalance"))?;
        let _: () = p
            .raw_request("anvil_setNonce".into(), (address, U256::from(info.nonce)))
            .await
            .map_err(rpc("anvil_setNonce"))?;
        if !code.is_empty() {
            let _: () = p
                .raw_request("anvil_setCode".into(), (address, code))
                .await
                .map_err(rpc("anvil_setCode"))?;
        }
        let mut slots: Vec<_> = account.storage.iter().collect();
        slots.sort();
        for (slot, value) in slots {
            let _: bool = p
                .raw_request(
                    "anvil_setStorageAt".into(),
                    (address, *slot, B256::from(*value)),
                )
                .await
                .map_err(rpc("anvil_setStorageAt"))?;
            slots_written += 1;
        }
    }
    if client.latest_block().await?.timestamp < evm.timestamp() {
        let _: () = p
            .raw_request("evm_setNextBlockTimestamp".into(), (evm.timestamp(),))
            .await
            .map_err(rpc("evm_setNextBlockTimestamp"))?;
    }
    let _: String = p
        .raw_request("evm_mine".into(), ())
        .await
        .map_err(rpc("evm_mine"))?;
    Ok(Copied {
        accounts: accounts.len(),
        slots: slots_written,
        block: client.latest_block().await?,
    })
}

/// Maps a transport error of `method` to [`CopyError::Rpc`].
fn rpc(method: &'static str) -> impl FnOnce(TransportError) -> CopyError {
    move |source| CopyError::Rpc { method, source }
}
