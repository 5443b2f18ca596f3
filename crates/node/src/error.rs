//! The one error type of this crate.
//!
//! For the writing methods of [`crate::NodeClient`] an `Err` has one meaning: **nothing was
//! broadcast**. Whatever happens after a signed transaction may have reached the node is a
//! [`crate::TxOutcome`] instead, never an error.

use crate::outcome::TxOutcome;
use alloy::transports::TransportError;
use alloy_primitives::{B256, Bytes};
use std::{path::PathBuf, time::Duration};

/// Environment variable naming the anvil binary to run instead of the npm one.
pub const ANVIL_ENV: &str = "PACE_ANVIL";

/// Why a node could not be started or asked, or a transaction not sent.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No anvil binary where the npm toolchain installs it.
    #[error(
        "anvil not found (looked for {}): run `npm ci` in the workspace root, or set {}",
        .searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        ANVIL_ENV
    )]
    AnvilNotFound {
        /// The paths tried.
        searched: Vec<PathBuf>,
    },
    /// The anvil process could not be started.
    #[error("cannot start {}: {source}", .path.display())]
    AnvilSpawn {
        /// The binary.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// anvil started but did not report that it listens in time (or exited first).
    #[error("anvil did not come up: {0}")]
    AnvilStartup(String),
    /// The latency proxy could not start (no runtime, no loopback port).
    #[error("cannot start the latency proxy: {0}")]
    Proxy(String),
    /// The HTTP(S) client could not be built (for example: no CA certificates on the machine).
    #[error("cannot build the HTTP client (are the system CA certificates installed?): {0}")]
    HttpClient(String),
    /// The RPC URL does not parse.
    #[error("invalid RPC URL `{url}`: {reason}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// Why it does not parse.
        reason: String,
    },
    /// A JSON-RPC request failed: node unreachable, or it answered with an error (a reverting
    /// `eth_estimateGas` included: see [`Error::revert_data`]). For a write, this happened
    /// before the broadcast: nothing was sent.
    #[error("{method} failed: {source}")]
    Rpc {
        /// The JSON-RPC method.
        method: &'static str,
        /// The transport's error.
        #[source]
        source: TransportError,
    },
    /// A JSON-RPC request got no answer in time. For a write, this happened before the
    /// broadcast: nothing was sent.
    #[error("{method} timed out after {after:?}")]
    Timeout {
        /// The JSON-RPC method.
        method: &'static str,
        /// How long it waited.
        after: Duration,
    },
    /// The transaction could not be built or signed (nothing was sent).
    #[error("cannot build or sign the transaction: {0}")]
    Sign(String),
    /// The node answered the broadcast with an error and does not know the transaction: it
    /// was not accepted, and cannot land.
    #[error("the node rejected transaction {tx_hash}: {source}")]
    Rejected {
        /// The hash of the signed transaction.
        tx_hash: B256,
        /// The node's answer.
        #[source]
        source: TransportError,
    },
    /// A step the caller runs between signing and broadcasting (recording the hash, see
    /// [`crate::NodeClient::submit_recorded`]) failed: nothing was broadcast.
    #[error("not broadcast: {0}")]
    NotBroadcast(String),
    /// A transaction cannot be replaced (unknown, already mined, not this account's, or the fee
    /// cap leaves no room for the bump): nothing was broadcast.
    #[error("cannot replace the transaction: {0}")]
    NotReplaceable(String),
    /// An `eth_call` reverted.
    #[error("eth_call reverted with data {data}")]
    CallReverted {
        /// The revert data.
        data: Bytes,
    },
    /// An `eth_call` succeeded but its return data does not decode as the declared type.
    #[error("cannot decode the return data of `{signature}`: {source}")]
    Decode {
        /// The Solidity signature of the call.
        signature: &'static str,
        /// The decoding error.
        #[source]
        source: alloy_sol_types::Error,
    },
    /// A deployment was sent but did not execute: it reverted, or its outcome is uncertain.
    /// Unlike the other variants this one comes after a broadcast; the outcome says what is
    /// known.
    #[error("deployment did not execute: {0}")]
    Deploy(Box<TxOutcome>),
}

impl Error {
    /// The revert data of a reverted `eth_call` or `eth_estimateGas`, if this is one.
    pub fn revert_data(&self) -> Option<Bytes> {
        match self {
            Self::CallReverted { data } => Some(data.clone()),
            Self::Rpc { source, .. } => source.as_error_resp()?.as_revert_data(),
            _ => None,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
