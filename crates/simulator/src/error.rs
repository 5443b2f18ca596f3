//! The one error type of the simulator.

use core::convert::Infallible;
use pace_evm::revm::context::result::EVMError;

/// Why an intent could not be simulated at all. A reverting intent is not an error: it gives a
/// report with `success: false`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The intent breaks a structural rule (e.g. it has no calls).
    #[error("invalid intent: {0}")]
    Intent(#[from] pace_types::Error),
    /// The intent is for another chain than the world simulated.
    #[error("the intent is for chain {intent}, the simulated world is chain {world}")]
    ChainMismatch {
        /// The intent's chain id.
        intent: u64,
        /// The world's chain id.
        world: u64,
    },
    /// revm failed for a reason that is not about the transaction (block header, database,
    /// internal error). Transactions revm refuses (e.g. the account cannot pay the value) are
    /// reported as a failed simulation instead.
    #[error("EVM error: {0}")]
    Evm(#[from] EVMError<Infallible>),
    /// The world is forked from a node that could not answer a read: nothing about the
    /// intent's outcome may be concluded.
    #[error("forked state unavailable: {0}")]
    Fork(#[from] pace_evm::ForkError),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
