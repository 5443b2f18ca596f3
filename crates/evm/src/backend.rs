//! [`Backend`]: where the state the in-memory cache has not seen yet comes from.

use crate::fork::RpcBackend;
use alloy_primitives::{Address, B256, U256, keccak256};
use revm::{
    DatabaseRef, bytecode::Bytecode, database_interface::DBErrorMarker, state::AccountInfo,
};
use std::time::Duration;

/// The database under [`crate::EvmDb`]'s cache: nothing (an empty world) or a node's state at a
/// pinned block.
///
/// Reads that miss the cache fall through to it; writes never reach it. A forked world therefore
/// starts as the node's state and diverges locally; the node is never written to.
///
/// # Failures
///
/// Its `DatabaseRef::Error` is [`ForkError`], as revm's `AlloyDB` has its `AlloyDBError`. A node
/// that cannot answer is never papered over with a made-up value: the read returns the error,
/// revm stops the transaction with `EVMError::Database`, and [`crate::InProcessEvm`]'s
/// transactions, simulations and views return it as [`crate::Error::Fork`]; its readers and
/// setters return the [`ForkError`] itself. [`Backend::Empty`] never fails.
#[derive(Clone, Debug, Default)]
pub enum Backend {
    /// An empty world: every account is empty, every slot zero. Never fails.
    #[default]
    Empty,
    /// A node's state at one block, read over JSON-RPC on first use and remembered.
    Rpc(RpcBackend),
}

impl Backend {
    /// The node behind a forked world, if this is one.
    pub fn rpc(&self) -> Option<&RpcBackend> {
        match self {
            Self::Empty => None,
            Self::Rpc(rpc) => Some(rpc),
        }
    }
}

impl DatabaseRef for Backend {
    type Error = ForkError;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, ForkError> {
        match self {
            Self::Empty => Ok(None),
            Self::Rpc(rpc) => rpc.account(address),
        }
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, ForkError> {
        match self {
            Self::Empty => Ok(Bytecode::default()),
            Self::Rpc(rpc) => rpc.code_by_hash(code_hash),
        }
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, ForkError> {
        match self {
            Self::Empty => Ok(U256::ZERO),
            Self::Rpc(rpc) => rpc.storage(address, index),
        }
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, ForkError> {
        match self {
            // What revm's `EmptyDB` answers, so the in-memory world is unchanged.
            Self::Empty => Ok(keccak256(number.to_string().as_bytes())),
            Self::Rpc(rpc) => rpc.block_hash(number),
        }
    }
}

/// Why forked state could not be read. Only a [`Backend::Rpc`] produces it.
///
/// It is [`Backend`]'s `DatabaseRef::Error` (hence revm's `DBErrorMarker`). During a transaction
/// it reaches the caller as [`crate::Error::Fork`]: the transaction was not simulated, and
/// nothing about its outcome may be concluded.
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    /// The RPC URL does not parse.
    #[error("invalid RPC URL `{url}`: {reason}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// Why it does not parse.
        reason: String,
    },
    /// The HTTP(S) client could not be built (for example: no CA certificates on the machine).
    #[error("cannot build the HTTP client (are the system CA certificates installed?): {0}")]
    HttpClient(String),
    /// The runtime that drives the RPC requests could not start.
    #[error("cannot start the fork's RPC runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// A JSON-RPC request failed (node unreachable, error response, malformed answer).
    #[error("{method} failed: {source}")]
    Rpc {
        /// The JSON-RPC method.
        method: &'static str,
        /// The transport's error.
        #[source]
        source: alloy::transports::TransportError,
    },
    /// A JSON-RPC request got no answer in time.
    #[error("{method} timed out after {after:?}")]
    Timeout {
        /// The JSON-RPC method.
        method: &'static str,
        /// How long it waited.
        after: Duration,
    },
    /// The node does not have the block to fork from (or to read a hash of).
    #[error("the node has no block {0}")]
    BlockNotFound(String),
    /// revm asked for code by a hash no account loaded from the node has.
    #[error("no code with hash {0} was loaded from the node")]
    UnknownCode(B256),
}

impl DBErrorMarker for ForkError {}
