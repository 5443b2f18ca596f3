//! The one error type of this crate.

use std::path::PathBuf;

/// Why a contract could not be found or read.
///
/// `Debug` prints the same text as `Display`, so that `.unwrap()` in a test shows the message
/// as written instead of as one escaped string.
#[derive(thiserror::Error)]
pub enum Error {
    /// No artifact has this name.
    #[error(
        "no contract named `{0}` in the compiled artifacts (use `Artifacts::ids` to list them)"
    )]
    UnknownContract(String),
    /// Several artifacts have this name and none of them is under `contracts/`.
    #[error("contract name `{name}` is ambiguous, use one of: {candidates:?}")]
    AmbiguousContract {
        /// The name asked for.
        name: String,
        /// The fully qualified ids (`path:Name`) that match.
        candidates: Vec<String>,
    },
    /// An embedded artifact does not have the expected shape (a build of this crate gone
    /// wrong; rebuild it).
    #[error("artifact {path}: {message}")]
    BadArtifact {
        /// The artifact (the npm file it came from, or which embedded set).
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// An unknown name was passed to [`crate::uniswap_v2`] or [`crate::safe_v141`].
    #[error("unknown prebuilt artifact `{name}`; known: {known:?}")]
    UnknownPrebuiltArtifact {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: &'static [&'static str],
    },
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
