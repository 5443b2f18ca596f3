//! A SQLite store with faults injected where a test says: the moments between two instances
//! (a server out of reach, another instance's step landing first) made deterministic.

use alloy_primitives::{Address, B256, U256};
use pace_service::{
    Result,
    audit::{AuditEntry, AuditRecord},
    store::{
        Applied, Confirmation, IdemBegin, IdemClaim, Instance, LeaseConfig, NonceOutcome,
        NonceRequest, Proposal, ProposalState, Reservation, SentTx, SignatureStep, SqliteStore,
        Step, Store, StoreKind, StoredResponse,
    },
};

/// Where a test steps in: each method is the store's own unless a test overrides it, and gets
/// the real store to act on.
#[expect(
    clippy::result_large_err,
    reason = "the store's own error, as `Store` returns it"
)]
pub(crate) trait Faults: Send + Sync {
    /// [`Store::record_tx`].
    fn record_tx(
        &self,
        inner: &SqliteStore,
        proposal_id: &str,
        tx: &SentTx,
        instance: Option<&Instance>,
    ) -> Result<()> {
        inner.record_tx(proposal_id, tx, instance)
    }
    /// [`Store::record_signature`].
    fn record_signature(&self, inner: &SqliteStore, step: &SignatureStep<'_>) -> Result<()> {
        inner.record_signature(step)
    }
    /// [`Store::idempotency_begin`].
    fn idempotency_begin(
        &self,
        inner: &SqliteStore,
        claim: &IdemClaim,
        instance: &str,
    ) -> Result<IdemBegin> {
        inner.idempotency_begin(claim, instance)
    }
    /// [`Store::proposal`].
    fn proposal(&self, inner: &SqliteStore, id: &str) -> Result<Option<Proposal>> {
        inner.proposal(id)
    }
}

/// An in-memory SQLite store with `faults`.
pub(crate) struct Faulty<F> {
    pub(crate) inner: SqliteStore,
    pub(crate) faults: F,
}

impl<F: Faults> Faulty<F> {
    pub(crate) fn new(faults: F) -> Self {
        Self {
            inner: SqliteStore::in_memory().unwrap(),
            faults,
        }
    }
}

impl<F: Faults> Store for Faulty<F> {
    fn record_tx(&self, proposal_id: &str, tx: &SentTx, instance: Option<&Instance>) -> Result<()> {
        self.faults
            .record_tx(&self.inner, proposal_id, tx, instance)
    }

    fn kind(&self) -> StoreKind {
        self.inner.kind()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn schema_version(&self) -> Result<u32> {
        self.inner.schema_version()
    }
    fn append_audit(&self, at: u64, entry: AuditEntry) -> Result<AuditRecord> {
        self.inner.append_audit(at, entry)
    }
    fn audit_records(&self, from: u64, limit: u64) -> Result<Vec<AuditRecord>> {
        self.inner.audit_records(from, limit)
    }
    fn audit_head(&self) -> Result<Option<(u64, B256)>> {
        self.inner.audit_head()
    }
    fn proposal(&self, id: &str) -> Result<Option<Proposal>> {
        self.faults.proposal(&self.inner, id)
    }
    fn proposals_by_intent(&self, caller: &str, intent_hash: B256) -> Result<Vec<Proposal>> {
        self.inner.proposals_by_intent(caller, intent_hash)
    }
    fn proposals(&self, caller: Option<&str>, limit: u64) -> Result<Vec<Proposal>> {
        self.inner.proposals(caller, limit)
    }
    fn proposals_in(&self, state: ProposalState) -> Result<Vec<Proposal>> {
        self.inner.proposals_in(state)
    }
    fn proposals_of(
        &self,
        tenants: &[String],
        caller: Option<&str>,
        state: Option<ProposalState>,
        limit: u64,
    ) -> Result<Vec<Proposal>> {
        self.inner.proposals_of(tenants, caller, state, limit)
    }
    fn proposals_by_identity(
        &self,
        tenant: &str,
        identity: B256,
        since: u64,
    ) -> Result<Vec<Proposal>> {
        self.inner.proposals_by_identity(tenant, identity, since)
    }
    fn orphaned(&self, state: ProposalState, instance: &str) -> Result<Vec<Proposal>> {
        self.inner.orphaned(state, instance)
    }
    fn confirmation(&self, proposal_id: &str) -> Result<Option<Confirmation>> {
        self.inner.confirmation(proposal_id)
    }
    fn live_reservation(
        &self,
        account: Address,
        lane: u32,
        sequence: u64,
    ) -> Result<Option<Reservation>> {
        self.inner.live_reservation(account, lane, sequence)
    }
    fn live_reservations(&self) -> Result<Vec<Reservation>> {
        self.inner.live_reservations()
    }
    fn txs(&self, proposal_id: &str) -> Result<Vec<SentTx>> {
        self.inner.txs(proposal_id)
    }
    fn setting(&self, key: &str) -> Result<Option<String>> {
        self.inner.setting(key)
    }
    fn charged_since(&self, kind: &str, who: &str, since: u64) -> Result<U256> {
        self.inner.charged_since(kind, who, since)
    }
    fn apply(&self, step: &Step) -> Result<Applied> {
        self.inner.apply(step)
    }
    fn put_proposal(&self, proposal: &Proposal) -> Result<()> {
        self.inner.put_proposal(proposal)
    }
    fn idempotency_begin(&self, claim: &IdemClaim, instance: &str) -> Result<IdemBegin> {
        self.faults.idempotency_begin(&self.inner, claim, instance)
    }
    fn idempotency_take(&self, key: B256, instance: &str) -> Result<bool> {
        self.inner.idempotency_take(key, instance)
    }
    fn idempotency_finish(
        &self,
        key: B256,
        instance: &str,
        response: &StoredResponse,
    ) -> Result<()> {
        self.inner.idempotency_finish(key, instance, response)
    }
    fn idempotency_abandon(&self, key: B256, instance: &str) -> Result<()> {
        self.inner.idempotency_abandon(key, instance)
    }
    fn idempotency_link(&self, key: B256, instance: &str, proposal_id: &str) -> Result<()> {
        self.inner.idempotency_link(key, instance, proposal_id)
    }
    fn release_in_flight(&self, instance: &str) -> Result<u64> {
        self.inner.release_in_flight(instance)
    }
    fn release_claims(&self, instance: &str, keys: &[B256]) -> Result<()> {
        self.inner.release_claims(instance, keys)
    }
    fn reserve_nonce(&self, request: &NonceRequest<'_>) -> Result<NonceOutcome> {
        self.inner.reserve_nonce(request)
    }
    fn release_nonce(&self, reservation: &Reservation) -> Result<()> {
        self.inner.release_nonce(reservation)
    }
    fn retire_reservations(&self) -> Result<u64> {
        self.inner.retire_reservations()
    }
    fn record_signature(&self, step: &SignatureStep<'_>) -> Result<()> {
        self.faults.record_signature(&self.inner, step)
    }
    fn count_request(&self, grant: &str, window: u64, limit: u32) -> Result<bool> {
        self.inner.count_request(grant, window, limit)
    }
    fn register_instance(
        &self,
        name: &str,
        relayer: Option<Address>,
        lease: LeaseConfig,
    ) -> Result<Instance> {
        self.inner.register_instance(name, relayer, lease)
    }
    fn heartbeat(&self, instance: &Instance, lease: LeaseConfig, in_flight: &[B256]) -> Result<()> {
        self.inner.heartbeat(instance, lease, in_flight)
    }
    fn retire_instance(&self, instance: &Instance) -> Result<()> {
        self.inner.retire_instance(instance)
    }
    fn open_session(
        &self,
        id: &str,
        grant: &str,
        instance: &str,
        now: u64,
        cap: u32,
        idle_secs: u64,
    ) -> Result<bool> {
        self.inner
            .open_session(id, grant, instance, now, cap, idle_secs)
    }
    fn touch_session(&self, id: &str, now: u64, idle_secs: u64) -> Result<bool> {
        self.inner.touch_session(id, now, idle_secs)
    }
    fn close_session(&self, id: &str) -> Result<()> {
        self.inner.close_session(id)
    }
    fn publish(&self, kind: &str, body: &str, at: u64) -> Result<u64> {
        self.inner.publish(kind, body, at)
    }
    fn published(&self, kind: &str) -> Result<Option<(u64, String)>> {
        self.inner.published(kind)
    }
}
