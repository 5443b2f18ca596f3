//! A mined transaction at its own position in its block: the state just before it, reached by
//! replaying the block's earlier transactions on a fork of the parent block, and the
//! transaction itself, to run on that state.
//!
//! The latest block is not that state: a transaction earlier in the same block (a rebase, a
//! copier landing the same PDR) or any later block has changed it. What a transaction did, its
//! balance changes and its revert data, is measured here: before it, and after it alone.
//!
//! Every transaction type replays as the chain ran it (legacy, EIP-2930, EIP-1559, EIP-4844
//! and EIP-7702 authorizations), fees and nonces included, in the block's own environment
//! (number, timestamp, base fee, coinbase, prevrandao, gas limit, blob fee). A replay that
//! fails where the chain succeeded, or the other way round, is reported by the caller's
//! comparison with the receipt ([`AtTransaction::status`]), never hidden.

use crate::{
    FORK_RPC_TIMEOUT, InProcessEvm, Outcome, Result,
    backend::ForkError,
    rpc::{Conn, Purpose},
};
use alloy::{
    consensus::{Transaction as ConsensusTx, Typed2718 as _},
    eips::eip7702::SignedAuthorization,
    network::TransactionResponse as _,
    rpc::types::{Block, Transaction, TransactionReceipt},
};
use alloy_primitives::B256;
use revm::context::{TxEnv, either::Either};

/// A transaction of a mined block, ready to run on the state just before it.
#[derive(Debug)]
pub struct AtTransaction {
    state: InProcessEvm,
    tx: TxEnv,
    index: u64,
    status: bool,
    base_fee: u64,
}

impl AtTransaction {
    /// The state just before the transaction: its block's parent, with the block's environment
    /// and its earlier transactions applied. Its base fee reads as zero, so that views (which
    /// pay no gas) run on it.
    pub fn state(&self) -> &InProcessEvm {
        &self.state
    }

    /// Its index in its block.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Whether the chain's receipt says it succeeded.
    pub fn status(&self) -> bool {
        self.status
    }

    /// Runs the transaction on [`Self::state`], committing: afterwards the state is the one
    /// just after it.
    pub fn run(&mut self) -> Result<Outcome> {
        self.state.block_env_mut().basefee = self.base_fee;
        let outcome = self.state.transact_commit_env(self.tx.clone());
        self.state.block_env_mut().basefee = 0;
        outcome
    }
}

impl InProcessEvm {
    /// The mined transaction `tx_hash` of the node at `rpc_url`, at its position in its block
    /// (see the module docs): its block's parent forked, the block's environment set, every
    /// earlier transaction of the block replayed. Errors when the node does not know the
    /// transaction or its block, or an earlier transaction cannot be replayed.
    pub fn at_transaction(rpc_url: &str, tx_hash: B256) -> Result<AtTransaction> {
        let conn = Conn::open(rpc_url, FORK_RPC_TIMEOUT)?;
        let receipt: Option<TransactionReceipt> = conn.run(
            "eth_getTransactionReceipt",
            1,
            Purpose::Head,
            conn.client.request("eth_getTransactionReceipt", (tx_hash,)),
        )?;
        let receipt = receipt.ok_or_else(|| ForkError::BlockNotFound(format!("of {tx_hash}")))?;
        let (Some(number), Some(index)) = (receipt.block_number, receipt.transaction_index) else {
            return Err(ForkError::BlockNotFound(format!("of pending {tx_hash}")).into());
        };
        let block: Option<Block<Transaction>> = conn.run(
            "eth_getBlockByNumber",
            1,
            Purpose::Head,
            conn.client
                .request("eth_getBlockByNumber", (format!("{number:#x}"), true)),
        )?;
        let block = block.ok_or_else(|| ForkError::BlockNotFound(number.to_string()))?;
        let txs = block.transactions.as_transactions().unwrap_or_default();
        let mut state = Self::fork(rpc_url, Some(number.saturating_sub(1)))?;
        let header = &block.header;
        state.set_block(number, header.timestamp);
        let base_fee = header.base_fee_per_gas.unwrap_or_default();
        let env = state.block_env_mut();
        env.basefee = base_fee;
        env.beneficiary = header.beneficiary;
        env.prevrandao = Some(header.mix_hash);
        env.gas_limit = header.gas_limit;
        if let Some(excess) = header.excess_blob_gas {
            env.set_blob_excess_gas_and_price(
                excess,
                revm::primitives::eip4844::BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE,
            );
        }
        let mut ours = None;
        for tx in txs {
            let env = tx_env(tx)?;
            if tx.tx_hash() == tx_hash {
                ours = Some(env);
                break;
            }
            state.transact_commit_env(env)?;
        }
        let tx =
            ours.ok_or_else(|| ForkError::BlockNotFound(format!("{number} with {tx_hash}")))?;
        state.block_env_mut().basefee = 0;
        Ok(AtTransaction {
            state,
            tx,
            index,
            status: receipt.status(),
            base_fee,
        })
    }
}

/// The revm transaction a mined transaction was.
fn tx_env(tx: &Transaction) -> Result<TxEnv> {
    let authorizations: Vec<SignedAuthorization> = tx
        .authorization_list()
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    let mut builder = TxEnv::builder()
        .tx_type(Some(tx.ty()))
        .caller(tx.from())
        .kind(tx.kind())
        .value(tx.value())
        .data(tx.input().clone())
        .nonce(tx.nonce())
        .gas_limit(tx.gas_limit())
        .chain_id(tx.chain_id())
        .gas_price(ConsensusTx::max_fee_per_gas(tx))
        .gas_priority_fee(ConsensusTx::max_priority_fee_per_gas(tx))
        .access_list(tx.access_list().cloned().unwrap_or_default())
        .blob_hashes(
            tx.blob_versioned_hashes()
                .map(<[_]>::to_vec)
                .unwrap_or_default(),
        )
        .max_fee_per_blob_gas(tx.max_fee_per_blob_gas().unwrap_or_default());
    if !authorizations.is_empty() {
        builder =
            builder.authorization_list(authorizations.into_iter().map(Either::Left).collect());
    }
    Ok(builder.build_fill())
}
