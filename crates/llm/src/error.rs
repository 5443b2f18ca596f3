//! Why a model call failed. A model that answers "approve" to an attack is not an error: that
//! is an outcome, judged by the verifier.

/// Errors talking to the endpoint or reading its answer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The base URL is not `http(s)://host[:port][/path]`.
    #[error("invalid base URL {url:?}: {reason}")]
    BaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The extra root certificate file cannot be read or holds no PEM certificate.
    #[error("CA certificate {path}: {reason}")]
    CaCert {
        /// The file given.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The HTTP client could not be set up (e.g. no root certificates could be loaded).
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
    /// No connection could be made (refused, unreachable, unresolvable).
    #[error("cannot connect to {addr}: {reason}")]
    Connect {
        /// `host:port`.
        addr: String,
        /// The causes, outermost first.
        reason: String,
    },
    /// The TLS handshake failed, e.g. the server's certificate is not trusted.
    #[error(
        "TLS with {addr} failed: {reason} (to trust a private CA, set LlmConfig::ca_cert or \
         SSL_CERT_FILE)"
    )]
    Tls {
        /// `host:port`.
        addr: String,
        /// rustls's error, e.g. `invalid peer certificate: UnknownIssuer`.
        reason: String,
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
    /// The exchange failed at the HTTP level (e.g. a malformed or oversized response).
    #[error("HTTP exchange failed: {0}")]
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
