//! [`NodeChain`]: a development node (anvil) as a [`Chain`], so the bed deploys and its actions
//! run there exactly as in-process: every sender is impersonated (`anvil_impersonateAccount`),
//! every transaction is mined at once (automine) and judged by its receipt.
//!
//! Development nodes only: a real chain refuses impersonation.

use super::chain::{Chain, Error, Result};
use crate::on_node::world_on_anvil;
use alloy::providers::Provider as _;
use alloy_primitives::{Address, B256, Bytes, U256};
use pace_node::{Anvil, NodeClient};
use pace_world::World;
use serde_json::{Value, json};
use std::{
    collections::HashSet,
    future::Future,
    time::{Duration, Instant},
};

/// Gas every transaction is given (deploying Aave's Pool needs ~5M; under the 2^24 cap).
pub const TX_GAS: u64 = 15_000_000;
/// How long a receipt may take to appear after `eth_sendTransaction`.
const RECEIPT_TIMEOUT: Duration = Duration::from_secs(10);

/// A development node behind a [`NodeClient`], driven synchronously on a runtime of its own.
#[derive(Debug)]
pub struct NodeChain {
    runtime: tokio::runtime::Runtime,
    client: NodeClient,
    impersonated: HashSet<Address>,
}

impl NodeChain {
    /// Starts anvil with `world`'s state copied onto it ([`world_on_anvil`]) and returns it
    /// (stopped when dropped) with the chain over it.
    pub fn start(world: &World) -> Result<(Anvil, Self)> {
        let runtime = runtime()?;
        let (anvil, client) = runtime
            .block_on(world_on_anvil(&world.evm))
            .map_err(|e| Error::msg(format!("world on anvil: {e}")))?;
        Ok((anvil, Self::with(runtime, client)))
    }

    /// Connects to the development node at `url`.
    pub fn connect(url: &str) -> Result<Self> {
        let runtime = runtime()?;
        let client = runtime
            .block_on(NodeClient::connect(url, Anvil::dev_signer(0)))
            .map_err(|e| Error::msg(e.to_string()))?;
        Ok(Self::with(runtime, client))
    }

    fn with(runtime: tokio::runtime::Runtime, client: NodeClient) -> Self {
        Self {
            runtime,
            client,
            impersonated: HashSet::new(),
        }
    }

    /// The client (for reads this type does not wrap; run them with [`Self::block_on`]).
    pub fn client(&self) -> &NodeClient {
        &self.client
    }

    /// Runs `future` to completion on this chain's runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    fn rpc<R: serde::de::DeserializeOwned>(
        &self,
        method: &'static str,
        params: Value,
    ) -> Result<R> {
        let value: Value = self
            .block_on(self.client.provider().raw_request(method.into(), params))
            .map_err(|e| Error::msg(format!("{method}: {e}")))?;
        serde_json::from_value(value).map_err(|e| Error::msg(format!("{method}: {e}")))
    }

    fn impersonate(&mut self, who: Address) -> Result<()> {
        if self.impersonated.insert(who) {
            let _: Value = self.rpc("anvil_impersonateAccount", json!([who]))?;
        }
        Ok(())
    }

    /// Sends a transaction from `from` (impersonated) and returns its successful receipt.
    fn transact(
        &mut self,
        from: Address,
        to: Option<Address>,
        value: U256,
        data: &Bytes,
    ) -> Result<Value> {
        self.impersonate(from)?;
        let mut tx = json!({
            "from": from,
            "value": value,
            "input": data,
            "gas": U256::from(TX_GAS),
        });
        if let Some(to) = to {
            tx["to"] = json!(to);
        }
        let hash: B256 = self.rpc("eth_sendTransaction", json!([tx]))?;
        let receipt = self.receipt(hash)?;
        if receipt["status"].as_str() == Some("0x1") {
            return Ok(receipt);
        }
        // Replay it on the state it ran on for the revert reason.
        let block: U256 = serde_json::from_value(receipt["blockNumber"].clone())
            .map_err(|e| Error::msg(format!("receipt of {hash}: {e}")))?;
        let parent = block.saturating_sub(U256::from(1));
        let reason = match self.rpc::<Bytes>("eth_call", json!([tx, parent])) {
            Err(e) => e.to_string(),
            Ok(_) => "the replay succeeded".to_owned(),
        };
        Err(Error::msg(format!("transaction {hash} reverted: {reason}")))
    }

    fn receipt(&self, hash: B256) -> Result<Value> {
        let started = Instant::now();
        loop {
            let receipt: Value = self.rpc("eth_getTransactionReceipt", json!([hash]))?;
            if !receipt.is_null() {
                return Ok(receipt);
            }
            if started.elapsed() > RECEIPT_TIMEOUT {
                return Err(Error::msg(format!("no receipt for {hash}")));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Chain for NodeChain {
    fn deploy(&mut self, from: Address, init_code: Bytes) -> Result<Address> {
        let receipt = self.transact(from, None, U256::ZERO, &init_code)?;
        serde_json::from_value(receipt["contractAddress"].clone())
            .map_err(|e| Error::msg(format!("no contract address in the receipt: {e}")))
    }

    fn send(&mut self, from: Address, to: Address, value: U256, data: Bytes) -> Result<()> {
        self.transact(from, Some(to), value, &data).map(drop)
    }

    fn view(&self, to: Address, data: Bytes) -> Result<Bytes> {
        self.rpc(
            "eth_call",
            json!([{ "from": Address::ZERO, "to": to, "input": data }, "latest"]),
        )
    }

    fn fund(&mut self, who: Address, wei: U256) -> Result<()> {
        let balance = self
            .block_on(self.client.balance(who))
            .map_err(|e| Error::msg(e.to_string()))?;
        let _: Value = self.rpc(
            "anvil_setBalance",
            json!([who, balance.saturating_add(wei)]),
        )?;
        Ok(())
    }

    fn advance(&mut self, blocks: u64) -> Result<()> {
        let _: Value = self.rpc(
            "anvil_mine",
            json!([U256::from(blocks), U256::from(super::SECONDS_PER_BLOCK)]),
        )?;
        Ok(())
    }

    fn timestamp(&self) -> Result<u64> {
        self.block_on(self.client.latest_block())
            .map(|b| b.timestamp)
            .map_err(|e| Error::msg(e.to_string()))
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::msg(format!("tokio runtime: {e}")))
}
