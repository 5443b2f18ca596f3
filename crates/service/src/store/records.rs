//! The rows of the store.

use crate::preview::Preview;
use alloy_primitives::{Address, B256};
use pace_pipeline::ExecutionResult;
use pace_pipeline::SignedPdr;
use pace_types::Intent;
use serde::{Deserialize, Serialize};

/// Where a proposal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalState {
    /// Previewed, approved by the verifier, awaiting confirmation.
    Proposed,
    /// Previewed and rejected by the verifier: cannot be confirmed.
    Rejected,
    /// Confirmation recorded; not signed yet.
    Confirmed,
    /// Signed, not (known to be) submitted: expires at the PDR's `validUntil` unless sent.
    Signed,
    /// Sent; no outcome yet.
    Submitted,
    /// The transaction succeeded.
    Executed,
    /// The transaction reverted (decoded error in the outcome).
    Reverted,
    /// It may have landed; reconcile before retrying.
    Uncertain,
    /// Expired unexecuted.
    Expired,
}

impl ProposalState {
    /// The state's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Proposed => "proposed",
            Self::Rejected => "rejected",
            Self::Confirmed => "confirmed",
            Self::Signed => "signed",
            Self::Submitted => "submitted",
            Self::Executed => "executed",
            Self::Reverted => "reverted",
            Self::Uncertain => "uncertain",
            Self::Expired => "expired",
        }
    }

    /// Parses a state name.
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Proposed,
            Self::Rejected,
            Self::Confirmed,
            Self::Signed,
            Self::Submitted,
            Self::Executed,
            Self::Reverted,
            Self::Uncertain,
            Self::Expired,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }

    /// Whether a transaction may be in flight or landed without a known outcome (I6 blocks an
    /// equal intent meanwhile).
    pub fn is_unreconciled(self) -> bool {
        matches!(self, Self::Signed | Self::Submitted | Self::Uncertain)
    }
}

/// One transition proposed by a caller, its preview and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    /// Its id.
    pub id: String,
    /// The API token id that proposed it.
    pub caller: String,
    /// The intent.
    pub intent: Intent,
    /// The intent's content hash.
    pub intent_hash: B256,
    /// What the caller was shown.
    pub preview: Preview,
    /// Where it stands.
    pub state: ProposalState,
    /// Unix time of the proposal.
    pub created_at: u64,
    /// Unix time after which it can no longer be confirmed.
    pub expires_at: u64,
    /// The signed PDR, once signed.
    pub pdr: Option<SignedPdr>,
    /// What the chain did, once known.
    pub outcome: Option<ExecutionResult>,
}

/// How a confirmation was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmMode {
    /// The caller confirmed the rendered preview (`confirm: true`).
    Attended,
    /// Admitted by the caller's `unattended` scope (I5) without a per-preview confirmation.
    Unattended,
}

/// A recorded confirmation of a rendered preview (I1's evidence).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The proposal.
    pub proposal_id: String,
    /// Who confirmed.
    pub actor: String,
    /// How.
    pub mode: ConfirmMode,
    /// The hash of the preview that was confirmed.
    pub preview_hash: B256,
    /// Unix time.
    pub at: u64,
}

/// Whether a request's idempotency key is new, replayed or in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdemBegin {
    /// First delivery: the key is claimed; handle it and record the response.
    Fresh,
    /// A duplicate within the window: replay this response.
    Replay(StoredResponse),
    /// The first delivery is still being handled.
    InFlight,
}

/// A recorded response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResponse {
    /// HTTP status.
    pub status: u16,
    /// JSON body.
    pub body: String,
}

/// The state of a nonce reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReservationState {
    /// Reserved, nothing signed yet.
    Reserved,
    /// A PDR was signed for it.
    Signed,
    /// The chain shows it dead (expired unused, or never signed): free to reserve again.
    Dead,
}

impl ReservationState {
    /// The state's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reserved => "reserved",
            Self::Signed => "signed",
            Self::Dead => "dead",
        }
    }

    /// Parses a state name.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Reserved, Self::Signed, Self::Dead]
            .into_iter()
            .find(|st| st.as_str() == s)
    }
}

/// A durable claim on one sequence of one nonce lane, taken before a PDR is signed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reservation {
    /// The account.
    pub account: Address,
    /// The nonce lane (PDR `key`).
    pub lane: u32,
    /// The sequence.
    pub sequence: u64,
    /// The proposal it is for.
    pub proposal_id: String,
    /// The signed PDR's digest, once signed.
    pub digest: Option<B256>,
    /// The signed PDR's `validUntil`, once signed.
    pub valid_until: Option<u64>,
    /// Its state.
    pub state: ReservationState,
}
