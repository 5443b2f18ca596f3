//! The atomic steps' inputs and outcomes, shared by both backends.

use super::{Confirmation, Proposal, ProposalState, Reservation, ReservationState};
use crate::audit::AuditEntry;
use alloy_primitives::{Address, B256, U256};
use std::time::Duration;

/// Which backend a store is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// One SQLite file (or memory): one instance.
    Sqlite,
    /// A PostgreSQL database: any number of instances.
    Postgres,
}

/// One change of state, applied in one transaction, in this order: the proposal's
/// compare-and-set (nothing else happens when it fails), its confirmation and owner, the
/// idempotency link, the reservation given up, the setting, the charges, then the audit
/// entries, chained last so that the audit head is held for as short a time as possible.
#[derive(Clone, Debug, Default)]
pub struct Step {
    /// Unix time of the step (the audit records' time).
    pub at: u64,
    /// The proposal as it is to be stored, and the state it must be in now (`None`: it must
    /// not exist yet).
    pub proposal: Option<(Proposal, Option<ProposalState>)>,
    /// The instance that now handles the proposal (set when a confirm takes it).
    pub owner: Option<String>,
    /// A confirmation to record (I1's evidence).
    pub confirmation: Option<Confirmation>,
    /// The idempotency claim that reached the proposal, and the instance holding it: the
    /// whole step is refused `IN_PROGRESS` when that instance no longer holds it.
    pub link: Option<(B256, String)>,
    /// A reservation `(account, lane, sequence)` the proposal gives up: dead from now on
    /// (only while it is the proposal's own).
    pub dead_reservation: Option<(Address, u32, u64)>,
    /// A setting to write.
    pub setting: Option<(String, String)>,
    /// Charges to record for the proposal.
    pub charges: Vec<Charge>,
    /// Drops every charge of the proposal (nothing was signed after all).
    pub uncharge: bool,
    /// Audit entries to append.
    pub audit: Vec<AuditEntry>,
}

impl Step {
    /// An empty step at `at`.
    pub fn new(at: u64) -> Self {
        Self {
            at,
            ..Self::default()
        }
    }

    /// Inserts `p`, which must not exist yet.
    pub fn insert(mut self, p: &Proposal) -> Self {
        self.proposal = Some((p.clone(), None));
        self
    }

    /// Writes `p`, which must be in state `from`.
    pub fn advance(mut self, p: &Proposal, from: ProposalState) -> Self {
        self.proposal = Some((p.clone(), Some(from)));
        self
    }

    /// Appends `entry`.
    pub fn audit(mut self, entry: AuditEntry) -> Self {
        self.audit.push(entry);
        self
    }
}

/// What a [`Step`] came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Done.
    Done,
    /// Nothing done: the proposal is in this state, not the expected one (`None`: it does not
    /// exist; or, for an insert, it already does).
    Conflict(Option<ProposalState>),
}

impl Applied {
    /// Whether the step was applied.
    pub fn done(&self) -> bool {
        *self == Self::Done
    }
}

/// A charge for a proposal: value to a grant, gas to a tenant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Charge {
    /// `value` (per grant) or `gas` (per tenant).
    pub kind: String,
    /// Who is charged.
    pub who: String,
    /// How much.
    pub wei: U256,
    /// Refuse the whole step when what `who` was charged of `kind` since `.0` plus `wei` would
    /// be above `.1` (the check and the charge in one transaction, so instances charging at
    /// once cannot both pass).
    pub limit: Option<(u64, U256)>,
}

/// The timing of an instance's leases (its own, its relayer's and its lanes').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseConfig {
    /// How long a lease lasts without renewal, timed by the store's clock.
    pub ttl: Duration,
    /// How long a lane lease is kept unused, with nothing pending on it, before it is given
    /// back for other instances.
    pub idle: Duration,
}

impl Default for LeaseConfig {
    /// 10 s leases, renewed every ~3 s; lanes given back after 5 s unused.
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(10),
            idle: Duration::from_secs(5),
        }
    }
}

impl LeaseConfig {
    /// The lease's length in milliseconds.
    pub fn ttl_ms(&self) -> i64 {
        i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX)
    }

    /// The idle time in milliseconds.
    pub fn idle_ms(&self) -> i64 {
        i64::try_from(self.idle.as_millis()).unwrap_or(i64::MAX)
    }
}

/// One running `pace serve` process as the store knows it: an id fresh at every start, and
/// the fencing token of the lease on its relayer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The id (fresh at every start).
    pub id: String,
    /// The name the operator gave it (the host and listener by default).
    pub name: String,
    /// The relayer it sends transactions with (none on the embedded world).
    pub relayer: Option<Address>,
    /// The fencing token of its relayer lease.
    pub relayer_fence: i64,
}

/// A nonce to reserve for a PDR.
#[derive(Clone, Copy, Debug)]
pub struct NonceRequest<'a> {
    /// The instance asking.
    pub instance: &'a str,
    /// The account.
    pub account: Address,
    /// The tenant's lanes, in order, each with its next unused sequence as read on the state
    /// the decision was made on.
    pub lanes: &'a [(u32, u64)],
    /// The latest block's time on that state: a signed holder whose `validUntil` is before it
    /// (on a lane still at its sequence) is dead.
    pub chain_time: u64,
    /// The proposal the sequence is for.
    pub proposal_id: &'a str,
    /// Unix time (the audit records').
    pub at: u64,
    /// The lane leases' timing.
    pub lease: LeaseConfig,
}

/// What [`super::Store::reserve_nonce`] came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NonceOutcome {
    /// The reservation, under the lane lease's fencing token `reservation.fence`; `None` when
    /// every lane is held by a live PDR or by another live instance.
    pub reserved: Option<Reservation>,
    /// Proposals whose PDR holds a lane's next sequence while the chain shows it dead, or that
    /// an instance whose lane lease was just taken over left unsettled: the caller reconciles
    /// them against the chain before their lanes are used (those lanes were skipped).
    pub reconcile: Vec<String>,
}

/// Records a signature in one transaction, refused (nothing written) when:
/// - the kill switch is on (`HALTED`);
/// - the instance no longer holds the lane's lease under the reservation's fencing token
///   (`FENCED`: another instance took the lane while this one was paused or cut off);
/// - the sequence is held by another digest (`SEQUENCE_TAKEN`): the same digest may be
///   recorded again, another one never;
/// - a charge is over its limit (`APPROVAL_REQUIRED` for value, `GAS_BUDGET_EXCEEDED` for
///   gas);
/// - the proposal is no longer `confirmed` (`NOT_CONFIRMABLE`).
///
/// Otherwise the reservation becomes `signed` with the digest and window, the proposal
/// `signed` with its PDR, the charges and the audit entry are recorded.
#[derive(Clone, Debug)]
pub struct SignatureStep<'a> {
    /// The instance signing.
    pub instance: &'a str,
    /// The reservation, with its digest and `validUntil` set.
    pub reservation: &'a Reservation,
    /// The proposal, `signed` with its PDR.
    pub proposal: &'a Proposal,
    /// The charges, with their limits.
    pub charges: Vec<Charge>,
    /// The `sign` audit entry.
    pub audit: AuditEntry,
    /// Unix time.
    pub at: u64,
    /// The lane lease's timing (the lease is renewed with the signature).
    pub lease: LeaseConfig,
}

/// Whether the holder of a lane's next sequence is dead, so that the sequence may be reserved
/// again by the lane lease's holder: never signed (its reserver lost the lease, or, being the
/// holder itself, failed before signing: an instance signs one PDR at a time), or signed with
/// a `validUntil` before `chain_time` (the lane still standing at this sequence, as the caller
/// read it).
pub fn holder_dead(held: &Reservation, chain_time: u64) -> bool {
    match (held.state, held.valid_until) {
        (ReservationState::Dead | ReservationState::Reserved, _) => true,
        (ReservationState::Signed, Some(valid_until)) => valid_until < chain_time,
        (ReservationState::Signed, None) => false,
    }
}

/// An idempotency record as a backend reads it for [`idem_decide`].
#[derive(Clone, Debug)]
pub(crate) struct IdemRow {
    pub(crate) status: Option<u16>,
    pub(crate) body: Option<String>,
    pub(crate) request_hash: Option<String>,
    pub(crate) proposal_id: Option<String>,
    /// Released at a start, by its instance's heartbeat, or held by an instance that is gone.
    pub(crate) released: bool,
    pub(crate) expires_at: u64,
}

/// What [`idem_decide`] tells a backend to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum IdemDecision {
    /// Answer this, writing nothing.
    Answer(super::IdemBegin),
    /// Claim the key (over any row it had) and answer `Fresh`.
    Claim,
    /// A new key: claim it unless the grant holds its capacity (`Full`).
    New,
}

/// The idempotent receiver's decision on the record `row` of `claim`'s key (the grant's
/// expired keys already dropped): replay, in flight, recover, reused, or claim.
pub(crate) fn idem_decide(row: Option<IdemRow>, claim: &super::IdemClaim) -> IdemDecision {
    use super::{IdemBegin, StoredResponse};
    let Some(row) = row.filter(|r| r.expires_at > claim.now) else {
        return IdemDecision::New;
    };
    if row.request_hash.as_deref() != Some(claim.request_hash.to_string().as_str()) {
        return IdemDecision::Answer(IdemBegin::Reused);
    }
    match (row.status, row.body, row.proposal_id, row.released) {
        (Some(status), Some(body), _, _) => {
            IdemDecision::Answer(IdemBegin::Replay(StoredResponse { status, body }))
        }
        (_, _, Some(p), true) => IdemDecision::Answer(IdemBegin::Recover(p)),
        (_, _, None, true) => IdemDecision::Claim,
        _ => IdemDecision::Answer(IdemBegin::InFlight),
    }
}

/// Milliseconds since the Unix epoch on this host's clock (the SQLite store's clock: one host).
pub(crate) fn host_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The audit entry of a change the store makes on its own (a lane taken over, a dead holder
/// superseded): actor `pace-serve`, `code` and `detail` saying what changed.
pub(crate) fn own_entry(
    kind: crate::audit::AuditKind,
    proposal_id: Option<&str>,
    code: &str,
    detail: serde_json::Value,
) -> AuditEntry {
    AuditEntry {
        kind,
        actor: "pace-serve".to_owned(),
        caller_type: crate::audit::CallerType::Agent,
        scopes: Vec::new(),
        proposal_id: proposal_id.map(str::to_owned),
        intent_hash: None,
        policy_hash: None,
        simulation_hash: None,
        codes: vec![code.to_owned()],
        detail,
    }
}
