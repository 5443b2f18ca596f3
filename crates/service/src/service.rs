//! The service core: propose, confirm, status, history, pending, over the pipeline on one
//! chain, for one or more tenants.
//!
//! Every operation takes an authenticated [`Caller`] and checks its scope first (I5), then its
//! tenant: a caller acts only for its tenants' accounts and sees only its own proposals (all
//! of its tenants' with `read_all`). State lives in a [`Store`], changed only by its atomic
//! steps, so that several instances on one shared store stay exactly-once without relying on
//! any lock of their own; within an instance, the chain sits behind one lock (the embedded
//! world is mutable) and signatures are made one at a time (see [`crate::lanes`]).

use crate::{
    Error, Result,
    audit::{AuditEntry, AuditKind, AuditRecord},
    auth::{ApiTokens, Caller, Scope},
    chain::ServiceChain,
    metrics::Metrics,
    preview::{Preview, TokenMeta},
    store::{Applied, Instance, LeaseConfig, Proposal, ProposalState, Store, StoreKind},
    tenant::{Tenant, Tenants},
};
use crate::{confirm::Repeat, store::ConfirmMode};
use alloy_primitives::{Address, B256, U256, keccak256};
use pace_abi::bindings::IERC20;
use pace_evm::InProcessEvm;
use pace_pipeline::{Assessed, Evidence, Pipeline, PipelineConfig};
use pace_types::{CompiledPolicy, ETH, Hashed, Intent};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::{
    Arc, Mutex, MutexGuard,
    atomic::{AtomicU64, Ordering},
};
use std::time::Duration;

/// How the service runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceConfig {
    /// How PDRs are issued (`nonce_key` is replaced by the lane reserved for each PDR).
    pub pipeline: PipelineConfig,
    /// The nonce lanes this instance owns (disjoint from every other instance's).
    pub lanes: Vec<u32>,
    /// Seconds a preview can be confirmed.
    pub proposal_ttl_secs: u64,
    /// How far, in basis points of the previewed amount, a token's net change on fresh state
    /// may move before confirm fails with `PREVIEW_CHANGED`.
    pub preview_tolerance_bps: u32,
    /// Seconds a recorded response is replayed to a duplicate request sent without an
    /// idempotency key, identified by its canonical content (I7).
    pub idempotency_window_secs: u64,
    /// Seconds a client's idempotency key is kept (at least 24 h by default): a retry with
    /// the key within it gets the recorded response.
    pub idempotency_retention_secs: u64,
    /// Seconds within which an unattended execution of an intent equal to one already
    /// executed (or executing) needs `allow_repeat`.
    pub repeat_window_secs: u64,
    /// Seconds a proposal waits for a human's approval.
    pub approval_ttl_secs: u64,
    /// The fee cap per gas the relayer pays, in wei.
    pub max_fee_per_gas: u64,
    /// The default tenant's relayer gas budget per 24 h, in wei (unlimited when `None`).
    pub relayer_budget_wei: Option<U256>,
    /// The instance's name in the store (its leases, its claims, the audit log).
    pub instance_name: String,
    /// The timing of the instance's leases.
    pub lease: LeaseConfig,
    /// How long a confirm waits for a free nonce lane before it answers `NO_FREE_LANE`.
    pub lane_wait: Duration,
    /// MCP sessions one token may hold open at once.
    pub mcp_sessions_per_token: u32,
    /// Seconds an MCP session may be idle before it expires.
    pub mcp_session_idle_secs: u64,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        Self {
            pipeline: PipelineConfig::default(),
            lanes: vec![0, 1, 2, 3],
            proposal_ttl_secs: 300,
            preview_tolerance_bps: 50,
            idempotency_window_secs: 30,
            idempotency_retention_secs: 86_400,
            repeat_window_secs: 86_400,
            approval_ttl_secs: 1_800,
            max_fee_per_gas: 50_000_000_000,
            relayer_budget_wei: None,
            instance_name: "pace-serve".to_owned(),
            lease: LeaseConfig::default(),
            lane_wait: Duration::from_secs(5),
            mcp_sessions_per_token: 16,
            mcp_session_idle_secs: 600,
        }
    }
}

/// The chain and the store, behind the service's lock.
pub struct State {
    /// The durable state (shared: its steps are atomic on their own).
    pub store: Arc<dyn Store>,
    /// The chain: the embedded world (`--world`) or a node (`--rpc`).
    pub chain: ServiceChain,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State").finish_non_exhaustive()
    }
}

/// The answer to `propose`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposed {
    /// The rendered transition.
    pub preview: Preview,
    /// Its hash (what a confirmation binds to).
    pub preview_hash: B256,
    /// For an unattended `execute`: what confirm did.
    pub confirmed: Option<Confirmed>,
}

/// The answer to `confirm`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmed {
    /// The proposal.
    pub proposal_id: String,
    /// Where it stands now.
    pub state: ProposalState,
    /// The signed PDR's digest.
    pub pdr_digest: B256,
    /// Its nonce lane.
    pub lane: u32,
    /// Its sequence on the lane.
    pub sequence: u64,
    /// What the chain did.
    pub outcome: Option<pace_pipeline::ExecutionResult>,
}

impl Confirmed {
    /// What confirm reported for `p`, rebuilt from the store (`None` until it is signed).
    pub fn of(p: &Proposal) -> Option<Self> {
        let signed = p.pdr.as_ref()?;
        let terms = signed.pdr.terms();
        Some(Self {
            proposal_id: p.id.clone(),
            state: p.state,
            pdr_digest: signed.digest,
            lane: terms.key,
            sequence: terms.sequence,
            outcome: p.outcome.clone(),
        })
    }
}

/// Where a proposal stands, as `status` reports it: its stored [`ProposalState`], except that a
/// PDR signed but never submitted is `expiring` (dead after `valid_until`) and a proposal
/// whose preview passed its expiry is `expired`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusState {
    /// Previewed and approved, awaiting confirmation.
    Proposed,
    /// Rejected by the verifier.
    Rejected,
    /// Confirmation recorded; not signed yet.
    Confirmed,
    /// Signed, never submitted: dead after `valid_until`.
    Expiring,
    /// Sent; no outcome yet.
    Submitted,
    /// Executed.
    Executed,
    /// Reverted (decoded error in the outcome).
    Reverted,
    /// May have landed; reconcile before retrying.
    Uncertain,
    /// Expired unexecuted.
    Expired,
    /// Waits for a human's approval (see `pending`).
    AwaitingApproval,
}

impl StatusState {
    /// What `status` reports for a proposal in `state` whose preview expires at `expires_at`,
    /// at `now`.
    pub fn of(state: ProposalState, expires_at: u64, now: u64) -> Self {
        match state {
            ProposalState::Proposed if now > expires_at => Self::Expired,
            ProposalState::Proposed => Self::Proposed,
            ProposalState::Rejected => Self::Rejected,
            ProposalState::Confirmed => Self::Confirmed,
            ProposalState::Signed => Self::Expiring,
            ProposalState::Submitted => Self::Submitted,
            ProposalState::Executed => Self::Executed,
            ProposalState::Reverted => Self::Reverted,
            ProposalState::Uncertain => Self::Uncertain,
            ProposalState::Expired => Self::Expired,
            ProposalState::AwaitingApproval if now > expires_at => Self::Expired,
            ProposalState::AwaitingApproval => Self::AwaitingApproval,
        }
    }
}

impl StatusState {
    /// The state's name, as `status` reports it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Proposed => "proposed",
            Self::Rejected => "rejected",
            Self::Confirmed => "confirmed",
            Self::Expiring => "expiring",
            Self::Submitted => "submitted",
            Self::Executed => "executed",
            Self::Reverted => "reverted",
            Self::Uncertain => "uncertain",
            Self::Expired => "expired",
            Self::AwaitingApproval => "awaiting_approval",
        }
    }
}

impl PartialEq<&str> for StatusState {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for StatusState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The answer to `status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// The proposal.
    pub proposal_id: String,
    /// Where it stands.
    pub state: StatusState,
    /// Who proposed it.
    pub caller: String,
    /// The tenant it belongs to.
    pub tenant: String,
    /// The signed PDR's digest.
    pub pdr_digest: Option<B256>,
    /// The signed PDR's `validUntil`.
    pub valid_until: Option<u64>,
    /// Every transaction hash sent for it.
    pub tx_hashes: Vec<B256>,
    /// What the chain did (the decoded error of a revert).
    pub outcome: Option<pace_pipeline::ExecutionResult>,
    /// Whether the answer comes from the store alone: the node could not be reached to
    /// reconcile it, so a `submitted` or `uncertain` state may be behind the chain.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

/// What `propose` does beyond simulating and judging.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProposeOptions {
    /// Confirm at once, unattended (scope `unattended`).
    pub execute: bool,
    /// Execute unattended even when an equal intent executed within the repeat window.
    pub allow_repeat: bool,
    /// The idempotency claim of the request, linked to the proposal it creates.
    pub claim: Option<B256>,
}

/// The service.
pub struct Service {
    pub(crate) pipeline: Pipeline,
    pub(crate) tenants: Tenants,
    pub(crate) config: ServiceConfig,
    pub(crate) tokens: Arc<ApiTokens>,
    pub(crate) metrics: Metrics,
    state: Mutex<State>,
    ids: AtomicU64,
    clock_offset: AtomicU64,
    pub(crate) approval_base: Mutex<Option<String>>,
    pub(crate) page_secret: B256,
    pub(crate) ops: crate::ops::Ops,
    /// The store, outside the lock (its steps are atomic on their own).
    pub(crate) store: Arc<dyn Store>,
    /// This process as the store knows it.
    pub(crate) instance: Instance,
    /// The idempotency claims this instance's handlers hold now.
    pub(crate) claims: Arc<Mutex<HashSet<B256>>>,
    /// Signatures are made one at a time per instance (a lane's reservation, signature and
    /// record).
    pub(crate) signing: Mutex<()>,
    /// Wakes confirms waiting for a free lane when a submission settles.
    pub(crate) lane_freed: (Mutex<u64>, std::sync::Condvar),
    heartbeat: Option<crate::ops::Heartbeat>,
    /// Set when the tenants published in the store are no longer the ones this instance runs
    /// (another instance started with other policies): it then decides nothing.
    pub(crate) config_stale: Arc<std::sync::atomic::AtomicBool>,
    /// Claims whose handlers ended without recording an answer, released by the heartbeat.
    pub(crate) ended: Arc<Mutex<Vec<B256>>>,
    /// The proposals this instance's handlers are confirming now.
    pub(crate) confirming: Mutex<HashSet<String>>,
    /// On the embedded world, where a request is work for the processor only (no node to
    /// wait for), the HTTP API's requests run at most a few per core at once, admitted in
    /// arrival order (tokio's semaphore is first come, first served): more at once only
    /// contend for the world's and the store's locks, and an unfair lock lets a late request
    /// overtake early ones.
    pub(crate) admission: Option<Arc<tokio::sync::Semaphore>>,
}

/// Requests the embedded world runs at once per core (see [`Service::admission`]).
const ADMITTED_PER_CORE: usize = 2;

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("verifier", &self.pipeline.verifier())
            .finish_non_exhaustive()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(h) = self.heartbeat.take() {
            h.stop();
        }
    }
}

impl Service {
    /// A service issuing PDRs through `pipeline` under `policy`, on `chain` (the embedded
    /// world or a node), with `store`. Reconciles what an earlier run left in `store` first,
    /// before it accepts anything (see `restart.rs`).
    pub fn new(
        pipeline: Pipeline,
        policy: CompiledPolicy,
        chain: impl Into<ServiceChain>,
        store: Box<dyn Store>,
        tokens: ApiTokens,
        config: ServiceConfig,
    ) -> Result<Self> {
        let default = Tenant::default_for(policy, config.lanes.clone(), config.relayer_budget_wei);
        Self::with_tenants(pipeline, vec![default], chain, store, tokens, config)
    }

    /// A service for several `tenants` (accounts, each with its policy, lanes and gas budget):
    /// a grant without `tenants` acts for the one whose id is
    /// [`crate::store::DEFAULT_TENANT`].
    pub fn with_tenants(
        pipeline: Pipeline,
        tenants: Vec<Tenant>,
        chain: impl Into<ServiceChain>,
        store: Box<dyn Store>,
        tokens: ApiTokens,
        config: ServiceConfig,
    ) -> Result<Self> {
        let tenants = Tenants::new(tenants)?;
        // The service's restart reconciliation reads lanes and `PdrExecuted` logs at the
        // account: the EntryPoint path (nonces and outcomes at the EntryPoint) is `pace run`'s.
        if config.pipeline.entry != pace_pipeline::Entry::Direct {
            return Err(Error::Config(
                "pace serve submits PDRs directly to the account; the EntryPoint path is pace run's"
                    .into(),
            ));
        }
        let chain = chain.into();
        let store: Arc<dyn Store> = Arc::from(store);
        if store.kind() == StoreKind::Postgres && chain.node().is_none() {
            return Err(Error::Config(
                "the embedded world lives in one process: instances that share a PostgreSQL \
                 store run on a node (--rpc URL)"
                    .into(),
            ));
        }
        // Simulations run the transaction the relayer will send (see `ServiceChain::relayer`).
        let relayer = chain.source().relayer()?;
        let admission = chain.node().is_none().then(|| {
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            Arc::new(tokio::sync::Semaphore::new(cores * ADMITTED_PER_CORE))
        });
        let relayer_key = chain.node().map(|n| n.client().address());
        let instance = register(&*store, &config, relayer_key)?;
        // What every instance of the store follows: the grants (revocations reach them all)
        // and the tenants with their policies (an instance running others decides nothing).
        let tokens = Arc::new(tokens);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let grants_version = store.publish(GRANTS, &tokens.to_json(), now)?;
        let tenants_version = store.publish(TENANTS, &tenants.to_json(), now)?;
        let claims = Arc::new(Mutex::new(HashSet::new()));
        let config_stale = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ended = Arc::new(Mutex::new(Vec::new()));
        let heartbeat = crate::ops::Heartbeat::spawn(
            store.clone(),
            instance.clone(),
            config.lease,
            claims.clone(),
            crate::ops::Follow {
                tokens: tokens.clone(),
                grants_version,
                tenants_version,
                stale: config_stale.clone(),
                ended: ended.clone(),
            },
        );
        let service = Self {
            pipeline: pipeline.with_config(config.pipeline).with_relayer(relayer),
            tenants,
            config,
            tokens,
            metrics: Metrics::default(),
            state: Mutex::new(State {
                store: store.clone(),
                chain,
            }),
            ids: AtomicU64::new(0),
            clock_offset: AtomicU64::new(0),
            approval_base: Mutex::new(None),
            page_secret: random_secret(),
            ops: crate::ops::Ops::default(),
            store,
            instance,
            claims,
            signing: Mutex::new(()),
            lane_freed: (Mutex::new(0), std::sync::Condvar::new()),
            heartbeat: Some(heartbeat),
            config_stale,
            ended,
            confirming: Mutex::new(HashSet::new()),
            admission,
        };
        // Before accepting anything: what an earlier run left is reconciled, and the requests
        // it was handling when it stopped may be delivered again.
        service.reconcile_restart()?;
        service.store.release_in_flight(&service.instance.id)?;
        Ok(service)
    }

    /// This process as the store knows it.
    pub fn instance(&self) -> &Instance {
        &self.instance
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Gives up this instance's leases (a clean shutdown): other instances may take its lanes
    /// at once instead of after the lease.
    pub fn retire(&self) -> Result<()> {
        if let Some(h) = &self.heartbeat {
            h.stop();
        }
        self.store.retire_instance(&self.instance)
    }

    /// Unix time (the system clock, plus any offset set by [`Self::advance_clock`]).
    pub fn now(&self) -> u64 {
        let sys = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        sys + self.clock_offset.load(Ordering::Relaxed)
    }

    /// Moves the service's clock forward (expiry and idempotency windows), for tests and demos.
    pub fn advance_clock(&self, secs: u64) {
        self.clock_offset.fetch_add(secs, Ordering::Relaxed);
    }

    /// The chain and the store, locked.
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f`, its time counted to `phase` (`pace_phase_microseconds_total`).
    pub(crate) fn timed<T>(&self, phase: &str, f: impl FnOnce() -> T) -> T {
        let started = std::time::Instant::now();
        let out = f();
        let us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.metrics.add("phase_microseconds", phase, us);
        out
    }

    /// The counters.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The verifier address PDRs are signed by.
    pub fn verifier(&self) -> Address {
        self.pipeline.verifier()
    }

    /// Authenticates the bearer `secret` (I5: who is calling), counted against the caller's
    /// rate in the store's window of the current minute (one rate however many instances
    /// serve the grant). A refusal is counted; a rate limit, which names its caller, is also
    /// audited (see [`crate::ops`]).
    pub fn authenticate(&self, secret: Option<&str>) -> Result<Caller> {
        let out = self.tokens.lookup(secret).and_then(|caller| {
            let window = self.now() / 60 * 60;
            if self
                .store
                .count_request(&caller.id, window, caller.rate_per_minute)?
            {
                Ok(caller)
            } else {
                Err(Error::RateLimited {
                    per_minute: caller.rate_per_minute,
                })
            }
        });
        if let Err(e) = &out {
            self.refused_at_the_door(secret, e);
        }
        out
    }

    /// The API tokens, whose grants can be replaced while the service runs (revocation).
    pub fn tokens(&self) -> &ApiTokens {
        &self.tokens
    }

    /// Replaces every grant (a re-read grants file) and publishes them in the store, for every
    /// instance of the store to follow.
    pub fn replace_grants(&self, grants: Vec<crate::auth::Grant>) -> Result<()> {
        self.tokens.replace(grants)?;
        self.store
            .publish(GRANTS, &self.tokens.to_json(), self.now())?;
        Ok(())
    }

    /// Refuses to decide while the tenants published in the store are not this instance's.
    pub(crate) fn config_current(&self) -> Result<()> {
        if self.config_stale.load(Ordering::SeqCst) {
            return Err(Error::ConfigStale);
        }
        Ok(())
    }

    /// The tenant `id`.
    pub fn tenant(&self, id: &str) -> Result<&Tenant> {
        self.tenants.get(id)
    }

    /// The policy of tenant `id`.
    pub fn policy(&self, id: &str) -> Result<&CompiledPolicy> {
        Ok(&self.tenants.get(id)?.policy)
    }

    /// Sets the address the approval page is served at (`https://host:port`), for the links
    /// given to agents and the page's own origin check.
    pub fn set_approval_base(&self, base: &str) {
        *self.approval_base.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(base.trim_end_matches('/').to_owned());
    }

    /// The approval page of proposal `id`, when the service knows its own address.
    pub fn approval_url(&self, id: &str) -> Option<String> {
        let base = self.approval_base.lock().unwrap_or_else(|p| p.into_inner());
        base.as_ref().map(|b| format!("{b}/approve/{id}"))
    }

    /// Whether `caller` may see proposal `p`: it belongs to one of the caller's tenants, and
    /// the caller proposed it, reads all of its tenants' (`read_all`), or approves for them.
    pub fn visible(&self, caller: &Caller, p: &Proposal) -> bool {
        caller.serves(&p.tenant)
            && (p.caller == caller.id || caller.has(Scope::ReadAll) || caller.has(Scope::Approve))
    }

    /// The proposal `id` as `caller` may see it: `NOT_FOUND` when it does not exist or is not
    /// the caller's to see.
    pub(crate) fn visible_proposal(
        &self,
        st: &State,
        caller: &Caller,
        id: &str,
    ) -> Result<Proposal> {
        st.store
            .proposal(id)?
            .filter(|p| self.visible(caller, p))
            .ok_or_else(|| Error::NotFound(id.to_owned()))
    }

    /// Appends to the audit log.
    pub(crate) fn audit(&self, st: &mut State, entry: AuditEntry) -> Result<AuditRecord> {
        st.store.append_audit(self.now(), entry)
    }

    /// Moves `p` from `from` to the state it carries, with `audit`: `NOT_CONFIRMABLE` naming
    /// the state another delivery or instance left it in when it was no longer in `from`
    /// (`p` then carries what the store holds).
    pub(crate) fn advance(
        &self,
        p: &mut Proposal,
        from: ProposalState,
        audit: Vec<AuditEntry>,
    ) -> Result<()> {
        match self.store.advance(self.now(), p, from, audit)? {
            Applied::Done => Ok(()),
            Applied::Conflict(_) => {
                if let Some(now) = self.store.proposal(&p.id)? {
                    *p = now;
                }
                Err(Error::NotConfirmable {
                    id: p.id.clone(),
                    state: p.state.as_str().to_owned(),
                })
            }
        }
    }

    /// An audit entry for `caller` doing `kind` about `p`.
    pub(crate) fn entry(
        caller: &Caller,
        kind: AuditKind,
        scopes: &[Scope],
        p: Option<&Proposal>,
    ) -> AuditEntry {
        AuditEntry {
            kind,
            actor: caller.id.clone(),
            caller_type: caller.caller_type,
            scopes: scopes.iter().map(|s| s.as_str().to_owned()).collect(),
            proposal_id: p.map(|p| p.id.clone()),
            intent_hash: p.map(|p| p.intent_hash),
            policy_hash: p.map(|p| p.preview.policy_hash),
            simulation_hash: p.and_then(|p| p.preview.simulation_hash),
            codes: Vec::new(),
            detail: serde_json::Value::Null,
        }
    }

    /// Simulates `intent` on `evm` (the latest state) and decides on it, without signing: the
    /// preview, and the decision a PDR can later be signed for.
    pub(crate) fn assess(
        &self,
        evm: &InProcessEvm,
        id: String,
        intent: &Hashed<Intent>,
        policy: &CompiledPolicy,
    ) -> Result<(Preview, Assessed)> {
        // A client's mistake, refused before anything is simulated.
        if intent.chain_id != evm.chain_id() {
            return Err(Error::WrongChain {
                intent: intent.chain_id,
                chain: evm.chain_id(),
            });
        }
        let simulated = self.timed("simulation", || {
            self.pipeline.simulate(evm, intent.clone(), policy)
        })?;
        let assessed = self.timed("verification", || {
            self.pipeline
                .decide(Evidence::Simulated(simulated), policy, evm.timestamp())
        });
        let report = assessed
            .report()
            .expect("a decision on a simulation has its report");
        let meta = |token: Address| token_meta(evm, token);
        let mut preview = Preview::render(
            id,
            intent,
            report,
            assessed.decision(),
            &meta,
            self.config.max_fee_per_gas,
            self.now() + self.config.proposal_ttl_secs,
        );
        // Valued as the verifier values (its own valuer, through the pipeline).
        preview.outflow_value_wei = assessed
            .outflow_value(policy, &preview.outflows)
            .map(|v| v.to_string());
        Ok((preview, assessed))
    }

    /// `propose(intent)`: simulates and verifies on the latest state and returns the decision
    /// and the preview. With `execute` (scope `unattended`), confirms it at once, recording the
    /// confirmation as unattended.
    pub fn propose(&self, caller: &Caller, intent: Intent, execute: bool) -> Result<Proposed> {
        let options = ProposeOptions {
            execute,
            ..ProposeOptions::default()
        };
        self.propose_with(caller, intent, options)
    }

    /// `propose` with its options: with `execute`, an intent equal (same account, chain and
    /// calls) to one executed or executing within the repeat window is refused
    /// (`DUPLICATE_INTENT`) unless `allow_repeat` says the caller means it.
    pub fn propose_with(
        &self,
        caller: &Caller,
        intent: Intent,
        options: ProposeOptions,
    ) -> Result<Proposed> {
        self.config_current()?;
        let mut st = self.state();
        self.authorize(&mut st, caller, Scope::Propose)?;
        if options.execute {
            self.authorize(&mut st, caller, Scope::Unattended)?;
        }
        let tenant = match self.tenant_for(caller, intent.account) {
            Ok(t) => t,
            Err(e) => {
                self.refuse(&mut st, caller, None, &e)?;
                return Err(e);
            }
        };
        // Hashed once: the id, the simulation, the decision and the proposal use this hash.
        let intent = Hashed::new(intent);
        let id = self.new_id(caller, intent.hash());
        let (st2, assessed) = self.on_latest(st, |source| {
            source
                .latest()
                .and_then(|evm| self.assess(&evm, id.clone(), &intent, &tenant.policy))
        });
        st = st2;
        let (preview, _) = assessed?;
        let now = self.now();
        let mut proposal = Proposal {
            id,
            caller: caller.id.clone(),
            tenant: tenant.id.clone(),
            intent_hash: intent.hash(),
            intent: intent.into_inner(),
            state: if preview.approved {
                ProposalState::Proposed
            } else {
                ProposalState::Rejected
            },
            created_at: now,
            expires_at: preview.expires_at,
            preview,
            pdr: None,
            outcome: None,
        };
        self.metrics.inc("decisions", "");
        if proposal.preview.approved {
            self.metrics.inc("approvals", "");
        }
        for v in &proposal.preview.violations {
            self.metrics.inc("rejections", v.code.as_str());
        }
        let mut entry = Self::entry(
            caller,
            AuditKind::Propose,
            &[Scope::Propose],
            Some(&proposal),
        );
        entry.codes = proposal
            .preview
            .violations
            .iter()
            .map(|v| v.code.as_str().to_owned())
            .collect();
        entry.detail = serde_json::json!({
            "approved": proposal.preview.approved,
            "violations": proposal.preview.violations,
            "preview_hash": proposal.preview.hash(),
            "tenant": proposal.tenant,
        });
        if let Err(e) = caller.admits(&proposal.preview) {
            self.refuse(&mut st, caller, Some(&proposal), &e)?;
            return Err(e);
        }
        // The decision, the claim that reached it and its audit record: one step.
        if let Applied::Conflict(_) = self.store.record_decision(
            now,
            &proposal,
            options.claim.map(|key| (key, self.instance.id.as_str())),
            entry,
        )? {
            return Err(Error::Store(format!(
                "proposal id {} is taken",
                proposal.id
            )));
        }
        let preview_hash = proposal.preview.hash();
        let confirmed = if options.execute && proposal.preview.approved {
            let repeat = if options.allow_repeat {
                Repeat::Allowed
            } else {
                Repeat::Refused
            };
            Some(self.confirm_with(
                st,
                caller,
                &mut proposal,
                ConfirmMode::Unattended,
                repeat,
                ProposalState::Proposed,
            )?)
        } else {
            None
        };
        Ok(Proposed {
            preview: proposal.preview,
            preview_hash,
            confirmed,
        })
    }

    /// The tenant `caller` acts for on `account`; refused when none of its tenants is that
    /// account's.
    pub(crate) fn tenant_for(&self, caller: &Caller, account: Address) -> Result<&Tenant> {
        self.tenants
            .for_account(account, |id| caller.serves(id))
            .ok_or_else(|| {
                Error::Forbidden(format!("{} may not act for account {account}", caller.id))
            })
    }

    /// Admits the operation iff `caller` holds `scope` (I5); a refusal is audited.
    pub(crate) fn authorize(&self, st: &mut State, caller: &Caller, scope: Scope) -> Result<()> {
        caller.require(scope).or_else(|e| {
            self.refuse(st, caller, None, &e)?;
            Err(e)
        })
    }

    /// Records a refusal in the audit log.
    pub(crate) fn refuse(
        &self,
        st: &mut State,
        caller: &Caller,
        p: Option<&Proposal>,
        e: &Error,
    ) -> Result<()> {
        let entry = self.refusal(caller, p, e);
        self.audit(st, entry).map(|_| ())
    }

    /// The audit entry of a refusal (counted).
    pub(crate) fn refusal(&self, caller: &Caller, p: Option<&Proposal>, e: &Error) -> AuditEntry {
        self.metrics.inc("refusals", e.code());
        let mut entry = Self::entry(caller, AuditKind::Refuse, &[], p);
        entry.codes = vec![e.code().to_owned()];
        entry.detail = serde_json::json!({ "message": e.to_string() });
        entry
    }

    /// `status(id)`. On a node, a submitted or uncertain proposal is reconciled against the
    /// chain first (see `restart.rs`); while the node cannot be reached, the answer comes from
    /// the store, marked `stale`.
    pub fn status(&self, caller: &Caller, id: &str) -> Result<Status> {
        if !caller.has(Scope::Read) && !caller.has(Scope::Approve) {
            self.require_audited(caller, Scope::Read)?;
        }
        let st = self.state();
        let mut p = self.visible_proposal(&st, caller, id)?;
        let mut stale = false;
        if st.chain.node().is_some() && p.state.is_unreconciled() {
            match self.reconcile_one(&st, &mut p) {
                Ok(_) => {}
                Err(Error::Chain(_) | Error::Pipeline(_)) => stale = true,
                Err(e) => return Err(e),
            }
        }
        Ok(Status {
            proposal_id: p.id.clone(),
            state: StatusState::of(p.state, p.expires_at, self.now()),
            caller: p.caller.clone(),
            tenant: p.tenant.clone(),
            pdr_digest: p.pdr.as_ref().map(|s| s.digest),
            valid_until: p.pdr.as_ref().map(|s| s.pdr.terms().valid_until),
            tx_hashes: st.store.tx_hashes(&p.id)?,
            outcome: p.outcome,
            stale,
        })
    }

    /// `history`: the latest `limit` proposals the caller may see: its own, or with
    /// `read_all` every one of its tenants'.
    pub fn history(&self, caller: &Caller, limit: u64) -> Result<Vec<Status>> {
        self.require_audited(caller, Scope::Read)?;
        let own = (!caller.has(Scope::ReadAll)).then_some(caller.id.as_str());
        let ids: Vec<String> = self
            .state()
            .store
            .proposals_of(&caller.tenant_list(), own, None, limit.min(1_000))?
            .into_iter()
            .map(|p| p.id)
            .collect();
        ids.iter().map(|id| self.status(caller, id)).collect()
    }

    /// `pending`: the proposals waiting for a human's approval that the caller may see
    /// (scope `read` or `approve`), newest first.
    pub fn pending(&self, caller: &Caller, limit: u64) -> Result<Vec<Proposal>> {
        if !caller.has(Scope::Approve) {
            self.require_audited(caller, Scope::Read)?;
        }
        let wide = caller.has(Scope::ReadAll) || caller.has(Scope::Approve);
        let own = (!wide).then_some(caller.id.as_str());
        let now = self.now();
        Ok(self
            .state()
            .store
            .proposals_of(
                &caller.tenant_list(),
                own,
                Some(ProposalState::AwaitingApproval),
                limit.min(1_000),
            )?
            .into_iter()
            .filter(|p| p.expires_at >= now)
            .collect())
    }

    /// The audit log from sequence `from`, at most `limit` records the caller may see: those
    /// it wrote and those about proposals it may see; with `read_all`, also those written by
    /// callers of its tenants.
    pub fn audit_log(&self, caller: &Caller, from: u64, limit: u64) -> Result<Vec<AuditRecord>> {
        self.require_audited(caller, Scope::Read)?;
        let limit = limit.min(1_000) as usize;
        let st = self.state();
        let mut seen: HashMap<String, Option<bool>> = HashMap::new();
        let mut actors: HashMap<String, bool> = HashMap::new();
        let mut out = Vec::new();
        let mut next = from;
        loop {
            let page = st.store.audit_records(next, 1_000)?;
            let Some(last) = page.last() else { break };
            next = last.seq + 1;
            for r in page {
                // A proposal the store holds decides; an entry about none (or about one
                // refused before it was stored) is its actor's, and its tenants' readers'.
                let about = match &r.entry.proposal_id {
                    Some(id) => match seen.get(id) {
                        Some(v) => *v,
                        None => {
                            let v = st.store.proposal(id)?.map(|p| self.visible(caller, &p));
                            seen.insert(id.clone(), v);
                            v
                        }
                    },
                    None => None,
                };
                let visible = r.entry.actor == caller.id
                    || about.unwrap_or_else(|| {
                        caller.has(Scope::ReadAll)
                            && *actors.entry(r.entry.actor.clone()).or_insert_with(|| {
                                self.tokens
                                    .tenants_of(&r.entry.actor)
                                    .is_some_and(|t| t.iter().any(|t| caller.serves(t)))
                            })
                    });
                if visible {
                    out.push(r);
                    if out.len() >= limit {
                        return Ok(out);
                    }
                }
            }
        }
        Ok(out)
    }

    fn new_id(&self, caller: &Caller, intent_hash: B256) -> String {
        let n = self.ids.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let h = keccak256(format!(
            "{}/{}/{n}/{nanos}/{}",
            caller.id,
            intent_hash,
            std::process::id()
        ));
        format!("p-{}", &h.to_string()[2..26])
    }
}

/// Registers this instance, waiting (once, at most two leases) for the relayer's lease of a
/// previous instance to lapse: a process restarted after `kill -9` finds its predecessor's
/// lease still running.
fn register(
    store: &dyn Store,
    config: &ServiceConfig,
    relayer: Option<Address>,
) -> Result<Instance> {
    match store.register_instance(&config.instance_name, relayer, config.lease) {
        Err(Error::RelayerInUse { for_ms, holder, .. })
            if for_ms <= 2 * u64::try_from(config.lease.ttl.as_millis()).unwrap_or(u64::MAX) =>
        {
            eprintln!(
                "pace serve: waiting {for_ms} ms for the relayer's lease of instance {holder} to \
                 lapse"
            );
            std::thread::sleep(Duration::from_millis(for_ms + 200));
            store.register_instance(&config.instance_name, relayer, config.lease)
        }
        out => out,
    }
}

/// The published document of the grants.
const GRANTS: &str = "grants";
/// The published document of the tenants and their policies.
const TENANTS: &str = "tenants";

/// 32 random bytes from the OS (the approval page's key for its anti-forgery tokens).
fn random_secret() -> B256 {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_err()
    {
        // No OS randomness: a key no one can predict from outside still comes from the
        // clock, the process and the address space.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let here = &bytes as *const _ as usize;
        bytes = keccak256(format!("{nanos}/{}/{here}", std::process::id())).0;
    }
    B256::from(bytes)
}

/// The JSON error response of `e`.
pub fn error_response(e: &Error) -> (u16, String) {
    (e.http_status(), e.to_json().to_string())
}

/// The symbol and decimals of `token` on `evm` (ETH for the zero address).
pub(crate) fn token_meta(evm: &InProcessEvm, token: Address) -> TokenMeta {
    if token == ETH {
        return TokenMeta {
            symbol: "ETH".to_owned(),
            decimals: 18,
        };
    }
    let symbol = evm
        .view_sol(token, &IERC20::symbolCall {})
        .unwrap_or_else(|_| token.to_string());
    let decimals = evm.view_sol(token, &IERC20::decimalsCall {}).unwrap_or(18);
    TokenMeta { symbol, decimals }
}
