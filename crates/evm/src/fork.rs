//! [`RpcBackend`]: a node's state at a pinned block, read over JSON-RPC from synchronous code,
//! and [`InProcessEvm::fork`].

use crate::{
    backend::{Backend, ForkError},
    evm::{DEFAULT_SPEC, DEFAULT_TX_GAS_LIMIT, EvmDb, InProcessEvm},
};
use alloy::{
    eips::{BlockId, BlockNumberOrTag},
    providers::{Provider, ProviderBuilder, RootProvider},
    rpc::types::Block,
    transports::{TransportResult, http::reqwest::Url},
};
use alloy_primitives::{Address, B256, U256};
use revm::{bytecode::Bytecode, primitives::hardfork::SpecId, state::AccountInfo};
use std::{
    collections::HashMap,
    fmt,
    future::Future,
    hash::Hash,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicU64, Ordering},
        mpsc,
    },
    time::Duration,
};
use tokio::runtime::Runtime;

/// How long one JSON-RPC request of a fork may take by default.
pub const FORK_RPC_TIMEOUT: Duration = Duration::from_secs(30);

/// A node's state at one pinned block, read over JSON-RPC (`eth_getBalance`,
/// `eth_getTransactionCount`, `eth_getCode`, `eth_getStorageAt`, `eth_getBlockByNumber`, all
/// at that block).
///
/// The state of a past block never changes, so every answer is remembered: each account, slot
/// and block hash is fetched at most once, and clones (snapshots of a forked
/// [`InProcessEvm`]) share what was fetched. Every request is bounded by a timeout.
///
/// Callers stay synchronous: the requests run on a small runtime this backend owns (one worker
/// thread), and the calling thread waits for the answer. That works from plain threads and
/// from inside another tokio runtime alike (the caller's thread blocks, so keep forked
/// simulations off a single-threaded runtime's hot path).
#[derive(Clone)]
pub struct RpcBackend {
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    chain_id: u64,
    block: ForkBlock,
    timeout: Duration,
    provider: RootProvider,
    runtime: OwnedRuntime,
    requests: AtomicU64,
    accounts: Memo<Address, Option<AccountInfo>>,
    storage: Memo<(Address, U256), U256>,
    code: Memo<B256, Bytecode>,
    block_hashes: Memo<u64, B256>,
}

/// The header fields of the forked block that the block environment takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForkBlock {
    /// Block number: every read is made at this block.
    pub number: u64,
    /// Its hash.
    pub hash: B256,
    /// Its timestamp.
    pub timestamp: u64,
    /// Its gas limit.
    pub gas_limit: u64,
    /// Its fee recipient (`block.coinbase`).
    pub beneficiary: Address,
    /// Its `mixHash`, the `prevrandao` of post-merge blocks.
    pub prevrandao: B256,
}

impl RpcBackend {
    /// Connects to the node at `rpc_url` (plain `http://`) and pins `block`, or the latest block
    /// when `None`. Reads the chain id and the block header; nothing else is fetched until used.
    pub fn connect(rpc_url: &str, block: Option<u64>) -> Result<Self, ForkError> {
        Self::connect_with_timeout(rpc_url, block, FORK_RPC_TIMEOUT)
    }

    /// [`Self::connect`] with a bound on each JSON-RPC request other than the default
    /// [`FORK_RPC_TIMEOUT`].
    pub fn connect_with_timeout(
        rpc_url: &str,
        block: Option<u64>,
        timeout: Duration,
    ) -> Result<Self, ForkError> {
        let url = rpc_url.parse::<Url>().map_err(|e| ForkError::InvalidUrl {
            url: rpc_url.to_owned(),
            reason: e.to_string(),
        })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("pace-evm-fork")
            .enable_all()
            .build()
            .map_err(ForkError::Runtime)?;
        let runtime = OwnedRuntime(Some(runtime));
        let provider = ProviderBuilder::new()
            .disable_recommended_fillers()
            .connect_http(url);
        let requests = AtomicU64::new(0);
        let ask = Asker {
            runtime: &runtime,
            timeout,
            requests: &requests,
        };
        let p = provider.clone();
        let chain_id = ask.run("eth_chainId", async move { p.get_chain_id().await })?;
        let tag = block.map_or(BlockNumberOrTag::Latest, BlockNumberOrTag::Number);
        let p = provider.clone();
        let header: Option<Block> = ask.run("eth_getBlockByNumber", async move {
            p.get_block_by_number(tag).await
        })?;
        let header = header
            .ok_or_else(|| ForkError::BlockNotFound(tag.to_string()))?
            .header;
        let block = ForkBlock {
            number: header.number,
            hash: header.hash,
            timestamp: header.timestamp,
            gas_limit: header.gas_limit,
            beneficiary: header.beneficiary,
            prevrandao: header.mix_hash,
        };
        let inner = Inner {
            url: rpc_url.to_owned(),
            chain_id,
            block,
            timeout,
            provider,
            runtime,
            requests,
            accounts: Memo::default(),
            storage: Memo::default(),
            code: Memo::default(),
            block_hashes: Memo::default(),
        };
        inner.block_hashes.put(block.number, block.hash);
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    /// The node's URL.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The node's chain id.
    pub fn chain_id(&self) -> u64 {
        self.inner.chain_id
    }

    /// The pinned block.
    pub fn block(&self) -> ForkBlock {
        self.inner.block
    }

    /// How many JSON-RPC requests this backend (and its clones) made so far.
    pub fn requests(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    /// The account at the pinned block; `None` for an empty one (no balance, nonce or code).
    pub(crate) fn account(&self, address: Address) -> Result<Option<AccountInfo>, ForkError> {
        if let Some(known) = self.inner.accounts.get(&address) {
            return Ok(known);
        }
        let p = self.inner.provider.clone();
        let at = self.at();
        let (balance, nonce, code) = self.ask().run(
            "eth_getBalance+eth_getTransactionCount+eth_getCode",
            async move {
                let (balance, nonce, code) = tokio::join!(
                    p.get_balance(address).block_id(at),
                    p.get_transaction_count(address).block_id(at),
                    p.get_code_at(address).block_id(at),
                );
                Ok((balance?, nonce?, code?))
            },
        )?;
        let info = if balance.is_zero() && nonce == 0 && code.is_empty() {
            None
        } else {
            let code = Bytecode::new_raw(code);
            let hash = code.hash_slow();
            self.inner.code.put(hash, code.clone());
            Some(AccountInfo::new(balance, nonce, hash, code))
        };
        self.inner.accounts.put(address, info.clone());
        Ok(info)
    }

    /// A storage slot at the pinned block.
    pub(crate) fn storage(&self, address: Address, slot: U256) -> Result<U256, ForkError> {
        if let Some(known) = self.inner.storage.get(&(address, slot)) {
            return Ok(known);
        }
        let p = self.inner.provider.clone();
        let at = self.at();
        let value = self.ask().run("eth_getStorageAt", async move {
            p.get_storage_at(address, slot).block_id(at).await
        })?;
        self.inner.storage.put((address, slot), value);
        Ok(value)
    }

    /// Code by hash: only code that came with an account is known.
    pub(crate) fn code_by_hash(&self, hash: B256) -> Result<Bytecode, ForkError> {
        if hash == revm::primitives::KECCAK_EMPTY {
            return Ok(Bytecode::default());
        }
        self.inner
            .code
            .get(&hash)
            .ok_or(ForkError::UnknownCode(hash))
    }

    /// The hash of block `number`; zero for blocks after the pinned one (they are not part of
    /// the forked chain).
    pub(crate) fn block_hash(&self, number: u64) -> Result<B256, ForkError> {
        if number > self.inner.block.number {
            return Ok(B256::ZERO);
        }
        if let Some(known) = self.inner.block_hashes.get(&number) {
            return Ok(known);
        }
        let p = self.inner.provider.clone();
        let block: Option<Block> = self.ask().run("eth_getBlockByNumber", async move {
            p.get_block_by_number(BlockNumberOrTag::Number(number))
                .await
        })?;
        let hash = block
            .ok_or_else(|| ForkError::BlockNotFound(number.to_string()))?
            .header
            .hash;
        self.inner.block_hashes.put(number, hash);
        Ok(hash)
    }

    fn at(&self) -> BlockId {
        BlockId::number(self.inner.block.number)
    }

    fn ask(&self) -> Asker<'_> {
        Asker {
            runtime: &self.inner.runtime,
            timeout: self.inner.timeout,
            requests: &self.inner.requests,
        }
    }
}

impl fmt::Debug for RpcBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RpcBackend")
            .field("url", &self.inner.url)
            .field("chain_id", &self.inner.chain_id)
            .field("block", &self.inner.block.number)
            .finish_non_exhaustive()
    }
}

impl InProcessEvm {
    /// A world forked from the node at `rpc_url` at `block` (the latest block when `None`), at
    /// [`DEFAULT_SPEC`].
    ///
    /// The chain id comes from the node; the block environment is the forked block's (number,
    /// timestamp, gas limit, coinbase, prevrandao), so a read-only call here answers what
    /// `eth_call` at that block answers. As in the in-memory world gas is free: base fee and gas
    /// price are zero (`BASEFEE` reads 0). State is read lazily and kept locally; transactions
    /// change the local copy only.
    pub fn fork(rpc_url: &str, block: Option<u64>) -> Result<Self, ForkError> {
        Self::fork_with_spec(rpc_url, block, DEFAULT_SPEC)
    }

    /// [`Self::fork`] running hard fork `spec`.
    pub fn fork_with_spec(
        rpc_url: &str,
        block: Option<u64>,
        spec: SpecId,
    ) -> Result<Self, ForkError> {
        Ok(Self::from_backend(
            RpcBackend::connect(rpc_url, block)?,
            spec,
        ))
    }

    /// A world over `backend` (see [`RpcBackend::connect_with_timeout`] for other timeouts).
    pub fn from_backend(backend: RpcBackend, spec: SpecId) -> Self {
        let block = backend.block();
        let mut evm = Self::with_spec(backend.chain_id(), spec);
        evm.set_block(block.number, block.timestamp);
        let env = evm.block_env_mut();
        env.gas_limit = block.gas_limit;
        env.beneficiary = block.beneficiary;
        env.prevrandao = Some(block.prevrandao);
        evm.set_tx_gas_limit(DEFAULT_TX_GAS_LIMIT.min(block.gas_limit));
        *evm.db_mut() = EvmDb::new(Backend::Rpc(backend));
        evm
    }

    /// What state the cache falls back to: empty, or a node's.
    pub fn backend(&self) -> &Backend {
        &self.db().db
    }

    /// The pinned block of a forked world (`None` for an in-memory one).
    pub fn fork_block(&self) -> Option<ForkBlock> {
        self.backend().rpc().map(RpcBackend::block)
    }
}

/// Runs requests on the owned runtime and waits for them on the calling thread.
struct Asker<'a> {
    runtime: &'a OwnedRuntime,
    timeout: Duration,
    requests: &'a AtomicU64,
}

impl Asker<'_> {
    fn run<T: Send + 'static>(
        &self,
        method: &'static str,
        request: impl Future<Output = TransportResult<T>> + Send + 'static,
    ) -> Result<T, ForkError> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::sync_channel(1);
        let timeout = self.timeout;
        self.runtime.get().spawn(async move {
            // The receiver only goes away if the caller is gone; nothing to tell then.
            let _ = tx.send(tokio::time::timeout(timeout, request).await);
        });
        match rx.recv() {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err(source))) => Err(ForkError::Rpc { method, source }),
            // A dropped task (runtime shutting down) is as good as no answer.
            Ok(Err(_)) | Err(_) => Err(ForkError::Timeout {
                method,
                after: timeout,
            }),
        }
    }
}

/// A runtime that shuts down without blocking when dropped, so a forked world may be dropped
/// anywhere, inside another runtime included.
struct OwnedRuntime(Option<Runtime>);

impl OwnedRuntime {
    fn get(&self) -> &Runtime {
        self.0.as_ref().expect("the runtime lives until drop")
    }
}

impl Drop for OwnedRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// A thread-safe map of answers that never change.
struct Memo<K, V>(Mutex<HashMap<K, V>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    fn get(&self, key: &K) -> Option<V> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    fn put(&self, key: K, value: V) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, value);
    }
}
