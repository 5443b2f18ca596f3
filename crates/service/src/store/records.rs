//! The rows of the store.

use crate::preview::Preview;
use alloy_primitives::{Address, B256, Bytes};
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
    /// Confirmed by its caller, above the caller's approval threshold: waits for a human's
    /// approval before anything is signed.
    AwaitingApproval,
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
            Self::AwaitingApproval => "awaiting_approval",
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
            Self::AwaitingApproval,
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
    /// The tenant (account, policy and lanes) it belongs to.
    #[serde(default = "default_tenant")]
    pub tenant: String,
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

/// The id of the tenant a service configured from a single account and policy serves (and the
/// tenant of every proposal recorded before tenants existed).
pub const DEFAULT_TENANT: &str = "default";

fn default_tenant() -> String {
    DEFAULT_TENANT.to_owned()
}

/// How a confirmation was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmMode {
    /// The caller confirmed the rendered preview (`confirm: true`).
    Attended,
    /// Admitted by the caller's `unattended` scope (I5) without a per-preview confirmation.
    Unattended,
    /// A human approved the rendered preview on the approval page, with a credential the
    /// proposing agent does not hold.
    Human,
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

/// A claim on an idempotency key, as [`crate::store::Store::idempotency_begin`] takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdemClaim {
    /// The key, scoped to its grant, tenant and operation.
    pub key: B256,
    /// The grant (API token id) that holds it.
    pub grant: String,
    /// The hash of the canonical request the key stands for.
    pub request_hash: B256,
    /// Unix time of the claim.
    pub now: u64,
    /// Unix time until which the key is kept (never evicted before).
    pub expires_at: u64,
    /// The most unexpired keys the grant may hold; a claim beyond it is refused.
    pub capacity: u64,
}

/// Whether a request's idempotency key is new, replayed or in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdemBegin {
    /// First delivery: the key is claimed; handle it and record the response.
    Fresh,
    /// A duplicate of an answered request: replay this response.
    Replay(StoredResponse),
    /// The first delivery is still being handled.
    InFlight,
    /// An earlier delivery was being handled when its process stopped, and had got as far as
    /// this proposal: answer from the proposal's state, never run it again.
    Recover(String),
    /// The key was used for another request.
    Reused,
    /// The grant holds as many unexpired keys as it may.
    Full,
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
    /// The instance that reserved it.
    #[serde(default)]
    pub holder: Option<String>,
    /// The fencing token of that instance's lease on the lane when it reserved it: a
    /// signature is recorded only while the lease still carries it.
    #[serde(default)]
    pub fence: i64,
}

/// A transaction sent (or about to be sent) for a PDR: its hash, and the signed bytes that
/// can be broadcast again while its relayer nonce is unused and the PDR's window is open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentTx {
    /// The transaction hash.
    pub tx_hash: B256,
    /// The signed transaction (EIP-2718 bytes); `None` for a transaction recorded without
    /// them.
    pub raw: Option<Bytes>,
    /// The relayer that signed it.
    pub sender: Option<Address>,
    /// The relayer nonce it uses.
    pub nonce: Option<u64>,
    /// Unix time it was recorded.
    pub at: u64,
}

/// The kill switch as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Halt {
    /// Whether every confirm is refused.
    pub halted: bool,
    /// Whether transactions already sent keep getting fee bumps and rebroadcasts while halted.
    pub fee_bumps: bool,
    /// Why, as the operator said.
    #[serde(default)]
    pub reason: String,
    /// Who set it.
    #[serde(default)]
    pub by: String,
    /// Unix time it was set.
    #[serde(default)]
    pub at: u64,
}

impl Default for Halt {
    fn default() -> Self {
        Self {
            halted: false,
            fee_bumps: true,
            reason: String::new(),
            by: String::new(),
            at: 0,
        }
    }
}
