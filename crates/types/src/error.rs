//! The crate's error type: why a document could not be loaded.

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Why an intent, policy, report or decision could not be loaded.
///
/// Every message is one line and starts with the field path when there is one, e.g.
/// `calls[0].value: invalid type: integer `5`, expected an amount as a decimal string (line 7, column 16)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The JSON is malformed or does not match the schema.
    #[error("{}{message} (line {line}, column {column})", path_prefix(path))]
    Json {
        /// The path of the offending field (`calls[0].value`), empty for the document root.
        path: String,
        /// What is wrong, without the position.
        message: String,
        /// 1-based line of the error (0 when unknown, e.g. unexpected end of input).
        line: usize,
        /// 1-based column of the error.
        column: usize,
    },
    /// A policy metadata pattern is not a valid regular expression.
    #[error("metadata_patterns[{index}]: invalid regex {pattern:?}: {message}")]
    Pattern {
        /// Index of the pattern in `metadata_patterns`.
        index: usize,
        /// The pattern as written.
        pattern: String,
        /// What the regex compiler said.
        message: String,
    },
    /// A well-formed document breaks a rule serde cannot express.
    #[error("{field}: {message}")]
    Invalid {
        /// The offending field's path.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl Error {
    /// An [`Error::Invalid`] for `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }
}

fn path_prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

/// Makes `text` fit on one line: control characters (newlines included) are escaped.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
