//! [`Conn`]: one HTTP JSON-RPC connection to a node, driven from synchronous code, counting
//! every round trip and request; and [`RpcStats`], its counts.

use crate::backend::ForkError;
use alloy::{
    rpc::client::RpcClient,
    transports::{
        TransportResult,
        http::reqwest::{self, Url},
    },
};
use std::{
    future::Future,
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc,
    },
    time::Duration,
};
use tokio::runtime::Runtime;

/// What a node connection sent so far: HTTP round trips, the JSON-RPC requests they carried,
/// and how many of those round trips were single reads of state a prefetch did not hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RpcStats {
    /// HTTP round trips (a JSON-RPC batch is one).
    pub round_trips: u64,
    /// JSON-RPC requests (a batch counts its members).
    pub requests: u64,
    /// Round trips made on a cache miss during execution: one account (balance, nonce and
    /// code in one batch), one slot or one block hash. Zero when a prefetch held everything.
    pub misses: u64,
    /// Round trips that asked for the head block (or a block header by number).
    pub head_polls: u64,
}

impl RpcStats {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            round_trips: self.round_trips - earlier.round_trips,
            requests: self.requests - earlier.requests,
            misses: self.misses - earlier.misses,
            head_polls: self.head_polls - earlier.head_polls,
        }
    }
}

/// Which counter a round trip adds to besides the totals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Prefetching: access lists and batched state.
    Prefetch,
    /// A single read on a cache miss.
    Miss,
    /// The chain id or a block header.
    Head,
}

/// One node: its URL, an HTTP client (kept-alive connections), the runtime that drives it and
/// the counters. Shared by every fork of that node.
pub(crate) struct Conn {
    pub(crate) url: String,
    pub(crate) client: RpcClient,
    timeout: Duration,
    runtime: OwnedRuntime,
    round_trips: AtomicU64,
    requests: AtomicU64,
    misses: AtomicU64,
    head_polls: AtomicU64,
}

impl Conn {
    pub(crate) fn open(rpc_url: &str, timeout: Duration) -> Result<Self, ForkError> {
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
        // Built here rather than by alloy's `new_http`, whose `reqwest::Client::new()` panics
        // on a machine without CA certificates: here that is an error.
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| ForkError::HttpClient(e.to_string()))?;
        Ok(Self {
            url: rpc_url.to_owned(),
            client: RpcClient::new_http_with_client(http, url),
            timeout,
            runtime: OwnedRuntime(Some(runtime)),
            round_trips: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            head_polls: AtomicU64::new(0),
        })
    }

    pub(crate) fn stats(&self) -> RpcStats {
        RpcStats {
            round_trips: self.round_trips.load(Ordering::Relaxed),
            requests: self.requests.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            head_polls: self.head_polls.load(Ordering::Relaxed),
        }
    }

    /// Runs one round trip carrying `requests` JSON-RPC requests on the owned runtime, bounded
    /// by the timeout, and waits for it on the calling thread.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        method: &'static str,
        requests: u64,
        purpose: Purpose,
        round_trip: impl Future<Output = TransportResult<T>> + Send + 'static,
    ) -> Result<T, ForkError> {
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        self.requests.fetch_add(requests, Ordering::Relaxed);
        match purpose {
            Purpose::Prefetch => {}
            Purpose::Miss => {
                self.misses.fetch_add(1, Ordering::Relaxed);
            }
            Purpose::Head => {
                self.head_polls.fetch_add(1, Ordering::Relaxed);
            }
        }
        let (tx, rx) = mpsc::sync_channel(1);
        let timeout = self.timeout;
        self.runtime.get().spawn(async move {
            // The receiver only goes away if the caller is gone; nothing to tell then.
            let _ = tx.send(tokio::time::timeout(timeout, round_trip).await);
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
