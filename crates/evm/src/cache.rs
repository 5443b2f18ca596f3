//! [`ForkCache`]: one connection to a node and one shared state per block, so that intents
//! simulated against the same block fetch each account and slot once between them.

use crate::{
    backend::ForkError,
    evm::InProcessEvm,
    fork::{FORK_RPC_TIMEOUT, ForkBlock, RpcBackend, head},
    rpc::{Conn, RpcStats},
    state::BlockState,
};
use alloy_primitives::B256;
use revm::primitives::hardfork::SpecId;
use std::{
    collections::VecDeque,
    fmt,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

/// How much a [`ForkCache`] keeps: at most `blocks` blocks, and fewer when their state
/// together passes `bytes` (the block being handed out is always kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLimits {
    /// Blocks kept.
    pub blocks: usize,
    /// Approximate heap bytes kept ([`RpcBackend::memory_bytes`] summed).
    pub bytes: usize,
}

impl Default for CacheLimits {
    /// Four blocks, 256 MiB.
    fn default() -> Self {
        Self {
            blocks: 4,
            bytes: 256 << 20,
        }
    }
}

/// Forks of one node, one shared block state per block (by number and hash), least recently
/// used first out.
///
/// A new head block gets a new, empty state: nothing fetched for another block is reused, so a
/// fork never mixes two blocks' state. Forks already handed out keep their state alive after
/// it leaves the cache. Safe to share between threads (`&self` methods, a mutex around the
/// list of blocks, the block states are themselves thread-safe).
pub struct ForkCache {
    conn: Arc<Conn>,
    chain_id: u64,
    limits: CacheLimits,
    blocks: Mutex<VecDeque<(ForkBlock, Arc<BlockState>)>>,
}

impl ForkCache {
    /// Connects to the node at `rpc_url` (one round trip: its chain id and head block, which
    /// becomes the first cached block) with the default [`FORK_RPC_TIMEOUT`].
    pub fn connect(rpc_url: &str, limits: CacheLimits) -> Result<Self, ForkError> {
        Self::connect_with_timeout(rpc_url, limits, FORK_RPC_TIMEOUT)
    }

    /// [`Self::connect`] with another bound on each round trip.
    pub fn connect_with_timeout(
        rpc_url: &str,
        limits: CacheLimits,
        timeout: Duration,
    ) -> Result<Self, ForkError> {
        let conn = Arc::new(Conn::open(rpc_url, timeout)?);
        let (chain_id, block) = head(&conn, None, true)?;
        let cache = Self {
            conn,
            chain_id: chain_id.unwrap_or_default(),
            limits,
            blocks: Mutex::new(VecDeque::new()),
        };
        cache.backend_for(block);
        Ok(cache)
    }

    /// A backend on the node's latest block: one round trip asks for the head; the state is
    /// shared with every earlier backend for the same block (same number and hash).
    pub fn latest(&self) -> Result<RpcBackend, ForkError> {
        let (_, block) = head(&self.conn, None, false)?;
        Ok(self.backend_for(block))
    }

    /// A backend on block `number`: no round trip when the block is cached, else one for its
    /// header.
    pub fn at(&self, number: u64) -> Result<RpcBackend, ForkError> {
        if let Some(block) = self.cached(|b| b.number == number) {
            return Ok(self.backend_for(block));
        }
        let (_, block) = head(&self.conn, Some(number), false)?;
        Ok(self.backend_for(block))
    }

    /// A world forked at `block` (the latest when `None`) at `spec`, over [`Self::latest`] or
    /// [`Self::at`].
    pub fn fork(&self, block: Option<u64>, spec: SpecId) -> Result<InProcessEvm, ForkError> {
        let backend = match block {
            Some(number) => self.at(number)?,
            None => self.latest()?,
        };
        Ok(InProcessEvm::from_backend(backend, spec))
    }

    /// The node's chain id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The connection's counts (every backend handed out shares them).
    pub fn stats(&self) -> RpcStats {
        self.conn.stats()
    }

    /// The blocks cached, most recently used first.
    pub fn blocks(&self) -> Vec<(u64, B256)> {
        self.lock()
            .iter()
            .map(|(b, _)| (b.number, b.hash))
            .collect()
    }

    /// Approximate heap bytes of the cached blocks' state.
    pub fn memory_bytes(&self) -> usize {
        self.lock().iter().map(|(_, s)| s.memory_bytes()).sum()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(ForkBlock, Arc<BlockState>)>> {
        self.blocks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn cached(&self, matches: impl Fn(&ForkBlock) -> bool) -> Option<ForkBlock> {
        self.lock().iter().map(|(b, _)| *b).find(matches)
    }

    /// The backend for `block`, its state cached (moved to the front) or new; then evicts
    /// from the back down to the limits.
    fn backend_for(&self, block: ForkBlock) -> RpcBackend {
        let mut blocks = self.lock();
        let state = match blocks.iter().position(|(b, _)| *b == block) {
            Some(i) => blocks.remove(i).expect("a found index").1,
            None => Arc::default(),
        };
        blocks.push_front((block, Arc::clone(&state)));
        let limit = self.limits.blocks.max(1);
        while blocks.len() > limit
            || (blocks.len() > 1
                && blocks.iter().map(|(_, s)| s.memory_bytes()).sum::<usize>() > self.limits.bytes)
        {
            blocks.pop_back();
        }
        drop(blocks);
        RpcBackend::pinned(Arc::clone(&self.conn), self.chain_id, block, state)
    }
}

impl fmt::Debug for ForkCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ForkCache")
            .field("url", &self.conn.url)
            .field("chain_id", &self.chain_id)
            .field("limits", &self.limits)
            .field("blocks", &self.blocks())
            .finish_non_exhaustive()
    }
}
