//! `pace serve --rpc`: the service's chain is a node.
//!
//! Simulation runs on forks of the node's latest block from one [`ForkCache`] (one shared
//! state per block). Balances for I2, lane positions and `PdrExecuted` logs are read from the
//! node itself at `latest`. Submissions go through `pace_pipeline::Pipeline::submit` over
//! [`Relay`], a [`Chain`] that has each transaction hash recorded in the store before the
//! broadcast, pays EIP-1559 fees under the configured cap, polls the receipt for the
//! configured window (I3) and reports `Executed` only from a receipt that has the configured
//! number of confirmations (I4).

use crate::{
    Error, Result,
    store::{SentTx, Store},
};
use alloy::{
    providers::Provider,
    rpc::types::{Filter, TransactionReceipt},
    signers::local::PrivateKeySigner,
};
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolEvent;
use pace_abi::bindings::{IERC20, PaceAccount};
use pace_evm::{CacheLimits, DEFAULT_SPEC, ForkCache, InProcessEvm};
use pace_node::{BlockInfo, NodeClient, Submission, Tx, TxOutcome};
use pace_pipeline::{Chain, Checked, ExecutionResult, Pipeline, Relayer};
use pace_types::ETH;
use std::{
    future::{Future, IntoFuture},
    time::{Duration, Instant},
};

/// How the service relays to a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeConfig {
    /// How long a confirm polls for the receipt (and its confirmations) before it reports
    /// `uncertain` with the hash (I3).
    pub receipt_window: Duration,
    /// The pause between two polls.
    pub poll_interval: Duration,
    /// Blocks a receipt needs (its own included) before the transaction counts as executed.
    pub confirmations: u64,
    /// The EIP-1559 fee cap per gas, in wei.
    pub max_fee_per_gas: u128,
    /// Seconds a transaction may stay pending before reconciliation replaces it (same nonce,
    /// fees raised, under the cap).
    pub replace_after_secs: u64,
}

impl Default for NodeConfig {
    /// 12 s (the paper's window), 50 ms polls, 1 confirmation, 50 gwei, replaced after 60 s.
    fn default() -> Self {
        Self {
            receipt_window: Duration::from_secs(12),
            poll_interval: Duration::from_millis(50),
            confirmations: 1,
            max_fee_per_gas: 50_000_000_000,
            replace_after_secs: 60,
        }
    }
}

/// A node the service relays to: the relayer's [`NodeClient`], a [`ForkCache`] of the node,
/// and the runtime their requests run on.
pub struct NodeChain {
    runtime: tokio::runtime::Runtime,
    client: NodeClient,
    forks: ForkCache,
    config: NodeConfig,
    /// The relayer's wallet, to derive the signed bytes of what the client signs (see
    /// [`Self::raw_of`]).
    wallet: alloy::network::EthereumWallet,
}

impl std::fmt::Debug for NodeChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeChain")
            .field("url", &self.client.url())
            .field("relayer", &self.client.address())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A `PdrExecuted` log of the account for a digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExecutedLog {
    /// The transaction that emitted it.
    pub(crate) tx_hash: B256,
    /// Its block.
    pub(crate) block_number: u64,
}

impl NodeChain {
    /// Connects to the node at `url` with `relayer` paying for submissions. Callable from any
    /// thread, inside a runtime or not: the node's requests run on a runtime of its own.
    pub fn connect(url: &str, relayer: PrivateKeySigner, config: NodeConfig) -> Result<Self> {
        if config.confirmations == 0 {
            return Err(Error::Config(
                "confirmations must be at least 1 (the receipt's own block)".into(),
            ));
        }
        let runtime = crate::blocking::runtime("pace-serve-node", 1)
            .map_err(|e| Error::Config(format!("node runtime: {e}")))?;
        let wallet = alloy::network::EthereumWallet::from(relayer.clone());
        let client = {
            let _in = runtime.enter();
            crate::blocking::drive(NodeClient::connect(url, relayer)).map_err(node)?
        }
        .with_receipt_timeout(config.receipt_window)
        .with_poll_interval(config.poll_interval)
        .with_max_fee_per_gas(config.max_fee_per_gas);
        let forks = ForkCache::connect(url, CacheLimits::default())
            .map_err(|e| Error::Chain(format!("cannot fork {url}: {e}")))?;
        Ok(Self {
            runtime,
            client,
            forks,
            config,
            wallet,
        })
    }

    /// The signed bytes (EIP-2718) of the transaction the client signed for `s`, derived with
    /// the relayer's key (RFC 6979 signatures are deterministic) and kept only when they hash
    /// to `s`'s transaction hash: then they are that transaction, byte for byte, and can be
    /// broadcast again. `None` when they cannot be derived.
    pub(crate) fn raw_of(&self, s: &Submission) -> Option<Bytes> {
        use alloy::{
            eips::eip2718::Encodable2718,
            network::{NetworkTransactionBuilder, TransactionBuilder},
            rpc::types::TransactionRequest,
        };
        let (max_fee, tip) = s.tx.fees?;
        let max_fee = max_fee.min(self.config.max_fee_per_gas);
        let mut request = TransactionRequest::default()
            .with_from(s.from)
            .with_chain_id(self.client.chain_id())
            .with_nonce(s.nonce)
            .with_value(s.tx.value)
            .with_input(s.tx.input.clone())
            .with_gas_limit(s.gas_limit)
            .with_max_fee_per_gas(max_fee)
            .with_max_priority_fee_per_gas(tip.min(max_fee));
        request = match s.tx.to {
            Some(to) => request.with_to(to),
            None => request.into_create(),
        };
        let envelope = self.block_on(request.build(&self.wallet)).ok()?;
        (*envelope.tx_hash() == s.tx_hash).then(|| Bytes::from(envelope.encoded_2718()))
    }

    /// The transaction `s` as the store keeps it: hash, signed bytes, relayer and nonce.
    pub(crate) fn sent(&self, s: &Submission) -> SentTx {
        SentTx {
            tx_hash: s.tx_hash,
            raw: self.raw_of(s),
            sender: Some(s.from),
            nonce: Some(s.nonce),
            at: 0,
        }
    }

    /// Broadcasts the signed transaction `raw` again (`eth_sendRawTransaction`). An error the
    /// node gives (it already knows it, its nonce is used) is returned as it is.
    pub(crate) fn rebroadcast(&self, raw: &Bytes) -> Result<()> {
        self.block_on(
            self.client
                .provider()
                .send_raw_transaction(raw)
                .into_future(),
        )
        .map(|_| ())
        .map_err(|e| Error::Chain(format!("eth_sendRawTransaction: {e}")))
    }

    /// Whether the node knows transaction `tx_hash` (pending or mined).
    pub(crate) fn knows(&self, tx_hash: B256) -> Result<bool> {
        self.block_on(
            self.client
                .provider()
                .get_transaction_by_hash(tx_hash)
                .into_future(),
        )
        .map(|t| t.is_some())
        .map_err(|e| Error::Chain(format!("eth_getTransactionByHash: {e}")))
    }

    /// How many transactions of `who` are mined at the latest block (its next nonce there).
    pub(crate) fn mined_nonce(&self, who: Address) -> Result<u64> {
        self.block_on(
            self.client
                .provider()
                .get_transaction_count(who)
                .latest()
                .into_future(),
        )
        .map_err(|e| Error::Chain(format!("eth_getTransactionCount: {e}")))
    }

    /// The revert data of the mined transaction `tx_hash` that reverted in `block`, replayed
    /// with `eth_call` (best effort).
    pub(crate) fn revert_data(&self, tx_hash: B256, block: u64) -> Option<Bytes> {
        use alloy::{network::TransactionBuilder, rpc::types::TransactionRequest};
        let provider = self.client.provider();
        let tx = self
            .block_on(provider.get_transaction_by_hash(tx_hash).into_future())
            .ok()??;
        use alloy::consensus::Transaction as _;
        let mut request = TransactionRequest::default()
            .with_from(tx.inner.signer())
            .with_value(tx.value())
            .with_input(tx.input().clone())
            .with_gas_limit(tx.gas_limit());
        if let alloy_primitives::TxKind::Call(to) = tx.kind() {
            request = request.with_to(to);
        }
        // On its parent block's state, then (a revert changed nothing of its own) on its
        // block's, whose timestamp a window check needs.
        [block.saturating_sub(1), block].into_iter().find_map(|at| {
            let call = provider
                .call(request.clone())
                .block(alloy::eips::BlockId::number(at));
            match self.block_on(call.into_future()) {
                Ok(_) => None,
                Err(e) => e.as_error_resp().and_then(|p| p.as_revert_data()),
            }
        })
    }

    /// The relayer's client.
    pub fn client(&self) -> &NodeClient {
        &self.client
    }

    /// How this node is relayed to.
    pub fn config(&self) -> NodeConfig {
        self.config
    }

    /// Runs `f` to completion on this thread, with the node's runtime driving its I/O.
    pub fn block_on<F: Future>(&self, f: F) -> F::Output {
        crate::blocking::block_on(&self.runtime, f)
    }

    /// A fork of the node's latest block (state shared with other forks of the same block).
    pub fn fork_latest(&self) -> Result<InProcessEvm> {
        self.forks
            .fork(None, DEFAULT_SPEC)
            .map_err(|e| Error::Chain(format!("cannot fork the latest block: {e}")))
    }

    /// The latest block.
    pub fn latest_block(&self) -> Result<BlockInfo> {
        self.block_on(self.client.latest_block()).map_err(node)
    }

    /// When a transaction sent now lands, as the node tells: the timestamp of its pending
    /// block (the node's clock, on a chain idle for a while), never before the block after
    /// `latest` (`latest` + 1 s). A node that serves no pending block gives that lower bound.
    pub fn landing_time(&self, latest: u64) -> u64 {
        let pending = self.block_on(
            self.client
                .provider()
                .get_block_by_number(alloy::eips::BlockNumberOrTag::Pending)
                .into_future(),
        );
        let floor = latest.saturating_add(1);
        match pending {
            Ok(Some(block)) => block.header.timestamp.max(floor),
            _ => floor,
        }
    }

    /// The number of the block a transaction sent now lands in, as the node tells: its pending
    /// block, or the block after its latest when it serves none.
    pub fn landing_block(&self) -> Result<u64> {
        let provider = self.client.provider();
        let pending = self.block_on(
            provider
                .get_block_by_number(alloy::eips::BlockNumberOrTag::Pending)
                .into_future(),
        );
        if let Ok(Some(block)) = pending {
            return Ok(block.header.number);
        }
        let latest = self
            .block_on(provider.get_block_number().into_future())
            .map_err(|e| Error::Chain(format!("cannot read the latest block: {e}")))?;
        Ok(latest.saturating_add(1))
    }

    /// `who`'s balance of `token` (ether for the zero address) at the node's latest block.
    pub fn balance_of(&self, token: Address, who: Address) -> Result<U256> {
        let read = async {
            if token == ETH {
                return self.client.balance(who).await;
            }
            self.client
                .call_sol(token, &IERC20::balanceOfCall { account: who })
                .await
        };
        self.block_on(read)
            .map_err(|e| Error::Chain(format!("cannot read the balance of {token} for {who}: {e}")))
    }

    /// The next unused sequence of `lane` of the PaceAccount `account` at the latest block
    /// (the pipeline's storage read, on a fork of that block).
    pub fn next_sequence(&self, account: Address, lane: u32) -> Result<u64> {
        self.lane_sequence(account, lane, pace_pipeline::AccountKind::PaceAccount)
    }

    /// [`Self::next_sequence`] for an account of `kind`.
    pub fn lane_sequence(
        &self,
        account: Address,
        lane: u32,
        kind: pace_pipeline::AccountKind,
    ) -> Result<u64> {
        Ok(pace_pipeline::lane_sequence(
            &self.fork_latest()?,
            account,
            lane,
            kind,
        )?)
    }

    /// The `PdrExecuted(digest)` log of `account` from block `from` on, if there is one.
    pub(crate) fn executed_log(
        &self,
        account: Address,
        digest: B256,
        from: u64,
    ) -> Result<Option<ExecutedLog>> {
        let filter = Filter::new()
            .address(account)
            .event_signature(PaceAccount::PdrExecuted::SIGNATURE_HASH)
            .topic1(digest)
            .from_block(from);
        let logs = self
            .block_on(self.client.provider().get_logs(&filter).into_future())
            .map_err(|e| Error::Chain(format!("eth_getLogs: {e}")))?;
        Ok(logs.iter().find(|l| !l.removed).and_then(|l| {
            Some(ExecutedLog {
                tx_hash: l.transaction_hash?,
                block_number: l.block_number?,
            })
        }))
    }

    /// The receipt of `tx_hash`, if mined.
    pub(crate) fn receipt(&self, tx_hash: B256) -> Result<Option<TransactionReceipt>> {
        self.block_on(
            self.client
                .provider()
                .get_transaction_receipt(tx_hash)
                .into_future(),
        )
        .map_err(|e| Error::Chain(format!("eth_getTransactionReceipt: {e}")))
    }

    /// Replaces the relayer's pending transaction `tx_hash` of `proposal_id` (same nonce, fees
    /// raised under the cap), recording the new hash in `store` before its broadcast.
    pub(crate) fn replace(
        &self,
        store: &dyn Store,
        proposal_id: &str,
        tx_hash: B256,
        now: u64,
        instance: &crate::store::Instance,
    ) -> Result<B256> {
        let mut unrecorded = None;
        let record = |s: &Submission| {
            let sent = SentTx {
                at: now,
                ..self.sent(s)
            };
            store
                .record_tx(proposal_id, &sent, Some(instance))
                .map_err(|e| {
                    let message = not_recorded(s.tx_hash, &e);
                    unrecorded = Some(e);
                    message
                })
        };
        let submission = self.block_on(self.client.replace(tx_hash, record));
        match (submission, unrecorded) {
            (Ok(submission), _) => Ok(submission.tx_hash),
            // Not broadcast because the hash could not be recorded: the store's error.
            (Err(_), Some(store)) => Err(store),
            (Err(e), None) => Err(node(e)),
        }
    }

    /// Submits `signed` through the pipeline's one submission path over [`Relay`], calling
    /// `record` with each transaction (hash, signed bytes, nonce) before its broadcast
    /// (nothing is sent when it fails).
    pub(crate) fn submit(
        &self,
        record: &mut dyn FnMut(SentTx) -> Result<()>,
        checked: &Checked,
        tokens: &[Address],
    ) -> Result<ExecutionResult> {
        let mut relay = Relay {
            node: self,
            record,
            unrecorded: None,
        };
        let out = self.block_on(Pipeline::submit(&mut relay, checked, tokens));
        match (out, relay.unrecorded) {
            (Ok(outcome), _) => Ok(outcome),
            // Nothing was broadcast because the hash could not be recorded: the store's own
            // error (`STORE_UNAVAILABLE` during an outage: retry after it), not the node's.
            (Err(_), Some(store)) => Err(store),
            (Err(e), None) => Err(e.into()),
        }
    }

    /// How the relayer submits now: its address, the submission gas limit and the fees the
    /// node quotes (under the configured cap).
    pub fn relayer(&self) -> Result<Relayer> {
        Ok(self.block_on(Chain::relayer(&&self.client))?)
    }
}

/// The node as the pipeline's [`Chain`], for one proposal: reads go to the node at `latest`;
/// a send has its hash recorded (`record`) before the broadcast, then waits for the receipt
/// and its confirmations within the window.
struct Relay<'a> {
    node: &'a NodeChain,
    record: &'a mut dyn FnMut(SentTx) -> Result<()>,
    /// Why the last hash could not be recorded (nothing was broadcast then).
    unrecorded: Option<Error>,
}

impl Chain for Relay<'_> {
    async fn read(&self, to: Address, data: Bytes) -> pace_pipeline::Result<Bytes> {
        Chain::read(&&self.node.client, to, data).await
    }

    async fn ether(&self, who: Address) -> pace_pipeline::Result<U256> {
        Chain::ether(&&self.node.client, who).await
    }

    fn sender(&self) -> Address {
        self.node.client.address()
    }

    async fn relayer(&self) -> pace_pipeline::Result<Relayer> {
        Chain::relayer(&&self.node.client).await
    }

    async fn at_position(
        &self,
        tx_hash: alloy_primitives::B256,
    ) -> Option<pace_evm::AtTransaction> {
        Chain::at_position(&&self.node.client, tx_hash).await
    }

    async fn send(
        &mut self,
        to: Address,
        data: Bytes,
        relayer: &Relayer,
    ) -> pace_pipeline::Result<ExecutionResult> {
        let client = &self.node.client;
        let started = Instant::now();
        let tx = Tx::call(to, U256::ZERO, data)
            .with_gas_limit(relayer.gas_limit)
            .with_fees(relayer.max_fee_per_gas, relayer.priority_fee_per_gas);
        let record = &mut *self.record;
        let unrecorded = &mut self.unrecorded;
        let node = self.node;
        let submission = client
            .submit_recorded(tx, |s: &Submission| {
                record(node.sent(s)).map_err(|e| {
                    let message = not_recorded(s.tx_hash, &e);
                    *unrecorded = Some(e);
                    message
                })
            })
            .await?;
        let outcome = client.wait(&submission).await;
        let deadline = started + self.node.config.receipt_window;
        Ok(match self.confirmed(&outcome, deadline).await {
            Ok(()) => ExecutionResult::from(outcome),
            Err(reason) => ExecutionResult::Uncertain {
                tx_hash: Some(submission.tx_hash),
                reason,
            },
        })
    }
}

impl Relay<'_> {
    /// Whether an executed `outcome`'s block has the configured confirmations with its receipt
    /// still there before `deadline` (anything else is returned as it is); why not otherwise.
    async fn confirmed(&self, outcome: &TxOutcome, deadline: Instant) -> Result<(), String> {
        let TxOutcome::Executed {
            tx_hash,
            block_number,
            ..
        } = outcome
        else {
            return Ok(());
        };
        let (tx_hash, mined_in) = (*tx_hash, *block_number);
        let config = self.node.config;
        let client = &self.node.client;
        loop {
            if let Ok(latest) = client.block_number().await
                && latest + 1 >= mined_in + config.confirmations
            {
                // Still there after that many blocks (no reorg took it out)?
                let receipt = client
                    .provider()
                    .get_transaction_receipt(tx_hash)
                    .into_future()
                    .await;
                if let Ok(Some(r)) = receipt
                    && r.block_number == Some(mined_in)
                {
                    return Ok(());
                }
            }
            if Instant::now() + config.poll_interval >= deadline {
                return Err(format!(
                    "mined in block {mined_in} but not {} blocks deep within {:?}; \
                     not counted as executed yet",
                    config.confirmations, config.receipt_window
                ));
            }
            tokio::time::sleep(config.poll_interval).await;
        }
    }
}

fn not_recorded(tx_hash: B256, e: &Error) -> String {
    format!("cannot record transaction {tx_hash}: {e}")
}

fn node(e: pace_node::Error) -> Error {
    Error::Pipeline(pace_pipeline::Error::from(e))
}
