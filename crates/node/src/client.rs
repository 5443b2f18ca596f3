//! [`NodeClient`]: one signing account on a node, over JSON-RPC with alloy.

mod replace;

pub use replace::REPLACEMENT_BUMP_BPS;

use crate::{
    error::{Error, Result},
    outcome::{CallOutcome, Submission, Tx, TxOutcome, Uncertainty},
};
use alloy::{
    eips::{BlockId, BlockNumberOrTag, eip1559::Eip1559Estimation, eip2718::Encodable2718},
    network::{EthereumWallet, NetworkTransactionBuilder, TransactionBuilder},
    providers::{Provider, ProviderBuilder, RootProvider},
    rpc::types::{TransactionReceipt, TransactionRequest},
    signers::local::PrivateKeySigner,
    transports::{TransportError, TransportResult, http::reqwest},
};
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use std::{
    future::IntoFuture,
    time::{Duration, Instant},
};

/// How long [`NodeClient::wait`] polls for a receipt by default.
pub const DEFAULT_RECEIPT_TIMEOUT: Duration = Duration::from_secs(60);
/// The pause between two receipt polls by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(20);
/// How long one JSON-RPC request may take by default.
pub const DEFAULT_RPC_TIMEOUT: Duration = Duration::from_secs(10);

/// The latest block's number, hash and timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockInfo {
    /// Block number.
    pub number: u64,
    /// Block hash.
    pub hash: B256,
    /// Block timestamp.
    pub timestamp: u64,
}

/// A node seen through JSON-RPC by one signing account.
///
/// Transactions are signed locally (EIP-1559, nonce from `eth_getTransactionCount(pending)`,
/// gas estimated unless given, fees from `eth_feeHistory`) and broadcast with
/// `eth_sendRawTransaction`; the hash is known before the broadcast. Sends from one client
/// are serialised, so concurrent sends get consecutive nonces.
///
/// Honesty rules (execution-fidelity invariants 3 and 4):
/// - an `Err` from [`Self::submit`] / [`Self::send`] / [`Self::execute`] means nothing was
///   broadcast;
/// - [`TxOutcome::Executed`] only from a receipt with status 1, [`TxOutcome::Reverted`] only
///   from a receipt with status 0;
/// - anything else after a broadcast, a lost connection or a receipt that does not come in
///   time included, is [`TxOutcome::Uncertain`] with the hash. Nothing is ever re-sent.
#[derive(Debug)]
pub struct NodeClient {
    provider: RootProvider,
    wallet: EthereumWallet,
    from: Address,
    chain_id: u64,
    url: String,
    receipt_timeout: Duration,
    poll_interval: Duration,
    rpc_timeout: Duration,
    max_fee_cap: Option<u128>,
    sending: tokio::sync::Mutex<()>,
}

impl NodeClient {
    /// Connects to the node at `url` (`http://` or `https://`) as `signer`, and reads its chain
    /// id.
    pub async fn connect(url: &str, signer: PrivateKeySigner) -> Result<Self> {
        let parsed = url.parse::<reqwest::Url>().map_err(|e| Error::InvalidUrl {
            url: url.to_owned(),
            reason: e.to_string(),
        })?;
        // alloy's `connect_http` builds its client with `reqwest::Client::new()`, which panics
        // on a machine without CA certificates: built here, that is an error.
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| Error::HttpClient(e.to_string()))?;
        let provider = ProviderBuilder::new()
            .disable_recommended_fillers()
            .connect_reqwest(http, parsed);
        let from = signer.address();
        let mut client = Self {
            provider,
            wallet: EthereumWallet::from(signer),
            from,
            chain_id: 0,
            url: url.to_owned(),
            receipt_timeout: DEFAULT_RECEIPT_TIMEOUT,
            poll_interval: DEFAULT_POLL_INTERVAL,
            rpc_timeout: DEFAULT_RPC_TIMEOUT,
            max_fee_cap: None,
            sending: tokio::sync::Mutex::new(()),
        };
        client.chain_id = client
            .rpc("eth_chainId", client.provider.get_chain_id())
            .await?;
        Ok(client)
    }

    /// The same client waiting at most `timeout` for a receipt (default
    /// [`DEFAULT_RECEIPT_TIMEOUT`]).
    pub fn with_receipt_timeout(mut self, timeout: Duration) -> Self {
        self.receipt_timeout = timeout;
        self
    }

    /// The same client polling for receipts every `interval` (default
    /// [`DEFAULT_POLL_INTERVAL`]).
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The same client giving each JSON-RPC request at most `timeout` (default
    /// [`DEFAULT_RPC_TIMEOUT`]).
    pub fn with_rpc_timeout(mut self, timeout: Duration) -> Self {
        self.rpc_timeout = timeout;
        self
    }

    /// The same client never paying more than `cap` wei per gas: the EIP-1559 fee estimate's
    /// `maxFeePerGas` is lowered to `cap` (and the priority fee to at most that). A node whose
    /// base fee is above the cap refuses the transaction, which is then an `Err`: not sent.
    pub fn with_max_fee_per_gas(mut self, cap: u128) -> Self {
        self.max_fee_cap = Some(cap);
        self
    }

    /// The signing account.
    pub fn address(&self) -> Address {
        self.from
    }

    /// The node's chain id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The node's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The underlying alloy provider, for requests this client does not wrap.
    pub fn provider(&self) -> &RootProvider {
        &self.provider
    }

    // ---------------------------------------------------------------- reads

    /// The latest block number.
    pub async fn block_number(&self) -> Result<u64> {
        self.rpc("eth_blockNumber", self.provider.get_block_number())
            .await
    }

    /// The latest block's number, hash and timestamp.
    pub async fn latest_block(&self) -> Result<BlockInfo> {
        let block = self
            .rpc(
                "eth_getBlockByNumber",
                self.provider.get_block_by_number(BlockNumberOrTag::Latest),
            )
            .await?
            .ok_or_else(|| Error::Rpc {
                method: "eth_getBlockByNumber",
                source: TransportError::NullResp,
            })?;
        Ok(BlockInfo {
            number: block.header.number,
            hash: block.header.hash,
            timestamp: block.header.timestamp,
        })
    }

    /// The ether balance at the latest block.
    pub async fn balance(&self, address: Address) -> Result<U256> {
        self.rpc("eth_getBalance", self.provider.get_balance(address))
            .await
    }

    /// The ether balance at block `block`.
    pub async fn balance_at(&self, address: Address, block: u64) -> Result<U256> {
        self.rpc(
            "eth_getBalance",
            self.provider
                .get_balance(address)
                .block_id(BlockId::number(block)),
        )
        .await
    }

    /// The account's nonce at the latest block.
    pub async fn nonce(&self, address: Address) -> Result<u64> {
        self.rpc(
            "eth_getTransactionCount",
            self.provider.get_transaction_count(address),
        )
        .await
    }

    /// The runtime code at the latest block.
    pub async fn code(&self, address: Address) -> Result<Bytes> {
        self.rpc("eth_getCode", self.provider.get_code_at(address))
            .await
    }

    /// `eth_call` of `to` with `data` from this account at the latest block; a revert is
    /// [`Error::CallReverted`].
    pub async fn call(&self, to: Address, data: Bytes) -> Result<Bytes> {
        match self.simulate(to, U256::ZERO, data, None).await? {
            CallOutcome::Returned(output) => Ok(output),
            CallOutcome::Reverted(data) => Err(Error::CallReverted { data }),
        }
    }

    /// [`Self::call`] with a `sol!` call, its return value decoded.
    pub async fn call_sol<C: SolCall>(&self, to: Address, call: &C) -> Result<C::Return> {
        let output = self.call(to, call.abi_encode().into()).await?;
        C::abi_decode_returns(&output).map_err(|source| Error::Decode {
            signature: C::SIGNATURE,
            source,
        })
    }

    /// `eth_call` of `to` with `value` and `data` from this account on the state after block
    /// `block` (the latest when `None`): what the call would do, nothing committed. A revert is
    /// an outcome here.
    pub async fn simulate(
        &self,
        to: Address,
        value: U256,
        data: Bytes,
        block: Option<u64>,
    ) -> Result<CallOutcome> {
        let request = TransactionRequest::default()
            .with_from(self.from)
            .with_to(to)
            .with_value(value)
            .with_input(data);
        self.eth_call(request, block.map_or(BlockId::latest(), BlockId::number))
            .await
    }

    /// `debug_traceCall` with the call tracer (logs included) of `to` with `value` and `data`
    /// from this account on the latest state: the frames and logs a trace-based simulator needs,
    /// as the node's JSON.
    pub async fn trace_call(
        &self,
        to: Address,
        value: U256,
        data: Bytes,
    ) -> Result<serde_json::Value> {
        let request = TransactionRequest::default()
            .with_from(self.from)
            .with_to(to)
            .with_value(value)
            .with_input(data);
        let options =
            serde_json::json!({"tracer": "callTracer", "tracerConfig": {"withLog": true}});
        let call = self.provider.raw_request::<_, serde_json::Value>(
            "debug_traceCall".into(),
            (request, "latest", options),
        );
        match tokio::time::timeout(self.rpc_timeout, call).await {
            Ok(Ok(trace)) => Ok(trace),
            Ok(Err(source)) => Err(Error::Rpc {
                method: "debug_traceCall",
                source,
            }),
            Err(_) => Err(Error::Timeout {
                method: "debug_traceCall",
                after: self.rpc_timeout,
            }),
        }
    }

    // ---------------------------------------------------------------- writes

    /// Signs and broadcasts a call of `to` with `value` and `data` (gas estimated).
    pub async fn send(&self, to: Address, value: U256, data: Bytes) -> Result<Submission> {
        self.submit(Tx::call(to, value, data)).await
    }

    /// The EIP-1559 fees a transaction sent now would pay (`eth_feeHistory`), the client's fee
    /// cap applied.
    pub async fn fees(&self) -> Result<Eip1559Estimation> {
        let fees = self
            .rpc("eth_feeHistory", self.provider.estimate_eip1559_fees())
            .await?;
        let max_fee = self
            .max_fee_cap
            .map_or(fees.max_fee_per_gas, |cap| fees.max_fee_per_gas.min(cap));
        Ok(Eip1559Estimation {
            max_fee_per_gas: max_fee,
            max_priority_fee_per_gas: fees.max_priority_fee_per_gas.min(max_fee),
        })
    }

    /// Signs and broadcasts `tx`. `Err` means it was not broadcast; once it may have been,
    /// this returns the [`Submission`] (with [`Submission::broadcast_error`] set if the
    /// broadcast's answer was lost), to be settled with [`Self::wait`].
    pub async fn submit(&self, tx: Tx) -> Result<Submission> {
        self.submit_recorded(tx, |_| Ok(())).await
    }

    /// [`Self::submit`], calling `before_broadcast` with the signed transaction's
    /// [`Submission`] (its hash and nonce) after signing and before broadcasting, under the
    /// sending lock: where a caller records the hash durably, so that a crash during the
    /// broadcast leaves the hash behind. When it fails nothing is broadcast
    /// ([`Error::NotBroadcast`] with its message).
    pub async fn submit_recorded(
        &self,
        tx: Tx,
        before_broadcast: impl FnOnce(&Submission) -> std::result::Result<(), String>,
    ) -> Result<Submission> {
        let _one_at_a_time = self.sending.lock().await;
        let nonce = self
            .rpc(
                "eth_getTransactionCount",
                self.provider.get_transaction_count(self.from).pending(),
            )
            .await?;
        let mut request = TransactionRequest::default()
            .with_from(self.from)
            .with_chain_id(self.chain_id)
            .with_nonce(nonce)
            .with_value(tx.value)
            .with_input(tx.input.clone());
        request = match tx.to {
            Some(to) => request.with_to(to),
            None => request.into_create(),
        };
        let gas_limit = match tx.gas_limit {
            Some(gas) => gas,
            None => {
                self.rpc(
                    "eth_estimateGas",
                    self.provider.estimate_gas(request.clone()),
                )
                .await?
            }
        };
        let fees = match tx.fees {
            Some((max_fee_per_gas, max_priority_fee_per_gas)) => Eip1559Estimation {
                max_fee_per_gas,
                max_priority_fee_per_gas,
            },
            None => self.fees().await?,
        };
        let max_fee = self
            .max_fee_cap
            .map_or(fees.max_fee_per_gas, |cap| fees.max_fee_per_gas.min(cap));
        let envelope = request
            .with_gas_limit(gas_limit)
            .with_max_fee_per_gas(max_fee)
            .with_max_priority_fee_per_gas(fees.max_priority_fee_per_gas.min(max_fee))
            .build(&self.wallet)
            .await
            .map_err(|e| Error::Sign(e.to_string()))?;
        let tx_hash = *envelope.tx_hash();
        let raw = envelope.encoded_2718();
        let submission = Submission {
            tx_hash,
            from: self.from,
            nonce,
            gas_limit,
            tx,
            broadcast_error: None,
        };
        before_broadcast(&submission).map_err(Error::NotBroadcast)?;
        self.broadcast(submission, &raw).await
    }

    /// Broadcasts the signed `raw` transaction of `submission` (under the sending lock).
    async fn broadcast(&self, mut submission: Submission, raw: &[u8]) -> Result<Submission> {
        let tx_hash = submission.tx_hash;
        // From here on the transaction may be out: only a proof that it is not may be an Err.
        let sent =
            tokio::time::timeout(self.rpc_timeout, self.provider.send_raw_transaction(raw)).await;
        let broadcast_error = match sent {
            Ok(Ok(_)) => None,
            Ok(Err(e)) if never_reached_the_node(&e) => {
                return Err(Error::Rpc {
                    method: "eth_sendRawTransaction",
                    source: e,
                });
            }
            Ok(Err(e)) if e.is_error_resp() => {
                // The node answered no. Unless it knows the transaction anyway ("already
                // known"), it was not accepted and cannot land.
                match self.knows(tx_hash).await {
                    Some(false) => return Err(Error::Rejected { tx_hash, source: e }),
                    Some(true) | None => Some(e.to_string()),
                }
            }
            Ok(Err(e)) => Some(e.to_string()),
            Err(_) => Some(format!(
                "eth_sendRawTransaction got no answer within {:?}",
                self.rpc_timeout
            )),
        };
        submission.broadcast_error = broadcast_error;
        Ok(submission)
    }

    /// Polls for the submission's receipt, for at most the receipt timeout, and tells what
    /// became of it: [`TxOutcome::Executed`] or [`TxOutcome::Reverted`] from a receipt,
    /// [`TxOutcome::Uncertain`] without one. Never fails and never re-sends.
    pub async fn wait(&self, submission: &Submission) -> TxOutcome {
        let hash = submission.tx_hash;
        let started = Instant::now();
        let deadline = started + self.receipt_timeout;
        // The error of the last poll that ended on its own terms; `None` after an answer.
        let mut last_error: Option<String> = None;
        let mut answered = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let budget = left.min(self.rpc_timeout);
            let poll = tokio::time::timeout(
                budget,
                self.provider.get_transaction_receipt(hash).into_future(),
            )
            .await;
            match poll {
                Ok(Ok(Some(receipt))) if receipt.block_number.is_some() => {
                    return self.settle(submission, &receipt).await;
                }
                Ok(Ok(_)) => {
                    answered = true;
                    last_error = None;
                }
                Ok(Err(e)) => last_error = Some(e.to_string()),
                // A poll cut short by the receipt deadline says nothing about the node: the
                // verdict stays with the last poll that had its full time, unless none did.
                Err(_) if budget < self.rpc_timeout && (answered || last_error.is_some()) => {}
                Err(_) => {
                    last_error = Some(format!(
                        "eth_getTransactionReceipt got no answer within {budget:?}"
                    ))
                }
            }
            if Instant::now() + self.poll_interval >= deadline {
                break;
            }
            tokio::time::sleep(self.poll_interval).await;
        }
        let waited = started.elapsed();
        let reason = match last_error {
            Some(error) => Uncertainty::NodeUnreachable { waited, error },
            None => Uncertainty::NoReceipt {
                waited,
                broadcast_error: submission.broadcast_error.clone(),
            },
        };
        TxOutcome::Uncertain {
            tx_hash: Some(hash),
            reason,
        }
    }

    /// [`Self::submit`] then [`Self::wait`]: `Err` only when nothing was broadcast.
    pub async fn execute(&self, tx: Tx) -> Result<TxOutcome> {
        let submission = self.submit(tx).await?;
        Ok(self.wait(&submission).await)
    }

    /// Deploys `init_code` (creation code and constructor arguments) and returns the new
    /// contract's address once its receipt says it executed; otherwise [`Error::Deploy`] with
    /// what is known.
    pub async fn deploy(&self, init_code: Bytes) -> Result<Address> {
        match self.execute(Tx::create(init_code)).await? {
            TxOutcome::Executed {
                contract_address: Some(address),
                ..
            } => Ok(address),
            outcome => Err(Error::Deploy(Box::new(outcome))),
        }
    }

    // ---------------------------------------------------------------- internals

    /// The outcome a mined receipt proves.
    async fn settle(&self, submission: &Submission, receipt: &TransactionReceipt) -> TxOutcome {
        let tx_hash = submission.tx_hash;
        let gas_used = receipt.gas_used;
        let block_number = receipt.block_number.unwrap_or_default();
        if receipt.status() {
            return TxOutcome::Executed {
                tx_hash,
                gas_used,
                block_number,
                logs: receipt
                    .inner
                    .logs()
                    .iter()
                    .map(|log| log.inner.clone())
                    .collect(),
                contract_address: receipt.contract_address,
            };
        }
        TxOutcome::Reverted {
            tx_hash,
            gas_used,
            block_number,
            revert_data: self.replay(submission, block_number).await,
        }
    }

    /// The revert data of a transaction mined with status 0, from replaying it with
    /// `eth_call` on the state before its block; `None` when that does not revert.
    async fn replay(&self, submission: &Submission, block_number: u64) -> Option<Bytes> {
        let tx = &submission.tx;
        let mut request = TransactionRequest::default()
            .with_from(submission.from)
            .with_value(tx.value)
            .with_input(tx.input.clone())
            .with_gas_limit(submission.gas_limit);
        request = match tx.to {
            Some(to) => request.with_to(to),
            None => request.into_create(),
        };
        let parent = BlockId::number(block_number.saturating_sub(1));
        match self.eth_call(request, parent).await {
            Ok(CallOutcome::Reverted(data)) => Some(data),
            _ => None,
        }
    }

    async fn eth_call(&self, request: TransactionRequest, block: BlockId) -> Result<CallOutcome> {
        let call = self.provider.call(request).block(block);
        match tokio::time::timeout(self.rpc_timeout, call.into_future()).await {
            Ok(Ok(output)) => Ok(CallOutcome::Returned(output)),
            Ok(Err(e)) => match e.as_error_resp().and_then(|p| p.as_revert_data()) {
                Some(data) => Ok(CallOutcome::Reverted(data)),
                None => Err(Error::Rpc {
                    method: "eth_call",
                    source: e,
                }),
            },
            Err(_) => Err(Error::Timeout {
                method: "eth_call",
                after: self.rpc_timeout,
            }),
        }
    }

    /// Whether the node knows transaction `hash` (pending or mined); `None` if it cannot say.
    async fn knows(&self, hash: B256) -> Option<bool> {
        let lookup = self.provider.get_transaction_by_hash(hash).into_future();
        match tokio::time::timeout(self.rpc_timeout, lookup).await {
            Ok(Ok(found)) => Some(found.is_some()),
            _ => None,
        }
    }

    /// One JSON-RPC request, bounded by the RPC timeout.
    async fn rpc<T>(
        &self,
        method: &'static str,
        request: impl IntoFuture<Output = TransportResult<T>>,
    ) -> Result<T> {
        match tokio::time::timeout(self.rpc_timeout, request.into_future()).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(source)) => Err(Error::Rpc { method, source }),
            Err(_) => Err(Error::Timeout {
                method,
                after: self.rpc_timeout,
            }),
        }
    }
}

/// Whether `error` proves the request never reached the node: the connection could not be
/// opened. Anything after that (reset, timeout, a garbled answer) may follow a delivery.
fn never_reached_the_node(error: &TransportError) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        let refused = e
            .downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_connect)
            || e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::ConnectionRefused);
        if refused {
            return true;
        }
        cause = e.source();
    }
    false
}
