//! JSON-lines trace of every model trial.

use crate::{
    error::{Error, Result},
    parse::ParsedAnswer,
};
use serde::{Deserialize, Serialize};
use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
    sync::Mutex,
};

/// One trial: what was asked, what came back, what it was read as, and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceEntry {
    /// Wall-clock time the request was sent, in unix milliseconds.
    pub unix_ms: u128,
    /// The caller's task identifier.
    pub task_id: String,
    /// The model name sent.
    pub model: String,
    /// The endpoint's base URL.
    pub base_url: String,
    /// The temperature sent.
    pub temperature: f64,
    /// The chat messages sent (system, then user).
    pub prompt: Vec<crate::Message>,
    /// The raw HTTP response body, if one arrived.
    pub raw_response: Option<String>,
    /// The parsed answer, if the response had content.
    pub parsed: Option<ParsedAnswer>,
    /// Time from sending the request to having the answer (or the error).
    pub latency_ms: f64,
    /// The error, if the trial failed.
    pub error: Option<String>,
}

/// An append-only JSON-lines file of [`TraceEntry`]s; one line per trial, flushed at once.
#[derive(Debug)]
pub struct TraceLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl TraceLog {
    /// Opens `path` for appending, creating it (not its directories) if needed.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|source| Error::Trace {
                path: path.display().to_string(),
                source,
            })?;
        Ok(Self {
            path,
            file: Mutex::new(file),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `entry` as one line.
    pub fn record(&self, entry: &TraceEntry) -> Result<()> {
        let mut line = serde_json::to_vec(entry).unwrap_or_else(|e| {
            format!("{{\"error\":\"unserialisable trace entry: {e}\"}}").into_bytes()
        });
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(&line)
            .and_then(|()| file.flush())
            .map_err(|source| Error::Trace {
                path: self.path.display().to_string(),
                source,
            })
    }
}
