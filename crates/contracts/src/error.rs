//! The one error type of this crate.

use std::path::PathBuf;

/// Why the contracts could not be compiled, found or read.
///
/// `Debug` prints the same text as `Display`, so that `artifacts().unwrap()` in a test shows
/// compiler diagnostics line by line instead of as one escaped string.
#[derive(thiserror::Error)]
pub enum Error {
    /// No directory with `foundry.toml` and `contracts/` was found.
    #[error(
        "workspace root not found: no directory with foundry.toml and contracts/ (searched: \
         {searched}); set PACE_ROOT to the workspace root"
    )]
    RootNotFound {
        /// The places that were searched, `; `-separated.
        searched: String,
    },
    /// `node_modules/` (solcjs, OpenZeppelin, Uniswap) is not installed.
    #[error("node_modules missing: {0} does not exist; run `npm ci` in the workspace root")]
    NodeModulesMissing(PathBuf),
    /// A file or directory could not be read, written or locked.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done (`"reading"`, `"locking"`, ...).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// foundry-compilers failed before or around running solc (project setup, solc process,
    /// cache or artifact I/O).
    #[error("foundry-compilers: {0}")]
    Compiler(#[from] foundry_compilers::error::SolcError),
    /// solc reported errors; the message lists them with `file:line:column`.
    #[error("Solidity compilation failed:\n{0}")]
    Compilation(String),
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
    /// The bytecode of a contract references external libraries that would need linking.
    #[error(
        "contract `{0}` needs library linking, which pace-contracts does not do; make the library functions internal"
    )]
    Unlinked(String),
    /// A JSON artifact (e.g. from npm) does not have the expected shape.
    #[error("artifact {path}: {message}")]
    BadArtifact {
        /// The artifact file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// An unknown name was passed to [`crate::uniswap_v2`].
    #[error("unknown Uniswap V2 artifact `{name}`; known: {known:?}")]
    UnknownUniswapArtifact {
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

impl Error {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
