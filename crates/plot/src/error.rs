//! Why a chart could not be drawn or written.

/// Errors from drawing or writing a chart.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The data cannot be drawn (lengths disagree, nothing to draw, NaN or infinite values).
    #[error("invalid chart data: {0}")]
    Data(String),
    /// Writing the file failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// PNG encoding failed.
    #[error("png encoding: {0}")]
    Png(#[from] png::EncodingError),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
