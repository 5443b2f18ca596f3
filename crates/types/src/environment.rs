//! What an execution read of the transaction and block it ran in ([`EnvRead`]), outside the
//! account's own code: the simulator records it from the trace, and the pipeline runs the
//! signed transaction again under another sender, block producer, fees and gas, or in a later
//! block, only when the execution read something those change.
//!
//! The EVM is deterministic: an execution that reads none of what a second run changes runs the
//! same in it, step for step. What a second run under another lander changes: `tx.origin`,
//! the gas price and base fee, the block producer, `prevrandao`, the gas the transaction has
//! (seen through `GAS` other than as a call's gas argument, or through a frame that ran out of
//! gas) and the sender's balance (which pays the gas up front). What a later block changes: the
//! block's number, time, hashes and fees, and with the fees the sender's balance.

use serde::{Deserialize, Serialize};

/// One kind of environment read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvRead {
    /// `ORIGIN`.
    Origin,
    /// `GASPRICE`.
    GasPrice,
    /// `COINBASE`, or a balance or code read of the block producer.
    Coinbase,
    /// `PREVRANDAO`.
    Prevrandao,
    /// `GASLIMIT`.
    GasLimit,
    /// `BASEFEE`.
    BaseFee,
    /// `BLOBHASH` or `BLOBBASEFEE`.
    Blob,
    /// `GAS` other than as the gas argument of the call that follows it.
    Gas,
    /// A frame that ran out of gas.
    OutOfGas,
    /// A balance or code read of the transaction's sender.
    SenderBalance,
    /// `TIMESTAMP`.
    Timestamp,
    /// `NUMBER`.
    Number,
    /// `BLOCKHASH`.
    BlockHash,
}

impl EnvRead {
    /// Every kind, in order.
    pub const ALL: [Self; 13] = [
        Self::Origin,
        Self::GasPrice,
        Self::Coinbase,
        Self::Prevrandao,
        Self::GasLimit,
        Self::BaseFee,
        Self::Blob,
        Self::Gas,
        Self::OutOfGas,
        Self::SenderBalance,
        Self::Timestamp,
        Self::Number,
        Self::BlockHash,
    ];

    /// Whether it can differ with who lands the transaction: its sender, the block's producer,
    /// the fees, the gas it is given.
    pub const fn depends_on_lander(self) -> bool {
        !matches!(self, Self::Timestamp | Self::Number | Self::BlockHash)
    }

    /// Whether it can differ with when the transaction lands.
    pub const fn depends_on_time(self) -> bool {
        matches!(
            self,
            Self::Timestamp
                | Self::Number
                | Self::BlockHash
                | Self::BaseFee
                | Self::GasPrice
                | Self::Blob
                | Self::SenderBalance
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_read_depends_on_the_lander_or_on_time() {
        for r in EnvRead::ALL {
            assert!(r.depends_on_lander() || r.depends_on_time(), "{r:?}");
        }
        assert!(!EnvRead::Timestamp.depends_on_lander());
        assert!(!EnvRead::Origin.depends_on_time());
    }
}
