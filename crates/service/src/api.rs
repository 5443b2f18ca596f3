//! The operations as transport-neutral requests: JSON in, status and JSON out. The HTTP API
//! and the MCP tools both call these, so both have the same checks and the same answers.

use crate::{Error, Result, Service, auth::Caller, error_response};
use pace_types::Intent;
use serde::{Deserialize, Serialize};

/// `propose`'s request body.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeRequest {
    /// The intent (the `Intent` JSON of `pace verify`).
    pub intent: serde_json::Value,
    /// Confirm at once without a preview round trip (requires the `unattended` scope).
    #[serde(default)]
    pub execute: bool,
}

/// `confirm`'s request body.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmRequest {
    /// The proposal to confirm.
    pub proposal_id: String,
    /// Must be the JSON boolean `true`; a string such as `"false"` (or `"true"`) is refused.
    pub confirm: bool,
}

/// `status`'s request.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusRequest {
    /// The proposal.
    pub proposal_id: String,
}

/// `history`'s request.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryRequest {
    /// How many proposals, newest first (default 50).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// An operation of the service, on either transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    /// Simulate and judge an intent; nothing is signed.
    Propose,
    /// Confirm a proposal: fresh re-check, sign, submit.
    Confirm,
    /// A proposal's state.
    Status,
    /// The latest proposals.
    History,
}

impl Operation {
    /// Its name on the wire (and in the idempotency key).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Propose => "propose",
            Self::Confirm => "confirm",
            Self::Status => "status",
            Self::History => "history",
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| Error::BadRequest(e.to_string()))
}

fn intent(value: serde_json::Value) -> Result<Intent> {
    let intent: Intent =
        serde_json::from_value(value).map_err(|e| Error::BadRequest(format!("intent: {e}")))?;
    intent
        .validate()
        .map_err(|e| Error::BadRequest(format!("intent: {e}")))?;
    Ok(intent)
}

fn respond<T: Serialize>(out: Result<T>) -> (u16, String) {
    match out {
        Ok(v) => (
            200,
            serde_json::to_string(&v)
                .unwrap_or_else(|e| error_response(&Error::Store(format!("response: {e}"))).1),
        ),
        Err(e) => error_response(&e),
    }
}

impl Service {
    /// Runs operation `op` for `caller` on the raw request `body`. `propose` and `confirm` go
    /// through the idempotent receiver (I7).
    pub fn handle(&self, caller: &Caller, op: Operation, body: &[u8]) -> (u16, String) {
        match op {
            Operation::Propose => self.idempotent(caller, op.as_str(), body, || {
                respond(
                    parse::<ProposeRequest>(body)
                        .and_then(|r| self.propose(caller, intent(r.intent)?, r.execute)),
                )
            }),
            Operation::Confirm => self.idempotent(caller, op.as_str(), body, || {
                respond(
                    parse::<ConfirmRequest>(body)
                        .and_then(|r| self.confirm(caller, &r.proposal_id, r.confirm)),
                )
            }),
            Operation::Status => respond(
                parse::<StatusRequest>(body).and_then(|r| self.status(caller, &r.proposal_id)),
            ),
            Operation::History => respond(
                parse::<HistoryRequest>(body)
                    .and_then(|r| self.history(caller, r.limit.unwrap_or(50))),
            ),
        }
    }
}
