//! The embedded world on a real node: [`world_on_anvil`] starts anvil and copies an in-process
//! world's whole state onto it (code, balances, nonces, storage) with
//! [`pace_world::on_node::copy_state`], so forks of the node see the same contracts at the same
//! addresses as the in-process world.

use pace_evm::InProcessEvm;
use pace_node::{Anvil, NodeClient};

pub use pace_world::on_node::copy_state;

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
