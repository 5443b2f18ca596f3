//! Durable state behind one trait, shared by every instance that uses the same store: the
//! audit log, proposals and their state machine, confirmations, idempotency records, nonce-lane
//! leases and reservations, the transactions sent for each PDR, settings (the kill switch),
//! the charges that thresholds and budgets count, request-rate windows, MCP sessions, the
//! published grants and tenants, and the instances themselves.
//!
//! Every method is one atomic step: one transaction of the backend, never a sequence the
//! caller has to hold a lock around. A step that changes a proposal names the state it
//! expects the proposal in and fails with the state it found ([`Applied::Conflict`]) when
//! another delivery, or another instance, moved it first; its audit entries are appended in
//! the same transaction, so the log never records a change that did not happen, nor misses
//! one that did.
//!
//! Two backends implement it: [`SqliteStore`] (one file, one instance: the default) and
//! [`PgStore`] (PostgreSQL, several instances). `tests.rs` runs one suite against both.

mod records;
mod sqlite;
mod steps;
pub mod url;

pub mod postgres;

pub use postgres::PgStore;
pub use records::{
    ConfirmMode, Confirmation, DEFAULT_TENANT, Halt, IdemBegin, IdemClaim, Proposal, ProposalState,
    Reservation, ReservationState, SentTx, StoredResponse,
};
pub use sqlite::{SCHEMA_VERSION, SqliteStore};
pub use steps::{
    Applied, Charge, Instance, LeaseConfig, NonceOutcome, NonceRequest, SignatureStep, Step,
    StoreKind, holder_dead,
};
pub use url::{StoreSpec, open};

#[cfg(test)]
mod tests;

use crate::{
    Result,
    audit::{AuditEntry, AuditRecord, ChainError, verify_chain},
};
use alloy_primitives::{Address, B256, U256};

/// The service's durable state. See the module's documentation.
pub trait Store: Send + Sync {
    /// Which backend this is.
    fn kind(&self) -> StoreKind;
    /// Where the store is, for messages: a file's path, or a URL without its password.
    fn describe(&self) -> String;
    /// The schema version of the store.
    fn schema_version(&self) -> Result<u32>;
    /// How long this process has spent in the store's steps and reads, in all.
    fn busy(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }

    // -- The audit log.

    /// Appends `entry` to the audit log at time `at`, chained to the current head (a refusal,
    /// a read's audit: anything that changes nothing else).
    fn append_audit(&self, at: u64, entry: AuditEntry) -> Result<AuditRecord>;
    /// Up to `limit` audit records from sequence `from` on, in order.
    fn audit_records(&self, from: u64, limit: u64) -> Result<Vec<AuditRecord>>;
    /// The last record's sequence and hash as recorded beside the log.
    fn audit_head(&self) -> Result<Option<(u64, B256)>>;

    /// Checks the whole audit chain; the inner error names the first broken record.
    fn verify_audit(&self) -> Result<Result<u64, ChainError>> {
        let (mut all, mut from) = (Vec::new(), 1);
        loop {
            let page = self.audit_records(from, 1_000)?;
            let Some(last) = page.last() else { break };
            from = last.seq + 1;
            all.extend(page);
        }
        Ok(verify_chain(all, self.audit_head()?))
    }

    // -- Reads.

    /// The proposal with `id`.
    fn proposal(&self, id: &str) -> Result<Option<Proposal>>;
    /// The proposals of `caller` for the intent with `intent_hash`.
    fn proposals_by_intent(&self, caller: &str, intent_hash: B256) -> Result<Vec<Proposal>>;
    /// The latest `limit` proposals, of `caller` only when given, newest first.
    fn proposals(&self, caller: Option<&str>, limit: u64) -> Result<Vec<Proposal>>;
    /// Proposals in `state`.
    fn proposals_in(&self, state: ProposalState) -> Result<Vec<Proposal>>;
    /// The latest `limit` proposals of the `tenants` (of `caller` only when given), in `state`
    /// only when given, newest first.
    fn proposals_of(
        &self,
        tenants: &[String],
        caller: Option<&str>,
        state: Option<ProposalState>,
        limit: u64,
    ) -> Result<Vec<Proposal>>;
    /// The proposals of `tenant` for intents of identity `identity`
    /// ([`crate::identity::intent_identity`]) made at or after `since`.
    fn proposals_by_identity(
        &self,
        tenant: &str,
        identity: B256,
        since: u64,
    ) -> Result<Vec<Proposal>>;
    /// The proposals in `state` last moved there by `instance` itself or by an instance that
    /// is no longer alive (its lease expired): what a dead instance, or a handler of this one
    /// that ended, may have left half done (the caller leaves out what its handlers still
    /// hold).
    fn orphaned(&self, state: ProposalState, instance: &str) -> Result<Vec<Proposal>>;
    /// The recorded confirmation of a proposal.
    fn confirmation(&self, proposal_id: &str) -> Result<Option<Confirmation>>;
    /// The live (not dead) reservation of `sequence` on `lane` of `account`.
    fn live_reservation(
        &self,
        account: Address,
        lane: u32,
        sequence: u64,
    ) -> Result<Option<Reservation>>;
    /// Every live reservation.
    fn live_reservations(&self) -> Result<Vec<Reservation>>;
    /// Every transaction recorded for the proposal's PDR, in order.
    fn txs(&self, proposal_id: &str) -> Result<Vec<SentTx>>;
    /// Every transaction hash sent for the proposal's PDR, in order.
    fn tx_hashes(&self, proposal_id: &str) -> Result<Vec<B256>> {
        Ok(self.txs(proposal_id)?.iter().map(|t| t.tx_hash).collect())
    }
    /// The last transaction hash sent for the proposal's PDR and when it was recorded.
    fn last_tx(&self, proposal_id: &str) -> Result<Option<(B256, u64)>> {
        Ok(self.txs(proposal_id)?.last().map(|t| (t.tx_hash, t.at)))
    }
    /// The value of setting `key` (the kill switch, say), if set.
    fn setting(&self, key: &str) -> Result<Option<String>>;
    /// The sum of `kind` charged to `who` at or after `since`.
    fn charged_since(&self, kind: &str, who: &str, since: u64) -> Result<U256>;

    // -- Steps.

    /// Applies `step` in one transaction (see [`Step`]).
    fn apply(&self, step: &Step) -> Result<Applied>;

    /// Records a decision: the new proposal `p`, the idempotency claim `link` that reached it
    /// (the key and the instance holding it), and its audit entry. A claim another instance
    /// has taken over meanwhile (this one's lease lapsed) is refused `IN_PROGRESS` and nothing
    /// is recorded: one claim reaches one proposal.
    fn record_decision(
        &self,
        at: u64,
        p: &Proposal,
        link: Option<(B256, &str)>,
        audit: AuditEntry,
    ) -> Result<Applied> {
        self.apply(&Step {
            link: link.map(|(key, holder)| (key, holder.to_owned())),
            audit: vec![audit],
            ..Step::new(at).insert(p)
        })
    }

    /// Moves `p` from state `from` to the state it now carries (with the rest of `p`), and
    /// appends `audit`, or reports the state another delivery left it in.
    fn advance(
        &self,
        at: u64,
        p: &Proposal,
        from: ProposalState,
        audit: Vec<AuditEntry>,
    ) -> Result<Applied> {
        self.apply(&Step {
            audit,
            ..Step::new(at).advance(p, from)
        })
    }

    /// Inserts or replaces a proposal without any check: for copying a store and for tests
    /// that arrange a state. The service moves proposals with [`Self::advance`].
    fn put_proposal(&self, proposal: &Proposal) -> Result<()>;

    /// Starts handling the request of `claim` on instance `instance`: replays the recorded
    /// response of the same request under an unexpired key, reports one still in flight or
    /// one to recover (its handler's instance is gone, or released it), refuses a key reused
    /// for another request or a grant whose keys are full, or claims the key. Expired keys of
    /// the grant are dropped first; an unexpired key is never evicted.
    fn idempotency_begin(&self, claim: &IdemClaim, instance: &str) -> Result<IdemBegin>;
    /// Takes over the released claim on `key` for instance `instance` (its link to the
    /// proposal kept), to answer a re-delivery from that proposal; `false` when another
    /// delivery took it first.
    fn idempotency_take(&self, key: B256, instance: &str) -> Result<bool>;
    /// Records the response to the request claimed with `key` by `instance` (nothing when
    /// another instance has taken the claim over: its delivery answers).
    fn idempotency_finish(
        &self,
        key: B256,
        instance: &str,
        response: &StoredResponse,
    ) -> Result<()>;
    /// Drops the claim on `key` without recording anything (a refused request leaves no echo
    /// of itself; a retry is handled afresh). A claim that reached a proposal is released
    /// instead: a retry is answered from, or continued on, that proposal, never run as a
    /// second one.
    /// Only `instance`'s own claim: one another instance took over is left to it.
    fn idempotency_abandon(&self, key: B256, instance: &str) -> Result<()>;
    /// Notes that the request claimed with `key` is about proposal `proposal_id`, so that a
    /// re-delivery after a crash is answered from the proposal instead of run again.
    /// Refused `IN_PROGRESS` when `instance` no longer holds the claim (another instance took
    /// it over after this one's lease lapsed).
    fn idempotency_link(&self, key: B256, instance: &str, proposal_id: &str) -> Result<()>;
    /// Releases every claim still without a response whose instance is gone (on SQLite, whose
    /// one instance is the caller: every other claim): the handlers that took them died. A
    /// re-delivery of the same request is then handled afresh, or answered from the proposal
    /// it had reached; the proposal state machine, not the claim, keeps it from executing
    /// twice. Returns how many.
    fn release_in_flight(&self, instance: &str) -> Result<u64>;
    /// Releases the claims `keys` of instance `instance` whose handlers ended without recording
    /// an answer (the store was unreachable when they tried): a re-delivery is answered from
    /// the proposal it reached, or handled afresh.
    fn release_claims(&self, instance: &str, keys: &[B256]) -> Result<()>;

    /// Reserves the next free sequence on one of the request's lanes, taking or renewing the
    /// lane's lease (see [`NonceRequest`]).
    fn reserve_nonce(&self, request: &NonceRequest<'_>) -> Result<NonceOutcome>;
    /// Gives up `reservation` before anything was signed for it (the confirm failed).
    fn release_nonce(&self, reservation: &Reservation) -> Result<()>;
    /// Marks every live reservation dead: the embedded world restarted from genesis, where
    /// nothing an earlier run signed exists. Returns how many.
    fn retire_reservations(&self) -> Result<u64>;
    /// Records a signature: see [`SignatureStep`].
    fn record_signature(&self, step: &SignatureStep<'_>) -> Result<()>;
    /// Records a transaction for the proposal's PDR before its broadcast (fee bumps add
    /// more), with its signed bytes when known. With an `instance`, refused unless that
    /// instance still holds the lease on the transaction's relayer and the proposal is still
    /// submitted or uncertain: nothing is broadcast by an instance that lost its relayer, nor
    /// for a PDR another instance settled.
    fn record_tx(&self, proposal_id: &str, tx: &SentTx, instance: Option<&Instance>) -> Result<()>;
    /// [`Self::record_tx`] of a bare hash.
    fn add_tx_hash(&self, proposal_id: &str, tx_hash: B256, at: u64) -> Result<()> {
        let tx = SentTx {
            tx_hash,
            raw: None,
            sender: None,
            nonce: None,
            at,
        };
        self.record_tx(proposal_id, &tx, None)
    }

    /// Counts one request of `grant` in the rate window starting at `window` (unix seconds);
    /// `false` (and nothing counted) when the window already holds `limit`.
    fn count_request(&self, grant: &str, window: u64, limit: u32) -> Result<bool>;

    // -- Instances and their leases.

    /// Registers a new instance, taking the lease on its relayer (refused while another live
    /// instance holds it).
    fn register_instance(
        &self,
        name: &str,
        relayer: Option<Address>,
        lease: LeaseConfig,
    ) -> Result<Instance>;
    /// Renews the instance's leases (itself, its relayer, its lanes), gives back lanes it has
    /// not used for a while and has nothing pending on, and releases its own claims that no
    /// handler holds any more (`in_flight` are those that do). `Err(Fenced)` when another
    /// instance took its relayer.
    fn heartbeat(&self, instance: &Instance, lease: LeaseConfig, in_flight: &[B256]) -> Result<()>;
    /// Gives up the instance's leases (a clean shutdown): its lanes are free at once.
    fn retire_instance(&self, instance: &Instance) -> Result<()>;

    // -- MCP sessions.

    /// Opens MCP session `id` for `grant` on `instance` at `now`, unless the grant already
    /// holds `cap` sessions active within `idle_secs` (then `false`). Idle sessions are
    /// dropped first.
    fn open_session(
        &self,
        id: &str,
        grant: &str,
        instance: &str,
        now: u64,
        cap: u32,
        idle_secs: u64,
    ) -> Result<bool>;
    /// Marks session `id` active at `now`; `false` when it is unknown or was idle for
    /// `idle_secs` (then it is dropped).
    fn touch_session(&self, id: &str, now: u64, idle_secs: u64) -> Result<bool>;
    /// Closes session `id`.
    fn close_session(&self, id: &str) -> Result<()>;

    // -- Published configuration (grants, tenants).

    /// Publishes configuration document `kind` (`grants`, `tenants`); returns its version
    /// (unchanged when the body is the same).
    fn publish(&self, kind: &str, body: &str, at: u64) -> Result<u64>;
    /// The published document `kind` and its version.
    fn published(&self, kind: &str) -> Result<Option<(u64, String)>>;
}
