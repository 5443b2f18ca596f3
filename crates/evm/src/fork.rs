//! [`RpcBackend`]: a node's state at a pinned block, read over JSON-RPC from synchronous code,
//! and [`InProcessEvm::fork`].

use crate::{
    backend::{Backend, ForkError},
    evm::{DEFAULT_SPEC, DEFAULT_TX_GAS_LIMIT, EvmDb, InProcessEvm},
    rpc::{Conn, Purpose, RpcStats},
    state::{BlockState, Overridden, StateKeys, fetch},
};
use alloy::{
    eips::BlockNumberOrTag,
    rpc::types::{Block, TransactionRequest},
};
use alloy_primitives::{Address, B256, U64, U256};
use revm::{bytecode::Bytecode, primitives::hardfork::SpecId, state::AccountInfo};
use std::{
    fmt,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

/// How long one JSON-RPC round trip of a fork may take by default.
pub const FORK_RPC_TIMEOUT: Duration = Duration::from_secs(30);

/// A node's state at one pinned block, read over JSON-RPC (`eth_getBalance`,
/// `eth_getTransactionCount`, `eth_getCode`, `eth_getStorageAt`, `eth_getBlockByNumber`, all
/// at that block).
///
/// The state of a past block never changes, so every answer is remembered: each account, slot
/// and block hash is fetched at most once, and clones (snapshots of a forked
/// [`InProcessEvm`]) and the forks a [`crate::ForkCache`] hands out for the same block share
/// what was fetched. Reads revm makes that nothing fetched yet go to the node one at a time
/// (an account's balance, nonce and code in one batch), counted as misses ([`RpcStats`]);
/// [`RpcBackend::fetch`] and [`InProcessEvm::prefetch_calls`] / [`InProcessEvm::discover`]
/// fetch many keys in one batched round trip beforehand. Every round trip is bounded by a
/// timeout.
///
/// Callers stay synchronous: the requests run on a small runtime the connection owns (one worker
/// thread), and the calling thread waits for the answer. That works from plain threads and
/// from inside another tokio runtime alike (the caller's thread blocks, so keep forked
/// simulations off a single-threaded runtime's hot path).
#[derive(Clone)]
pub struct RpcBackend {
    conn: Arc<Conn>,
    chain_id: u64,
    block: ForkBlock,
    state: Arc<BlockState>,
    /// Set on the copies [`InProcessEvm::discover`] runs on: a read of unknown state is
    /// recorded here and answered empty instead of asking the node.
    speculative: Option<Arc<Mutex<StateKeys>>>,
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
    /// Its base fee (EIP-1559), when the chain has one.
    pub base_fee: Option<u64>,
    /// The gas its transactions used.
    pub gas_used: u64,
}

impl ForkBlock {
    fn of(block: Block) -> Self {
        let header = block.header;
        Self {
            number: header.number,
            hash: header.hash,
            timestamp: header.timestamp,
            gas_limit: header.gas_limit,
            beneficiary: header.beneficiary,
            prevrandao: header.mix_hash,
            base_fee: header.base_fee_per_gas,
            gas_used: header.gas_used,
        }
    }

    /// The base fee of the block after this one (EIP-1559: up to 1/8 more when this block used
    /// more than half its gas limit, up to 1/8 less when it used less; 0 without a base fee).
    pub fn next_base_fee(&self) -> u64 {
        let Some(base) = self.base_fee else {
            return 0;
        };
        let target = u128::from(self.gas_limit / 2).max(1);
        let (base, used) = (u128::from(base), u128::from(self.gas_used));
        let next = if used > target {
            base + (base * (used - target) / target / 8).max(1)
        } else {
            base - base * (target - used) / target / 8
        };
        u64::try_from(next).unwrap_or(u64::MAX)
    }
}

impl RpcBackend {
    /// Connects to the node at `rpc_url` (plain `http://`) and pins `block`, or the latest block
    /// when `None`. Reads the chain id and the block header in one round trip; nothing else is
    /// fetched until used.
    pub fn connect(rpc_url: &str, block: Option<u64>) -> Result<Self, ForkError> {
        Self::connect_with_timeout(rpc_url, block, FORK_RPC_TIMEOUT)
    }

    /// [`Self::connect`] with a bound on each JSON-RPC round trip other than the default
    /// [`FORK_RPC_TIMEOUT`].
    pub fn connect_with_timeout(
        rpc_url: &str,
        block: Option<u64>,
        timeout: Duration,
    ) -> Result<Self, ForkError> {
        let conn = Arc::new(Conn::open(rpc_url, timeout)?);
        let (chain_id, block) = head(&conn, block, true)?;
        Ok(Self::pinned(
            conn,
            chain_id.unwrap_or_default(),
            block,
            Arc::default(),
        ))
    }

    pub(crate) fn pinned(
        conn: Arc<Conn>,
        chain_id: u64,
        block: ForkBlock,
        state: Arc<BlockState>,
    ) -> Self {
        state.block_hashes.put(block.number, block.hash);
        Self {
            conn,
            chain_id,
            block,
            state,
            speculative: None,
        }
    }

    /// The node's URL.
    pub fn url(&self) -> &str {
        &self.conn.url
    }

    /// The node's chain id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The pinned block.
    pub fn block(&self) -> ForkBlock {
        self.block
    }

    /// How many JSON-RPC requests the connection (this backend, its clones and every fork of
    /// the same [`crate::ForkCache`]) made so far.
    pub fn requests(&self) -> u64 {
        self.conn.stats().requests
    }

    /// The connection's round trips, requests and misses so far (shared as [`Self::requests`]).
    pub fn stats(&self) -> RpcStats {
        self.conn.stats()
    }

    /// Approximate heap bytes of the state fetched for this block so far.
    pub fn memory_bytes(&self) -> usize {
        self.state.memory_bytes()
    }

    /// Fetches every key of `keys` this block's state does not hold yet, in one batched round
    /// trip (none if it holds them all). Returns how many keys were fetched.
    pub fn fetch(&self, keys: &StateKeys) -> Result<usize, ForkError> {
        self.fetch_with(keys, Vec::new(), Purpose::Prefetch)
            .map(|(n, _)| n)
    }

    /// Fetches `keys` (what is not known yet) and the access lists of `calls` in one round
    /// trip; returns how many keys were fetched and the keys the access lists name that this
    /// block's state does not hold.
    pub(crate) fn fetch_with(
        &self,
        keys: &StateKeys,
        calls: Vec<TransactionRequest>,
        purpose: Purpose,
    ) -> Result<(usize, StateKeys), ForkError> {
        self.fetch_traced(keys, calls, Vec::new(), purpose)
    }

    /// [`Self::fetch_with`], and in the same round trip the prestate traces of `overridden`
    /// calls, each on the pinned state with some storage overridden (their values are taken
    /// except for the overridden slots).
    pub(crate) fn fetch_traced(
        &self,
        keys: &StateKeys,
        calls: Vec<TransactionRequest>,
        overridden: Vec<Overridden>,
        purpose: Purpose,
    ) -> Result<(usize, StateKeys), ForkError> {
        let unknown = self.state.unknown(keys);
        if unknown.is_empty() && calls.is_empty() && overridden.is_empty() {
            return Ok((0, StateKeys::default()));
        }
        let fetched_keys = unknown.len();
        let requests = unknown.requests() + 2 * calls.len() as u64 + overridden.len() as u64;
        let client = self.conn.client.clone();
        let at = self.block.number;
        let method = if calls.is_empty() && overridden.is_empty() {
            "batched state reads"
        } else {
            "eth_createAccessList + debug_traceCall + batched state reads"
        };
        let fetched = self.conn.run(
            method,
            requests,
            purpose,
            fetch(client, at, unknown, calls, overridden),
        )?;
        let mut named = StateKeys::default();
        for &(address, slot) in &fetched.touched {
            named.accounts.insert(address);
            if let Some(slot) = slot {
                named.slots.insert((address, slot));
            }
        }
        self.state.store(fetched);
        Ok((fetched_keys, self.state.unknown(&named)))
    }

    /// The value of a slot at the pinned block, if fetched.
    pub(crate) fn known_slot(&self, address: Address, slot: U256) -> Option<U256> {
        self.state.storage.get(&(address, slot))
    }

    /// A copy that records reads of unknown state instead of asking the node, and the record.
    pub(crate) fn speculative(&self) -> (Self, Arc<Mutex<StateKeys>>) {
        let record = Arc::new(Mutex::new(StateKeys::default()));
        let copy = Self {
            speculative: Some(Arc::clone(&record)),
            ..self.clone()
        };
        (copy, record)
    }

    /// Records a read of unknown state on a speculative copy; `false` on a real backend.
    fn record(&self, add: impl FnOnce(&mut StateKeys)) -> bool {
        match &self.speculative {
            Some(record) => {
                add(&mut record.lock().unwrap_or_else(PoisonError::into_inner));
                true
            }
            None => false,
        }
    }

    /// The account at the pinned block; `None` for an empty one (no balance, nonce or code).
    pub(crate) fn account(&self, address: Address) -> Result<Option<AccountInfo>, ForkError> {
        if let Some(known) = self.state.accounts.get(&address) {
            return Ok(known);
        }
        if self.record(|k| {
            k.accounts.insert(address);
        }) {
            return Ok(None);
        }
        let keys = StateKeys {
            accounts: [address].into(),
            ..StateKeys::default()
        };
        self.fetch_with(&keys, Vec::new(), Purpose::Miss)?;
        Ok(self.state.accounts.get(&address).flatten())
    }

    /// A storage slot at the pinned block.
    pub(crate) fn storage(&self, address: Address, slot: U256) -> Result<U256, ForkError> {
        if let Some(known) = self.state.storage.get(&(address, slot)) {
            return Ok(known);
        }
        if self.record(|k| {
            k.slots.insert((address, slot));
        }) {
            return Ok(U256::ZERO);
        }
        let keys = StateKeys {
            slots: [(address, slot)].into(),
            ..StateKeys::default()
        };
        self.fetch_with(&keys, Vec::new(), Purpose::Miss)?;
        Ok(self.state.storage.get(&(address, slot)).unwrap_or_default())
    }

    /// Code by hash: only code that came with an account is known.
    pub(crate) fn code_by_hash(&self, hash: B256) -> Result<Bytecode, ForkError> {
        if hash == revm::primitives::KECCAK_EMPTY {
            return Ok(Bytecode::default());
        }
        self.state
            .code
            .get(&hash)
            .ok_or(ForkError::UnknownCode(hash))
    }

    /// The hash of block `number`; zero for blocks after the pinned one (they are not part of
    /// the forked chain).
    pub(crate) fn block_hash(&self, number: u64) -> Result<B256, ForkError> {
        if number > self.block.number {
            return Ok(B256::ZERO);
        }
        if let Some(known) = self.state.block_hashes.get(&number) {
            return Ok(known);
        }
        if self.record(|k| {
            k.block_hashes.insert(number);
        }) {
            return Ok(B256::ZERO);
        }
        let keys = StateKeys {
            block_hashes: [number].into(),
            ..StateKeys::default()
        };
        self.fetch_with(&keys, Vec::new(), Purpose::Miss)?;
        let hash = self.state.block_hashes.get(&number).unwrap_or_default();
        if hash == B256::ZERO {
            return Err(ForkError::BlockNotFound(number.to_string()));
        }
        Ok(hash)
    }
}

/// Asks the node for the header of `block` (the latest when `None`), and its chain id too when
/// `chain_id` is set, in one round trip.
pub(crate) fn head(
    conn: &Conn,
    block: Option<u64>,
    chain_id: bool,
) -> Result<(Option<u64>, ForkBlock), ForkError> {
    let tag = block.map_or(BlockNumberOrTag::Latest, BlockNumberOrTag::Number);
    let client = conn.client.clone();
    let requests = 1 + u64::from(chain_id);
    let (id, header) = conn.run(
        if chain_id {
            "eth_chainId"
        } else {
            "eth_getBlockByNumber"
        },
        requests,
        Purpose::Head,
        async move {
            let mut batch = client.new_batch();
            let id = if chain_id {
                Some(batch.add_call::<_, U64>("eth_chainId", &())?)
            } else {
                None
            };
            let header =
                batch.add_call::<_, Option<Block>>("eth_getBlockByNumber", &(tag, false))?;
            batch.send().await?;
            let id = match id {
                Some(id) => Some(id.await?.to::<u64>()),
                None => None,
            };
            Ok((id, header.await?))
        },
    )?;
    let header = header.ok_or_else(|| ForkError::BlockNotFound(tag.to_string()))?;
    Ok((id, ForkBlock::of(header)))
}

impl fmt::Debug for RpcBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RpcBackend")
            .field("url", &self.conn.url)
            .field("chain_id", &self.chain_id)
            .field("block", &self.block.number)
            .field("speculative", &self.speculative.is_some())
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

    /// The base fee of the block after the current one: on a fork, what EIP-1559 gives after
    /// the forked block ([`ForkBlock::next_base_fee`]); in memory, the world's own (zero by
    /// default: gas is free there).
    pub fn next_base_fee(&self) -> u64 {
        self.fork_block()
            .map_or(self.block_env().basefee, |b| b.next_base_fee())
    }
}
