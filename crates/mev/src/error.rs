//! Invalid inputs.

/// Why the inputs cannot describe a Uniswap V2 sandwich.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A pool reserve is zero: the pool has no price.
    #[error("pool reserve is zero")]
    ZeroReserve,
    /// The fee is 100 % or more.
    #[error("fee of {0} bps is not below 10000")]
    FeeTooHigh(u32),
    /// An amount does not fit Uniswap V2's `uint112` reserves.
    #[error("{0} exceeds 2^112 - 1, the largest Uniswap V2 reserve")]
    TooLarge(&'static str),
    /// The slippage tolerance is above 100 %.
    #[error("slippage of {0} bps is above 10000")]
    SlippageTooHigh(u32),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
