//! An in-process EVM (revm) over an in-memory world: the default chain PACE deploys to,
//! simulates on and measures gas with, when no external node is configured.
//!
//! [`InProcessEvm`] executes real transactions (intrinsic gas, nonces, refunds) and commits
//! them, answers read-only calls without committing, forks cheaply for what-if runs
//! ([`InProcessEvm::snapshot`], `Clone`), and accepts a revm [`revm::Inspector`] to observe call
//! frames and logs. What a transaction did is data ([`Outcome`]: success, return or revert data,
//! gas, logs); only a transaction the EVM refuses to run is an [`Error`].
//!
//! Deterministic: no clock, no randomness, no I/O. The same sequence of calls gives the same
//! state, outputs and gas.
//!
//! The one exception is opt-in: [`InProcessEvm::fork`] runs on a node's state at a pinned block,
//! read over JSON-RPC on first use ([`RpcBackend`]) and remembered. The pinned state never
//! changes, so a fork is deterministic too once the node has answered; a node that cannot
//! answer is an error ([`ForkError`]), never a made-up value. Writes stay local: a fork never
//! sends anything to the node. Against a remote node the cost is round trips:
//! [`InProcessEvm::prefetch_calls`] and [`InProcessEvm::discover`] fetch what a run will read
//! in a few batched requests, and a [`ForkCache`] shares one block's state between the forks
//! of that block.
//!
//! ```
//! use alloy_primitives::{Address, Bytes, U256};
//! use pace_evm::InProcessEvm;
//!
//! let mut evm = InProcessEvm::new(31337);
//! let alice = Address::repeat_byte(0xa1);
//! let bob = Address::repeat_byte(0xb0);
//! evm.fund(alice, U256::from(10u64.pow(18)))?;
//! let outcome = evm.call(alice, bob, U256::from(1000), Bytes::new())?;
//! assert!(outcome.success);
//! assert_eq!(outcome.gas_used, 21_000);
//! assert_eq!(evm.balance(bob)?, U256::from(1000));
//! # Ok::<(), pace_evm::Error>(())
//! ```

mod backend;
mod cache;
mod error;
mod evm;
mod fork;
mod outcome;
mod position;
mod prefetch;
pub mod recover;
mod rpc;
mod sol;
mod state;

pub use backend::{Backend, ForkError};
pub use cache::{CacheLimits, ForkCache};
pub use error::{Error, Result, Revert};
pub use evm::{
    BLOCK_GAS_LIMIT, DEFAULT_SPEC, DEFAULT_TX_GAS_LIMIT, EvmContext, EvmDb, InProcessEvm, Snapshot,
};
pub use fork::{FORK_RPC_TIMEOUT, ForkBlock, RpcBackend};
pub use outcome::Outcome;
pub use position::AtTransaction;
pub use prefetch::{CallSpec, Discovery, MAX_DISCOVERY_RUNS};
pub use revm;
pub use rpc::RpcStats;
pub use state::StateKeys;
