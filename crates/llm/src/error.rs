//! Why a model call failed. A model that answers "approve" to an attack is not an error: that
//! is an outcome, judged by the verifier.

/// Errors talking to the endpoint or reading its answer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The base URL is not `http://host[:port][/path]`.
    #[error("invalid base URL {url:?}: {reason}")]
    BaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// No connection could be made (refused, unreachable, unresolvable).
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// `host:port`.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The endpoint did not answer within the configured timeout.
    #[error("no complete answer from {addr} within {timeout_ms} ms")]
    Timeout {
        /// `host:port`.
        addr: String,
        /// The configured timeout.
        timeout_ms: u128,
    },
    /// Sending or receiving failed mid-way.
    #[error("i/o with {addr}: {source}")]
    Io {
        /// `host:port`.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The response is not well-formed HTTP/1.x.
    #[error("malformed HTTP response: {0}")]
    Http(String),
    /// The endpoint answered with a status other than 200.
    #[error("endpoint answered HTTP {status}: {body}")]
    Status {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The body is not JSON.
    #[error("response body is not JSON ({source}): {body}")]
    Json {
        /// The start of the body.
        body: String,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// The JSON has no `choices[0].message.content` string.
    #[error("response has no choices[0].message.content: {body}")]
    NoContent {
        /// The start of the body.
        body: String,
    },
    /// Writing the trace file failed.
    #[error("trace file {path}: {source}")]
    Trace {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The first 500 characters of `s`, for error messages.
pub(crate) fn excerpt(s: &str) -> String {
    const MAX: usize = 500;
    if s.chars().count() <= MAX {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(MAX).collect();
    out.push_str("...");
    out
}
