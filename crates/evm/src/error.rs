//! The one error type of this crate, and [`Revert`], the data of a reverted call.

use crate::backend::ForkError;
use alloy_primitives::Bytes;
use alloy_sol_types::SolInterface;
use revm::context::result::{EVMError, HaltReason};
use std::fmt;

/// Why a transaction produced no usable result.
///
/// [`crate::InProcessEvm::call`] reports reverts and halts as data in an
/// [`crate::Outcome`]; only the helpers that promise a value ([`crate::InProcessEvm::deploy`],
/// [`crate::InProcessEvm::view`], the `*_sol` helpers, [`crate::Outcome::into_result`]) turn them
/// into [`Error::Reverted`] and [`Error::Halted`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// revm refused the transaction before executing it (invalid nonce, insufficient balance
    /// for the value sent, gas limit above the cap, ...).
    ///
    /// Never `EVMError::Database`: converting one gives [`Error::Fork`].
    #[error("EVM rejected the transaction: {0}")]
    Evm(EVMError<ForkError>),
    /// The call or deployment reverted.
    #[error("reverted: {0}")]
    Reverted(Revert),
    /// Execution halted exceptionally (out of gas, invalid opcode, stack overflow, ...).
    #[error("halted: {reason:?} after {gas_used} gas")]
    Halted {
        /// revm's reason.
        reason: HaltReason,
        /// Gas charged to the transaction.
        gas_used: u64,
    },
    /// The world is forked from a node ([`crate::InProcessEvm::fork`]) and the node could not
    /// answer a read the transaction needed: it was not simulated, and nothing about its
    /// outcome may be concluded.
    #[error("forked state unavailable: {0}")]
    Fork(#[from] ForkError),
    /// The call succeeded but its return data does not decode as the declared return type.
    #[error("cannot decode the return data of `{signature}`: {source}")]
    Decode {
        /// The Solidity signature of the call.
        signature: &'static str,
        /// The decoding error.
        #[source]
        source: alloy_sol_types::Error,
    },
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

impl Error {
    /// The revert, if this is one.
    pub fn revert(&self) -> Option<&Revert> {
        match self {
            Self::Reverted(revert) => Some(revert),
            _ => None,
        }
    }

    /// The revert data decoded as one of the custom errors of `E` (a `sol!`-generated
    /// `XErrors` enum), if this is a revert with such an error.
    pub fn decode_revert<E: SolInterface>(&self) -> Option<E> {
        self.revert().and_then(Revert::decode)
    }
}

/// A reverted call or deployment: its revert data and the gas it used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Revert {
    /// The revert data: a custom error, `Error(string)`, `Panic(uint256)` or empty.
    pub output: Bytes,
    /// Gas charged to the transaction.
    pub gas_used: u64,
}

impl Revert {
    /// The revert data decoded as one of the custom errors of `E`, e.g.
    /// `revert.decode::<PaceAccount::PaceAccountErrors>()`.
    pub fn decode<E: SolInterface>(&self) -> Option<E> {
        E::abi_decode(&self.output).ok()
    }

    /// The message of an `Error(string)` or `Panic(uint256)` revert (also of a revert whose data
    /// is plain UTF-8), if it is one.
    pub fn reason(&self) -> Option<String> {
        if self.output.is_empty() {
            return None;
        }
        alloy_sol_types::decode_revert_reason(&self.output)
    }
}

impl fmt::Display for Revert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason() {
            Some(reason) => write!(f, "{reason}")?,
            None if self.output.is_empty() => f.write_str("without data")?,
            None => write!(f, "data {}", self.output)?,
        }
        write!(f, " ({} gas)", self.gas_used)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::{Revert as SolRevert, SolError};

    #[test]
    fn revert_display_decodes_error_strings() {
        let with_reason = Revert {
            output: SolRevert::from("no way").abi_encode().into(),
            gas_used: 30_000,
        };
        assert_eq!(with_reason.reason().as_deref(), Some("revert: no way"));
        assert_eq!(with_reason.to_string(), "revert: no way (30000 gas)");
        let custom = Revert {
            output: Bytes::from_static(&[0xde, 0xad, 0xbe, 0xef]),
            gas_used: 1,
        };
        assert_eq!(custom.to_string(), "data 0xdeadbeef (1 gas)");
        let empty = Revert {
            output: Bytes::new(),
            gas_used: 2,
        };
        assert_eq!(empty.to_string(), "without data (2 gas)");
    }
}
