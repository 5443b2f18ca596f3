//! [`Backend`]: where the state the in-memory cache has not seen yet comes from.

use crate::fork::RpcBackend;
use alloy_primitives::{Address, B256, U256, keccak256};
use core::convert::Infallible;
use revm::{DatabaseRef, bytecode::Bytecode, state::AccountInfo};
use std::{
    cell::{Cell, RefCell},
    panic::{self, AssertUnwindSafe},
    time::Duration,
};

/// The database under [`crate::EvmDb`]'s cache: nothing (an empty world) or a node's state at a
/// pinned block.
///
/// Reads that miss the cache fall through to it; writes never reach it. A forked world therefore
/// starts as the node's state and diverges locally; the node is never written to.
///
/// # Failures
///
/// Its `DatabaseRef::Error` is `Infallible`, like revm's `EmptyDB` it replaces, so code written
/// against [`crate::EvmDb`] keeps compiling. A node that cannot answer is never papered over
/// with a made-up value: the read unwinds instead. [`crate::InProcessEvm`]'s transactions,
/// simulations and views catch that and return [`crate::Error::Fork`], its `try_` readers return
/// the [`ForkError`], and its plain readers and setters panic with it. Code that runs its own
/// revm over a forked [`crate::EvmDb`] wraps the run in [`catch_fork_error`] to get the error,
/// or else sees a panic naming the failed request.
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
    type Error = Infallible;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Infallible> {
        Ok(match self {
            Self::Empty => None,
            Self::Rpc(rpc) => rpc.account(address).unwrap_or_else(|e| fail(e)),
        })
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Infallible> {
        Ok(match self {
            Self::Empty => Bytecode::default(),
            Self::Rpc(rpc) => rpc.code_by_hash(code_hash).unwrap_or_else(|e| fail(e)),
        })
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Infallible> {
        Ok(match self {
            Self::Empty => U256::ZERO,
            Self::Rpc(rpc) => rpc.storage(address, index).unwrap_or_else(|e| fail(e)),
        })
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Infallible> {
        Ok(match self {
            // What revm's `EmptyDB` answers, so the in-memory world is unchanged.
            Self::Empty => keccak256(number.to_string().as_bytes()),
            Self::Rpc(rpc) => rpc.block_hash(number).unwrap_or_else(|e| fail(e)),
        })
    }
}

thread_local! {
    /// How many [`catch_fork_error`] scopes the current thread is in.
    static CATCHING: Cell<usize> = const { Cell::new(0) };
    /// The failure a read inside such a scope unwound with.
    static FAILURE: RefCell<Option<ForkError>> = const { RefCell::new(None) };
}

/// Runs `f`, which may read forked state through revm's `DatabaseRef` (whose error type is
/// `Infallible`), and returns the [`ForkError`] of the first read the node could not answer
/// instead of panicking. Any other panic in `f` goes on unwinding.
///
/// State `f` had half-built when the read failed is left as it was (the failed read itself
/// stored nothing); discard what `f` computed.
pub fn catch_fork_error<T>(f: impl FnOnce() -> T) -> Result<T, ForkError> {
    struct Scope;
    impl Drop for Scope {
        fn drop(&mut self) {
            CATCHING.set(CATCHING.get() - 1);
        }
    }
    CATCHING.set(CATCHING.get() + 1);
    let scope = Scope;
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    drop(scope);
    match result {
        Ok(value) => Ok(value),
        Err(payload) => match FAILURE.take() {
            Some(error) => Err(error),
            None => panic::resume_unwind(payload),
        },
    }
}

/// A forked read failed: unwind to the enclosing [`catch_fork_error`] quietly, or panic with
/// the reason when there is none.
fn fail(error: ForkError) -> ! {
    if CATCHING.get() > 0 {
        FAILURE.set(Some(error));
        // `resume_unwind` skips the panic hook: the failure is an error for the catcher, not a
        // crash to print.
        panic::resume_unwind(Box::new("reading the forked state failed"))
    }
    panic!(
        "reading the forked state failed: {error} (wrap revm runs over a forked EvmDb in \
         pace_evm::catch_fork_error to get this as an error)"
    )
}

/// Why forked state could not be read. Only a [`Backend::Rpc`] produces it.
///
/// During a transaction it reaches the caller as [`crate::Error::Fork`]: the transaction was
/// not simulated, and nothing about its outcome may be concluded.
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
