//! Errors of the signer.

/// What can go wrong while building or signing a PDR.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The key bytes are not a valid secp256k1 secret key.
    #[error("invalid verifier key: {0}")]
    InvalidKey(String),
    /// The intent has no call to execute.
    #[error("intent has no call to execute")]
    NoCalls,
    /// The validity window is empty or does not fit the on-chain `uint40` timestamps.
    #[error(
        "invalid validity window: valid_after {valid_after} > valid_until {valid_until} or beyond uint40"
    )]
    InvalidWindow {
        /// First valid timestamp.
        valid_after: u64,
        /// Last valid timestamp.
        valid_until: u64,
    },
    /// A bound the account would refuse: a kind it does not know, or a holder wider than an
    /// address.
    #[error("bound {index} has a kind the account does not know or a holder that is no address")]
    InvalidBound {
        /// Its position in the PDR's bounds.
        index: usize,
    },
    /// A read the approval relied on had no answer after the calls in the simulation: a
    /// post-condition on it could not be signed.
    #[error("relied read {index} has no simulated answer after the calls: nothing to re-check")]
    UnreadableFact {
        /// Its position in the approval's relied reads.
        index: usize,
    },
    /// Signing failed (practically unreachable with a valid key).
    #[error("signing failed: {0}")]
    Signing(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
