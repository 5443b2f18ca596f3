//! A real Ethereum node for PACE, over JSON-RPC with alloy: an `Anvil` harness (feature
//! `test-utils`, so not linked here) that starts a local node on a free loopback port with
//! alloy's node bindings (and stops it when dropped), and a [`NodeClient`] that deploys,
//! calls, simulates with `eth_call`, and sends transactions whose outcome it reports only from
//! receipts.
//!
//! What it must never do (execution-fidelity invariants 3 and 4): claim success without a
//! receipt with status 1, or claim failure for a transaction that may still land. After a
//! broadcast every loss of information is [`TxOutcome::Uncertain`], carrying the transaction
//! hash (computed locally, before the broadcast); an `Err` from a sending method means
//! nothing was broadcast. Nothing is ever re-sent on its own.
//!
//! ```no_run
//! use alloy_primitives::{Bytes, U256};
//! use pace_node::{Anvil, NodeClient, TxOutcome};
//!
//! # async fn demo() -> pace_node::Result<()> {
//! let anvil = Anvil::spawn()?;
//! let client = NodeClient::connect(anvil.url(), Anvil::dev_signer(0)).await?;
//! let submission = client.send(Anvil::dev_address(1), U256::from(1), Bytes::new()).await?;
//! match client.wait(&submission).await {
//!     TxOutcome::Executed { gas_used, .. } => assert_eq!(gas_used, 21_000),
//!     TxOutcome::Reverted { .. } => unreachable!("a plain transfer does not revert"),
//!     TxOutcome::Uncertain { tx_hash, reason } => {
//!         eprintln!("{tx_hash:?} may still land: {reason}; do not resend")
//!     }
//! }
//! # Ok(())
//! # }
//! ```

#[cfg(feature = "test-utils")]
mod anvil;
mod client;
mod error;
mod outcome;
#[cfg(feature = "test-utils")]
mod proxy;

#[cfg(feature = "test-utils")]
pub use anvil::{
    Anvil, AnvilBuilder, DEFAULT_CHAIN_ID, DEV_ADDRESSES, DEV_KEYS, DEV_MNEMONIC, STARTUP_TIMEOUT,
};
pub use client::{
    BlockInfo, DEFAULT_POLL_INTERVAL, DEFAULT_RECEIPT_TIMEOUT, DEFAULT_RPC_TIMEOUT, NodeClient,
    REPLACEMENT_BUMP_BPS,
};
pub use error::{ANVIL_ENV, Error, Result};
pub use outcome::{CallOutcome, Submission, Tx, TxOutcome, Uncertainty};
#[cfg(feature = "test-utils")]
pub use proxy::{DEFAULT_PROXY_LATENCY, LatencyProxy, ProxyStats};
