//! An OpenAI-compatible LLM agent adapter for PACE (paper section 5.5).
//!
//! [`LlmAgent::propose`] sends a task to a chat-completions endpoint
//! (`POST {base_url}/chat/completions`) and parses the answer into a [`ModelDecision`] and,
//! optionally, a proposed [`Intent`](pace_types::Intent). Every trial (prompt, raw response,
//! parsed result, latency, error) is appended to a JSON-lines [`TraceLog`].
//!
//! The model is untrusted: its answer never decides anything on its own. [`guarded_decision`]
//! always runs the deterministic [`pace_verifier::verify`] on the intent after the model, and
//! only an intent both approve may execute. The verifier never sees the model's output.
//!
//! HTTP is reqwest's blocking client, `http://` or `https://` through rustls (the aws-lc-rs
//! provider, the one alloy's RPC transport uses too). Certificates are checked against the
//! platform's roots (on Linux the system store, or `$SSL_CERT_FILE` / `$SSL_CERT_DIR`) plus
//! [`LlmConfig::ca_cert`]; an untrusted certificate is an [`Error::Tls`]. No proxy is taken from
//! the environment and no redirect is followed. Every wait is bounded by
//! [`LlmConfig::timeout`]. The API key is sent only in the `Authorization` header and is never
//! written to a trace.

mod agent;
mod error;
mod http;
mod parse;
mod trace;

pub use agent::{
    LlmAgent, LlmConfig, LlmProposal, Message, SYSTEM_PROMPT, TaskContext, guarded_decision,
};
pub use error::{Error, Result};
pub use parse::{ModelDecision, ParsedAnswer, parse_answer};
pub use trace::{TraceEntry, TraceLog};

/// The environment variable [`LlmConfig::from_env`] reads the API key from.
pub const API_KEY_ENV: &str = "PACE_LLM_API_KEY";
