//! Durable state behind one trait: the audit log, proposals, confirmations, idempotency
//! records, nonce-lane reservations and the transaction hashes sent for each PDR.
//!
//! [`SqliteStore`] is the embedded default (one file, WAL). The trait is what a PostgreSQL
//! store for several instances implements next; every method is one atomic step.

mod records;
mod sqlite;

pub use records::{
    ConfirmMode, Confirmation, DEFAULT_TENANT, Halt, IdemBegin, IdemClaim, Proposal, ProposalState,
    Reservation, ReservationState, SentTx, StoredResponse,
};
pub use sqlite::{SCHEMA_VERSION, SqliteStore};

use crate::{
    Result,
    audit::{AuditEntry, AuditRecord, ChainError, verify_chain},
};
use alloy_primitives::{Address, B256, U256};

/// The service's durable state.
pub trait Store: Send {
    /// Appends `entry` to the audit log at time `at`, chained to the current head.
    fn append_audit(&mut self, at: u64, entry: AuditEntry) -> Result<AuditRecord>;
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

    /// Inserts or replaces a proposal.
    fn put_proposal(&mut self, proposal: &Proposal) -> Result<()>;
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

    /// Records (or replaces) the confirmation of a proposal.
    fn record_confirmation(&mut self, confirmation: &Confirmation) -> Result<()>;
    /// The recorded confirmation of a proposal.
    fn confirmation(&self, proposal_id: &str) -> Result<Option<Confirmation>>;

    /// Starts handling the request of `claim`: replays the recorded response of the same
    /// request under an unexpired key, reports one still in flight or one to recover, refuses
    /// a key reused for another request or a grant whose keys are full, or claims the key.
    /// Expired keys of the grant are dropped first; an unexpired key is never evicted.
    fn idempotency_begin(&mut self, claim: &IdemClaim) -> Result<IdemBegin>;
    /// Records the response to the request claimed with `key`.
    fn idempotency_finish(&mut self, key: B256, response: &StoredResponse) -> Result<()>;
    /// Drops the claim on `key` without recording anything (a refused request leaves no echo
    /// of itself; a retry is handled afresh).
    fn idempotency_abandon(&mut self, key: B256) -> Result<()>;
    /// Notes that the request claimed with `key` is about proposal `proposal_id`, so that a
    /// re-delivery after a crash is answered from the proposal instead of run again.
    fn idempotency_link(&mut self, key: B256, proposal_id: &str) -> Result<()>;
    /// Releases every claim still without a response: at start, the handlers that took them
    /// died with the previous process. A re-delivery of the same request is then handled
    /// afresh, or answered from the proposal it had reached; the proposal state machine, not
    /// the claim, keeps it from executing twice. Returns how many. A store shared by several
    /// instances must release only the starting instance's claims.
    fn release_in_flight(&mut self) -> Result<u64>;

    /// The live (not dead) reservation of `sequence` on `lane` of `account`.
    fn live_reservation(
        &self,
        account: Address,
        lane: u32,
        sequence: u64,
    ) -> Result<Option<Reservation>>;
    /// Reserves a sequence; fails when a live reservation holds it.
    fn reserve(&mut self, reservation: &Reservation) -> Result<()>;
    /// Every live reservation.
    fn live_reservations(&self) -> Result<Vec<Reservation>>;
    /// Updates the live reservation of the same account, lane and sequence.
    fn update_reservation(&mut self, reservation: &Reservation) -> Result<()>;

    /// Records a transaction for the proposal's PDR before its broadcast (fee bumps add
    /// more), with its signed bytes when known.
    fn add_tx(&mut self, proposal_id: &str, tx: &SentTx) -> Result<()>;
    /// Every transaction recorded for the proposal's PDR, in order.
    fn txs(&self, proposal_id: &str) -> Result<Vec<SentTx>>;
    /// Records that `tx_hash` was sent for the proposal's PDR (fee bumps add hashes).
    fn add_tx_hash(&mut self, proposal_id: &str, tx_hash: B256, at: u64) -> Result<()> {
        let tx = SentTx {
            tx_hash,
            raw: None,
            sender: None,
            nonce: None,
            at,
        };
        self.add_tx(proposal_id, &tx)
    }
    /// Every transaction hash sent for the proposal's PDR, in order.
    fn tx_hashes(&self, proposal_id: &str) -> Result<Vec<B256>>;
    /// The last transaction hash sent for the proposal's PDR and when it was recorded.
    fn last_tx(&self, proposal_id: &str) -> Result<Option<(B256, u64)>>;

    /// The value of setting `key` (the kill switch, say), if set.
    fn setting(&self, key: &str) -> Result<Option<String>>;
    /// Sets `key` to `value`.
    fn set_setting(&mut self, key: &str, value: &str) -> Result<()>;

    /// Records (or replaces) the amount of `kind` (`value` per grant, `gas` per tenant) that
    /// `who` is charged for the proposal at `at`.
    fn charge(
        &mut self,
        proposal_id: &str,
        kind: &str,
        who: &str,
        at: u64,
        wei: U256,
    ) -> Result<()>;
    /// The sum of `kind` charged to `who` at or after `since`.
    fn charged_since(&self, kind: &str, who: &str, since: u64) -> Result<U256>;
}
