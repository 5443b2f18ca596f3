//! The service core: propose, confirm, status, history, over the pipeline on one chain.
//!
//! Every operation takes an authenticated [`Caller`] and checks its scope first (I5). State
//! lives in a [`Store`]; the chain and the store sit behind one lock, so operations of one
//! instance are serialised (the PDR nonce lanes make several instances safe, see
//! [`crate::lanes`]).

use crate::{
    Error, Result,
    audit::{AuditEntry, AuditKind, AuditRecord},
    auth::{ApiTokens, Caller, Scope},
    chain::ServiceChain,
    metrics::Metrics,
    preview::{Preview, TokenMeta},
    store::{IdemBegin, Proposal, ProposalState, Store, StoredResponse},
};
use alloy_primitives::{Address, B256, keccak256};
use pace_abi::bindings::IERC20;
use pace_evm::InProcessEvm;
use pace_pipeline::{Assessed, Evidence, Pipeline, PipelineConfig};
use pace_types::{CompiledPolicy, ETH, Hashed, Intent};
use serde::{Deserialize, Serialize};
use std::sync::{
    Mutex, MutexGuard,
    atomic::{AtomicU64, Ordering},
};

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
    /// Seconds a recorded response is replayed to a duplicate request (I7).
    pub idempotency_window_secs: u64,
    /// The fee cap per gas the relayer pays, in wei.
    pub max_fee_per_gas: u64,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        Self {
            pipeline: PipelineConfig::default(),
            lanes: vec![0, 1, 2, 3],
            proposal_ttl_secs: 300,
            preview_tolerance_bps: 50,
            idempotency_window_secs: 30,
            max_fee_per_gas: 50_000_000_000,
        }
    }
}

/// The chain and the store, behind the service's lock.
pub struct State {
    /// The durable state.
    pub store: Box<dyn Store>,
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
    /// The signed PDR's digest.
    pub pdr_digest: Option<B256>,
    /// The signed PDR's `validUntil`.
    pub valid_until: Option<u64>,
    /// Every transaction hash sent for it.
    pub tx_hashes: Vec<B256>,
    /// What the chain did (the decoded error of a revert).
    pub outcome: Option<pace_pipeline::ExecutionResult>,
}

/// The service.
pub struct Service {
    pub(crate) pipeline: Pipeline,
    pub(crate) policy: CompiledPolicy,
    pub(crate) config: ServiceConfig,
    tokens: ApiTokens,
    pub(crate) metrics: Metrics,
    state: Mutex<State>,
    ids: AtomicU64,
    clock_offset: AtomicU64,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("verifier", &self.pipeline.verifier())
            .finish_non_exhaustive()
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
        if config.lanes.is_empty() {
            return Err(Error::Config(
                "an instance needs at least one nonce lane".into(),
            ));
        }
        let service = Self {
            pipeline: pipeline.with_config(config.pipeline),
            policy,
            config,
            tokens,
            metrics: Metrics::default(),
            state: Mutex::new(State {
                store,
                chain: chain.into(),
            }),
            ids: AtomicU64::new(0),
            clock_offset: AtomicU64::new(0),
        };
        // Before accepting anything: what an earlier run left is reconciled, and the requests
        // it was handling when it stopped may be delivered again.
        service.reconcile_restart()?;
        service.state().store.release_in_flight()?;
        Ok(service)
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

    /// The counters.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The verifier address PDRs are signed by.
    pub fn verifier(&self) -> Address {
        self.pipeline.verifier()
    }

    /// Authenticates the bearer `secret` (I5: who is calling).
    pub fn authenticate(&self, secret: Option<&str>) -> Result<Caller> {
        self.tokens.authenticate(secret, self.now())
    }

    /// Appends to the audit log.
    pub(crate) fn audit(&self, st: &mut State, entry: AuditEntry) -> Result<AuditRecord> {
        st.store.append_audit(self.now(), entry)
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
    ) -> Result<(Preview, Assessed)> {
        let simulated = self.pipeline.simulate(evm, intent.clone(), &self.policy)?;
        let assessed = self.pipeline.decide(
            Evidence::Simulated(simulated),
            &self.policy,
            evm.timestamp(),
        );
        let report = assessed
            .report()
            .expect("a decision on a simulation has its report");
        let meta = |token: Address| token_meta(evm, token);
        let preview = Preview::render(
            id,
            intent,
            report,
            assessed.decision(),
            &meta,
            self.config.max_fee_per_gas,
            self.now() + self.config.proposal_ttl_secs,
        );
        Ok((preview, assessed))
    }

    /// `propose(intent)`: simulates and verifies on the latest state and returns the decision
    /// and the preview. With `execute` (scope `unattended`), confirms it at once, recording the
    /// confirmation as unattended.
    pub fn propose(&self, caller: &Caller, intent: Intent, execute: bool) -> Result<Proposed> {
        let mut st = self.state();
        self.authorize(&mut st, caller, Scope::Propose)?;
        if execute {
            self.authorize(&mut st, caller, Scope::Unattended)?;
        }
        // Hashed once: the id, the simulation, the decision and the proposal use this hash.
        let intent = Hashed::new(intent);
        let id = self.new_id(caller, intent.hash());
        let (st2, assessed) = self.on_latest(st, |source| {
            source
                .latest()
                .and_then(|evm| self.assess(&evm, id.clone(), &intent))
        });
        st = st2;
        let (preview, _) = assessed?;
        let now = self.now();
        let mut proposal = Proposal {
            id,
            caller: caller.id.clone(),
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
        });
        if let Err(e) = caller.admits(&proposal.preview) {
            self.refuse(&mut st, caller, Some(&proposal), &e)?;
            return Err(e);
        }
        st.store.put_proposal(&proposal)?;
        self.audit(&mut st, entry)?;
        let preview_hash = proposal.preview.hash();
        let confirmed = if execute && proposal.preview.approved {
            Some(self.confirm_with(
                st,
                caller,
                &mut proposal,
                crate::store::ConfirmMode::Unattended,
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
        self.metrics.inc("refusals", e.code());
        let mut entry = Self::entry(caller, AuditKind::Refuse, &[], p);
        entry.codes = vec![e.code().to_owned()];
        entry.detail = serde_json::json!({ "message": e.to_string() });
        self.audit(st, entry).map(|_| ())
    }

    /// `status(id)`. On a node, a submitted or uncertain proposal is reconciled against the
    /// chain first (see `restart.rs`).
    pub fn status(&self, caller: &Caller, id: &str) -> Result<Status> {
        caller.require(Scope::Read)?;
        let mut st = self.state();
        let mut p = st
            .store
            .proposal(id)?
            .ok_or_else(|| Error::NotFound(id.to_owned()))?;
        if st.chain.node().is_some() && p.state.is_unreconciled() {
            self.reconcile_one(&mut st, &mut p)?;
        }
        Ok(Status {
            proposal_id: p.id.clone(),
            state: StatusState::of(p.state, p.expires_at, self.now()),
            caller: p.caller.clone(),
            pdr_digest: p.pdr.as_ref().map(|s| s.digest),
            valid_until: p.pdr.as_ref().map(|s| s.pdr.terms().valid_until),
            tx_hashes: st.store.tx_hashes(&p.id)?,
            outcome: p.outcome,
        })
    }

    /// `history`: the latest `limit` proposals (all callers').
    pub fn history(&self, caller: &Caller, limit: u64) -> Result<Vec<Status>> {
        caller.require(Scope::Read)?;
        let ids: Vec<String> = self
            .state()
            .store
            .proposals(None, limit.min(1_000))?
            .into_iter()
            .map(|p| p.id)
            .collect();
        ids.iter().map(|id| self.status(caller, id)).collect()
    }

    /// The audit log from sequence `from`, at most `limit` records.
    pub fn audit_log(&self, caller: &Caller, from: u64, limit: u64) -> Result<Vec<AuditRecord>> {
        caller.require(Scope::Read)?;
        self.state().store.audit_records(from, limit.min(1_000))
    }

    /// Handles a request at most once per window (I7): the key is
    /// `H(caller, operation, request bytes)`; a duplicate within the window gets the recorded
    /// response, verbatim. `handle` returns the HTTP status and JSON body.
    pub fn idempotent(
        &self,
        caller: &Caller,
        op: &str,
        request: &[u8],
        handle: impl FnOnce() -> (u16, String),
    ) -> (u16, String) {
        let mut bytes = b"PACE-RS/idempotency/v1\n".to_vec();
        for part in [caller.id.as_bytes(), op.as_bytes(), request] {
            bytes.extend_from_slice(&(part.len() as u64).to_be_bytes());
            bytes.extend_from_slice(part);
        }
        let key = keccak256(bytes);
        let window = self.config.idempotency_window_secs;
        // The gate of I7: a duplicate within the window is answered from the record.
        let begin = self
            .state()
            .store
            .idempotency_begin(key, self.now(), window);
        match begin {
            Ok(IdemBegin::Replay(r)) => {
                self.metrics.inc("idempotent_replays", "");
                (r.status, r.body)
            }
            Ok(IdemBegin::InFlight) => error_response(&Error::InProgress),
            Err(e) => error_response(&e),
            Ok(IdemBegin::Fresh) => {
                let (status, body) = handle();
                let stored = StoredResponse {
                    status,
                    body: body.clone(),
                };
                if let Err(e) = self.state().store.idempotency_finish(key, &stored) {
                    return error_response(&e);
                }
                (status, body)
            }
        }
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
