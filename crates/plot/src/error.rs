//! Why a chart could not be drawn or written.

/// Errors from drawing or writing a chart.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The data cannot be drawn (lengths disagree, nothing to draw, NaN or infinite values, a
    /// value a logarithmic axis cannot show).
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
    /// The drawing library refused to draw.
    #[error("drawing: {0}")]
    Draw(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Maps a `plotters` drawing error into [`Error::Draw`].
pub(crate) fn draw<E: std::fmt::Display>(e: E) -> Error {
    Error::Draw(e.to_string())
}
