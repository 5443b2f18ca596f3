//! `pace serve`: one process holds the verifier and relayer keys and serves agents the PACE
//! pipeline over MCP and an HTTP JSON API.
//!
//! Operations: `propose(intent)` (simulate + verify on the latest state, nothing signed: the
//! decision and a preview), `confirm(proposal_id)` (re-check on fresh state, sign only after
//! the confirmation is recorded, submit, report), `status(id)` and `history`. It implements
//! the seven invariants of execution fidelity (arXiv 2608.00783, section 4):
//! confirm gate (I1, [`Service::confirm`]), pre-state sufficiency (I2), post-state
//! observability and no phantom success (I3, I4: an outcome is `executed` only from the
//! transaction's own success), scoped delegation (I5, [`auth`]), plan-level retry safety (I6)
//! and the idempotent receiver (I7, [`Service::answer`]).
//!
//! PDRs are built and submitted by `pace_pipeline` only; this crate never signs by itself.
//! Every decision and refusal lands in the hash-chained [`audit`] log of the [`store`].

pub mod api;
mod approval;
pub mod args;
pub mod audit;
pub mod auth;
mod blocking;
pub mod chain;
mod confirm;
pub mod edge;
pub mod encode;
mod error;
mod halt;
pub mod http;
pub mod identity;
pub mod keys;
pub mod lanes;
pub mod listener;
pub mod mcp;
pub mod metrics;
pub mod ops;
mod preflight;
pub mod preview;
pub mod quote;
pub mod reads;
mod restart;
pub mod schema;
mod service;
pub mod store;
pub mod tenant;
pub mod tls;

pub use error::{Error, Result};
pub use service::{
    Confirmed, ProposeOptions, Proposed, Service, ServiceConfig, State, Status, StatusState,
    error_response,
};
