//! The one error type of the simulator.

use pace_evm::{ForkError, revm::context::result::EVMError};

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
    /// revm failed for a reason that is not about the transaction (block header, internal
    /// error). Transactions revm refuses (e.g. the account cannot pay the value) are reported
    /// as a failed simulation instead.
    ///
    /// Never `EVMError::Database`: converting one gives [`Error::Fork`].
    #[error("EVM error: {0}")]
    Evm(EVMError<ForkError>),
    /// The world is forked from a node that could not answer a read: nothing about the
    /// intent's outcome may be concluded.
    #[error("forked state unavailable: {0}")]
    Fork(#[from] ForkError),
}

impl From<EVMError<ForkError>> for Error {
    /// A failed read of the forked state is [`Error::Fork`]; anything else revm reports is
    /// [`Error::Evm`].
    fn from(error: EVMError<ForkError>) -> Self {
        match error {
            EVMError::Database(e) => Self::Fork(e),
            other => Self::Evm(other),
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
