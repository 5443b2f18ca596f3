//! The embedded world on a real node: [`world_on_anvil`] starts anvil and copies an in-process
//! world's whole state onto it (code, balances, nonces, storage), so forks of the node see the
//! same contracts at the same addresses as the in-process world.

use alloy::providers::Provider;
use alloy_primitives::{Address, B256, U256};
use pace_evm::InProcessEvm;
use pace_node::{Anvil, NodeClient};

/// Why the world could not be put on a node.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Starts anvil on a free loopback port with its genesis just before `evm`'s timestamp, copies
/// every account `evm` holds onto it and mines one block with that state (at `evm`'s timestamp),
/// which is then the node's latest block. The node stops when the returned [`Anvil`] drops.
pub async fn world_on_anvil(evm: &InProcessEvm) -> Result<(Anvil, NodeClient), Error> {
    let anvil = Anvil::builder()
        .chain_id(evm.chain_id())
        .arg("--timestamp")
        .arg(evm.timestamp().saturating_sub(100).to_string())
        .spawn()?;
    let client = NodeClient::connect(anvil.url(), Anvil::dev_signer(0)).await?;
    copy_state(evm, &client).await?;
    Ok((anvil, client))
}

/// Copies every account of `evm`'s in-memory state onto the node behind `client` with anvil's
/// `anvil_set*` methods and mines a block at `evm`'s timestamp.
pub async fn copy_state(evm: &InProcessEvm, client: &NodeClient) -> Result<(), Error> {
    let p = client.provider();
    let mut accounts: Vec<(&Address, _)> = evm.db().cache.accounts.iter().collect();
    accounts.sort_by_key(|(a, _)| **a);
    for (&address, account) in accounts {
        let info = &account.info;
        let code = evm.code(address)?;
        let _: () = p
            .raw_request("anvil_setBalance".into(), (address, info.balance))
            .await?;
        let _: () = p
            .raw_request("anvil_setNonce".into(), (address, U256::from(info.nonce)))
            .await?;
        if !code.is_empty() {
            let _: () = p
                .raw_request("anvil_setCode".into(), (address, code))
                .await?;
        }
        let mut slots: Vec<_> = account.storage.iter().collect();
        slots.sort();
        for (slot, value) in slots {
            let _: bool = p
                .raw_request(
                    "anvil_setStorageAt".into(),
                    (address, *slot, B256::from(*value)),
                )
                .await?;
        }
    }
    let _: () = p
        .raw_request("evm_setNextBlockTimestamp".into(), (evm.timestamp(),))
        .await?;
    let _: String = p.raw_request("evm_mine".into(), ()).await?;
    Ok(())
}
