//! `confirm(proposal_id)`: re-check on fresh state, sign only after a recorded confirmation,
//! submit, and report only what the chain showed.

use crate::{
    Error, Result,
    audit::AuditKind,
    auth::{Caller, Scope},
    chain::Source,
    preview::Preview,
    service::{Confirmed, Service, State},
    store::{
        Applied, Charge, ConfirmMode, Confirmation, Proposal, ProposalState, ReservationState,
        SignatureStep, Step,
    },
};
use alloy_primitives::{Address, B256, I256, U256};
use pace_evm::InProcessEvm;
use pace_pipeline::{Assessed, Checked, ExecutionResult, Nonce, SignedPdr};
use pace_types::{Hashed, ViolationCode};
use std::sync::MutexGuard;

/// What confirm re-established on fresh state: the decision on the intent simulated on the
/// latest state, and that state (the embedded world's, or a fork of the node's latest block),
/// whose lane positions the PDR's nonce is reserved from.
pub(crate) struct Fresh {
    assessed: Assessed,
    latest: InProcessEvm,
    preview: Preview,
}

/// Whether an unattended execution may repeat an intent executed within the repeat window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// It may (an attended confirmation, a human's approval, or the caller's `allow_repeat`).
    Allowed,
    /// It may not: `DUPLICATE_INTENT`.
    Refused,
}

/// Gas a submission costs beyond the simulated calls (the account's checks of the PDR), for
/// the relayer budget's estimate before the receipt tells.
const SUBMISSION_OVERHEAD_GAS: u64 = 100_000;

/// Seconds over which approval thresholds and gas budgets accumulate.
pub(crate) const DAY_SECS: u64 = 86_400;

/// How long a step between a signature and its broadcast waits for an unavailable store
/// before nothing is sent: longer than a database restart, shorter than any PDR's window.
const STORE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs the store step `f` again while the store is unavailable, for [`STORE_PATIENCE`]: once a
/// PDR is signed, a short outage delays its broadcast rather than leaving it signed and unsent
/// (its lane skipped) until its window closes. Each step is a compare-and-set or writes once.
fn patiently<T>(mut f: impl FnMut() -> Result<T>) -> Result<T> {
    let until = std::time::Instant::now() + STORE_PATIENCE;
    loop {
        match f() {
            Err(Error::StoreUnavailable(_)) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
            out => return out,
        }
    }
}

impl Service {
    /// `confirm(proposal_id, confirm)`: `confirm` must be `true` (a strict boolean: the
    /// caller's "false" never confirms). Records the confirmation, re-simulates and re-verifies
    /// on the latest state, checks the balances (I2) and that the result stayed within the
    /// preview's tolerance, reserves a nonce, signs, submits and returns the outcome.
    pub fn confirm(&self, caller: &Caller, id: &str, confirm: bool) -> Result<Confirmed> {
        self.confirm_keyed(caller, id, confirm, None)
    }

    /// [`Self::confirm`] for the request claimed with idempotency key `claim`, linked to the
    /// proposal before anything changes. Only a proposal of the caller's tenant, that the
    /// caller may see, can be confirmed.
    pub(crate) fn confirm_keyed(
        &self,
        caller: &Caller,
        id: &str,
        confirm: bool,
        claim: Option<B256>,
    ) -> Result<Confirmed> {
        let mut st = self.state();
        self.authorize(&mut st, caller, Scope::Confirm)?;
        let mut p = self.visible_proposal(&st, caller, id)?;
        if let Some(key) = claim {
            st.store.idempotency_link(key, &self.instance.id, &p.id)?;
        }
        if !confirm {
            let e = Error::NotConfirmed(format!("confirm was false for proposal {id}"));
            self.refuse(&mut st, caller, Some(&p), &e)?;
            return Err(e);
        }
        self.confirm_with(
            st,
            caller,
            &mut p,
            ConfirmMode::Attended,
            Repeat::Allowed,
            ProposalState::Proposed,
        )
    }

    /// Confirms `p`, which must be in state `from` (`proposed`, or `awaiting_approval` for a
    /// human's approval): takes it to `confirmed` with the recorded confirmation in one step
    /// (the step two deliveries, or two instances, race on: one wins, the other is refused
    /// `NOT_CONFIRMABLE`), re-establishes the transition on fresh state, then signs and
    /// submits. One path on the embedded world and on a node; only the locking differs
    /// ([`Self::on_latest`], [`Self::send`]): on a node the fresh state is read and the
    /// submission awaited with the lock released, so concurrent requests simulate in parallel
    /// over the shared fork cache; meanwhile `p` stands `confirmed`, so no other confirm of it,
    /// or of an equal intent of the same caller (I6), can start. When every lane holds a live
    /// PDR, the confirm waits up to [`crate::ServiceConfig::lane_wait`] for one to settle.
    pub(crate) fn confirm_with<'s>(
        &'s self,
        st: MutexGuard<'s, State>,
        caller: &Caller,
        p: &mut Proposal,
        mode: ConfirmMode,
        repeat: Repeat,
        from: ProposalState,
    ) -> Result<Confirmed> {
        // Held while this handler works on it: the periodic reconciliation reopens a
        // proposal this instance left `confirmed` only when no handler holds it (the store
        // failed midway, or a step committed without this instance hearing it).
        let _held = Confirming::new(self, &p.id);
        self.confirm_steps(st, caller, p, mode, repeat, from)
    }

    /// [`Self::confirm_with`]'s steps.
    fn confirm_steps<'s>(
        &'s self,
        mut st: MutexGuard<'s, State>,
        caller: &Caller,
        p: &mut Proposal,
        mode: ConfirmMode,
        repeat: Repeat,
        from: ProposalState,
    ) -> Result<Confirmed> {
        self.config_current()?;
        if let Err(e) = self.check_confirmable(&mut st, p, repeat, from) {
            self.refuse(&mut st, caller, Some(p), &e)?;
            return Err(e);
        }
        // The confirmation is durable before anything is signed (I1's evidence).
        let scope = if mode == ConfirmMode::Human {
            Scope::Approve
        } else {
            Scope::Confirm
        };
        let confirmation = Confirmation {
            proposal_id: p.id.clone(),
            actor: caller.id.clone(),
            mode,
            preview_hash: p.preview.hash(),
            at: self.now(),
        };
        p.state = ProposalState::Confirmed;
        let mut entry = Self::entry(caller, AuditKind::Confirm, &[scope], Some(p));
        entry.detail = serde_json::json!({ "mode": mode, "preview_hash": p.preview.hash() });
        let step = Step {
            owner: Some(self.instance.id.clone()),
            confirmation: Some(confirmation),
            audit: vec![entry],
            ..Step::new(self.now()).advance(p, from)
        };
        if let Applied::Conflict(now) = st.store.apply(&step)? {
            p.state = now.unwrap_or(from);
            // Back in `from` by the time it was read (another delivery confirmed it, and it was
            // reopened since): asked again shortly, as any confirm racing another's.
            let e = if p.state == from {
                Error::InProgress
            } else {
                Error::NotConfirmable {
                    id: p.id.clone(),
                    state: p.state.as_str().to_owned(),
                }
            };
            self.refuse(&mut st, caller, Some(p), &e)?;
            return Err(e);
        }

        let waited_until = std::time::Instant::now() + self.config.lane_wait;
        let signed = loop {
            let (st2, fresh) = self.on_latest(st, |latest| self.fresh(latest, p, caller));
            st = st2;
            let attempt = fresh.and_then(|fresh| {
                // Thresholds and budgets count what is signed: checked first here, and again
                // with the charge in the step that records the signature.
                self.gate(&st, caller, p, mode, &fresh.preview)?;
                let value = fresh.preview.outflow_value();
                self.sign(&st, fresh, caller, p, mode, value)
            });
            match attempt {
                Err(Error::NoFreeLane) if std::time::Instant::now() < waited_until => {
                    drop(st);
                    self.wait_for_lane(waited_until);
                    self.metrics.inc("lane_waits", "");
                    st = self.state();
                }
                other => break other,
            }
        };
        let out = signed.and_then(|signed| {
            p.state = ProposalState::Submitted;
            let mut retried = false;
            patiently(|| {
                let out = self.advance(p, ProposalState::Signed, Vec::new());
                match out {
                    // An earlier attempt committed and its answer was lost.
                    Err(Error::NotConfirmable { .. })
                        if retried && p.state == ProposalState::Submitted =>
                    {
                        Ok(())
                    }
                    out => {
                        retried = true;
                        out
                    }
                }
            })?;
            Ok(signed)
        });
        let out = match out {
            Ok(checked) => {
                let tokens: Vec<_> = p.preview.deltas.iter().map(|d| d.token).collect();
                let (st2, sent) = self.send(st, &p.id, &checked, &tokens);
                st = st2;
                let settled = self.settle(&mut st, caller, p, checked.signed(), sent);
                self.lane_settled();
                settled
            }
            Err(e) => Err(e),
        };
        out.or_else(|e| {
            if let Error::ApprovalRequired { reason, .. } = &e {
                return self.await_approval(&mut st, caller, p, reason.clone());
            }
            // Nothing was signed: the proposal can be confirmed again (the refusal is
            // recorded with the change); a rejection on fresh state is final.
            if p.state == ProposalState::Confirmed {
                p.state = match e {
                    Error::Rejected(_) => ProposalState::Rejected,
                    _ => ProposalState::Proposed,
                };
                let entry = self.refusal(caller, Some(p), &e);
                match self.advance(p, ProposalState::Confirmed, vec![entry.clone()]) {
                    Ok(()) => {}
                    // Moved meanwhile (another instance reopened it while this one was
                    // paused): the refusal is recorded on its own.
                    Err(Error::NotConfirmable { .. }) => {
                        st.store.append_audit(self.now(), entry)?;
                    }
                    // The store is out of reach: reopened once it answers (above).
                    Err(store) => return Err(store),
                }
                return Err(reopened(e, from));
            }
            self.refuse(&mut st, caller, Some(p), &e)?;
            Err(reopened(e, from))
        })
    }

    /// For a delivery run again after its first was cut short: when another delivery took
    /// proposal `id` as far as a signature meanwhile (`e` is `NOT_CONFIRMABLE`), what that
    /// reached, as a replay would have answered; any other `e` as it is.
    pub(crate) fn overtaken(&self, id: &str, e: Error) -> Result<Confirmed> {
        if let Error::NotConfirmable { .. } = e
            && let Some(p) = self.store.proposal(id)?
            && let Some(confirmed) = Confirmed::of(&p)
        {
            return Ok(confirmed);
        }
        Err(e)
    }

    /// Waits until a submission of this instance settles (a lane may be free) or a short
    /// poll interval passes (another instance's may have), at most until `until`.
    fn wait_for_lane(&self, until: std::time::Instant) {
        let (lock, freed) = &self.lane_freed;
        let guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let left = until.saturating_duration_since(std::time::Instant::now());
        let _ = freed.wait_timeout(guard, left.min(std::time::Duration::from_millis(100)));
    }

    /// Wakes the confirms waiting for a lane.
    fn lane_settled(&self) {
        let (lock, freed) = &self.lane_freed;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        freed.notify_all();
    }

    /// Runs `f` on the chain's latest state: on a node with the service's lock released (its
    /// state is fetched through the shared fork cache), on the embedded world under it (the
    /// lock guards the world). The only place, with [`Self::send`], where the two differ.
    pub(crate) fn on_latest<'s, T>(
        &'s self,
        st: MutexGuard<'s, State>,
        f: impl FnOnce(&Source) -> T,
    ) -> (MutexGuard<'s, State>, T) {
        let source = st.chain.source();
        match source {
            Source::Node(_) => {
                drop(st);
                let out = f(&source);
                (self.state(), out)
            }
            Source::World(..) => {
                let out = f(&source);
                (st, out)
            }
        }
    }

    /// Submits `signed` for proposal `id` and waits for the outcome, with the account's
    /// realised changes in `tokens`: on a node with the lock released, each transaction hash
    /// recorded under it before its broadcast (the node client sends one at a time); on the
    /// embedded world under the lock, landing at once. An `Err` means nothing was sent.
    fn send<'s>(
        &'s self,
        mut st: MutexGuard<'s, State>,
        id: &str,
        checked: &Checked,
        tokens: &[Address],
    ) -> (MutexGuard<'s, State>, Result<ExecutionResult>) {
        let at = self.now();
        match st.chain.node_arc() {
            Some(node) => {
                drop(st);
                // A PDR that would land after its window is not sent: it would revert, and
                // the relayer would pay for it.
                let until = checked.signed().pdr.terms().valid_until;
                let landing = self.timed("node", || node.landing_time(0));
                if landing > until {
                    self.metrics.inc("not_sent", "lands_expired");
                    return (
                        self.state(),
                        Err(Error::LandsExpired {
                            valid_until: until,
                            landing,
                        }),
                    );
                }
                // Nor one that would land past its simulation's freshness limit: the account
                // would revert it with `PaceAccountStaleSimulation`.
                let terms = checked.signed().pdr.terms();
                let stale = self
                    .timed("node", || node.landing_block())
                    .and_then(|landing| lands_fresh(&terms, landing));
                if let Err(e) = stale {
                    if matches!(e, Error::LandsStale { .. }) {
                        self.metrics.inc("not_sent", "lands_stale");
                    }
                    return (self.state(), Err(e));
                }
                let mut record = |sent: crate::store::SentTx| {
                    let sent = crate::store::SentTx { at, ..sent };
                    patiently(|| self.store.record_tx(id, &sent, Some(&self.instance)))
                };
                let sent = self.timed("node", || node.submit(&mut record, checked, tokens));
                (self.state(), sent)
            }
            None => {
                let sent = st.chain.submit(checked, tokens);
                (st, sent)
            }
        }
    }

    /// The kill switch, state, expiry, plan-level retry safety (I6) and, for an unattended
    /// execution, the repeat window.
    fn check_confirmable(
        &self,
        st: &mut State,
        p: &mut Proposal,
        repeat: Repeat,
        from: ProposalState,
    ) -> Result<()> {
        let halt = self.halt_state(st)?;
        if halt.halted {
            return Err(Error::Halted(halt.reason));
        }
        if p.state != from {
            return Err(Error::NotConfirmable {
                id: p.id.clone(),
                state: p.state.as_str().to_owned(),
            });
        }
        if self.now() > p.expires_at {
            p.state = ProposalState::Expired;
            self.advance(p, from, Vec::new())?;
            return Err(Error::Expired(p.id.clone()));
        }
        // I6: while an equal intent of the same caller may land (being confirmed, signed,
        // submitted or uncertain), refuse a new one.
        let pending = st
            .store
            .proposals_by_intent(&p.caller, p.intent_hash)?
            .into_iter()
            .find(|other| {
                other.id != p.id
                    && (other.state.is_unreconciled() || other.state == ProposalState::Confirmed)
            });
        if let Some(other) = pending {
            return Err(Error::RetryBlocked(other.id));
        }
        if repeat == Repeat::Refused {
            let since = self.now().saturating_sub(self.config.repeat_window_secs);
            let identity = crate::identity::intent_identity(&p.intent);
            let executed = st
                .store
                .proposals_by_identity(&p.tenant, identity, since)?
                .into_iter()
                .find(|other| {
                    other.id != p.id
                        && (other.state.is_unreconciled()
                            || matches!(
                                other.state,
                                ProposalState::Confirmed
                                    | ProposalState::Executed
                                    | ProposalState::AwaitingApproval
                            ))
                });
            if let Some(other) = executed {
                return Err(Error::DuplicateIntent(other.id));
            }
        }
        Ok(())
    }

    /// The human in the loop and the relayer's budget, before signing: a confirmation that is
    /// not a human's, by a caller with an approval threshold, waits for a human when the value
    /// its confirmations moved in 24 h plus this one's would be above the threshold, or when
    /// this one's cannot be priced (`APPROVAL_REQUIRED`); a transaction that could take the
    /// tenant's relayer spending in 24 h past its budget is refused (`GAS_BUDGET_EXCEEDED`).
    fn gate(
        &self,
        st: &State,
        caller: &Caller,
        p: &Proposal,
        mode: ConfirmMode,
        fresh: &Preview,
    ) -> Result<()> {
        let since = self.now().saturating_sub(DAY_SECS);
        if let (Some(threshold), false) =
            (caller.approval_threshold_wei, mode == ConfirmMode::Human)
        {
            let spent = st.store.charged_since("value", &caller.id, since)?;
            let reason = match fresh.outflow_value() {
                None => Some("an outflow cannot be priced from what the policy trusts".to_owned()),
                Some(v) if spent.saturating_add(v) > threshold => Some(format!(
                    "{v} wei of outflows, after {spent} wei in 24 h, is above {}'s threshold of \
                     {threshold} wei",
                    caller.id
                )),
                Some(_) => None,
            };
            if let Some(reason) = reason {
                return Err(Error::ApprovalRequired {
                    id: p.id.clone(),
                    reason,
                    url: self.approval_url(&p.id),
                });
            }
        }
        let tenant = self.tenant(&p.tenant)?;
        if let Some(budget) = tenant.relayer_budget_wei {
            let spent = st.store.charged_since("gas", &tenant.id, since)?;
            let needed = self.gas_estimate(fresh.gas_used);
            if spent.saturating_add(needed) > budget {
                return Err(Error::GasBudgetExceeded {
                    tenant: tenant.id.clone(),
                    budget,
                    spent,
                    needed,
                });
            }
        }
        Ok(())
    }

    /// The most the relayer pays for a submission whose calls use `gas` (wei, at the fee cap).
    fn gas_estimate(&self, gas: u64) -> U256 {
        U256::from(gas.saturating_add(SUBMISSION_OVERHEAD_GAS))
            * U256::from(self.config.max_fee_per_gas)
    }

    /// What the signature of `p` charges, each with the limit it must stay within: its value
    /// to the caller (not for a human's approval; within the caller's approval threshold),
    /// its estimated gas to the tenant (within its budget).
    fn charges(
        &self,
        caller: &Caller,
        p: &Proposal,
        mode: ConfirmMode,
        value: Option<U256>,
    ) -> Result<Vec<Charge>> {
        let since = self.now().saturating_sub(DAY_SECS);
        let mut out = Vec::new();
        if mode != ConfirmMode::Human
            && let Some(v) = value
        {
            out.push(Charge {
                kind: "value".to_owned(),
                who: caller.id.clone(),
                wei: v,
                limit: caller.approval_threshold_wei.map(|t| (since, t)),
            });
        }
        let tenant = self.tenant(&p.tenant)?;
        out.push(Charge {
            kind: "gas".to_owned(),
            who: p.tenant.clone(),
            wei: self.gas_estimate(p.preview.gas_used),
            limit: tenant.relayer_budget_wei.map(|b| (since, b)),
        });
        Ok(out)
    }

    /// Puts `p` to wait for a human (its confirmation above `caller`'s threshold): nothing is
    /// signed; the wait is audited and `APPROVAL_REQUIRED` returned with the approval page.
    fn await_approval(
        &self,
        st: &mut State,
        caller: &Caller,
        p: &mut Proposal,
        reason: String,
    ) -> Result<Confirmed> {
        let _ = st;
        p.state = ProposalState::AwaitingApproval;
        p.expires_at = p
            .expires_at
            .max(self.now().saturating_add(self.config.approval_ttl_secs));
        self.metrics.inc("approvals_awaited", "");
        let mut entry = Self::entry(caller, AuditKind::AwaitApproval, &[Scope::Confirm], Some(p));
        entry.codes = vec!["APPROVAL_REQUIRED".to_owned()];
        entry.detail = serde_json::json!({
            "reason": reason,
            "outflow_value_wei": p.preview.outflow_value_wei,
            "threshold_wei": caller.approval_threshold_wei.map(|t| t.to_string()),
        });
        self.advance(p, ProposalState::Confirmed, vec![entry])?;
        Err(Error::ApprovalRequired {
            id: p.id.clone(),
            reason,
            url: self.approval_url(&p.id),
        })
    }

    /// Pre-state sufficiency (I2, balances from the chain's latest block, on a node its own
    /// `latest`, never a fork), then a fresh simulation and decision on the latest state,
    /// within the preview's tolerance and the caller's scope.
    fn fresh(&self, source: &Source, p: &Proposal, caller: &Caller) -> Result<Fresh> {
        let account = p.intent.account;
        for out in &p.preview.outflows {
            let balance = self.timed("node", || source.balance_of(out.token, account))?;
            if balance < out.amount {
                return Err(Error::InsufficientBalance {
                    token: out.token,
                    balance,
                    needed: out.amount,
                    shortfall: out.amount - balance,
                });
            }
        }
        let latest = source.latest()?;
        // The one hash of the intent for this confirm.
        let intent = Hashed::new(p.intent.clone());
        let policy = self.policy(&p.tenant)?;
        let (preview, assessed) = self.assess(&latest, p.id.clone(), &intent, policy)?;
        // Pre-flight, on the account as the simulation read it: an account that would refuse
        // any PDR is named before its decision.
        self.preflight(account, assessed.account())?;
        if !preview.approved {
            let codes: Vec<ViolationCode> = preview.violations.iter().map(|v| v.code).collect();
            return Err(Error::Rejected(codes));
        }
        within_tolerance(&p.preview, &preview, self.config.preview_tolerance_bps)?;
        caller.admits(&preview)?;
        Ok(Fresh {
            assessed,
            latest,
            preview,
        })
    }

    /// The confirm gate (I1), the durable nonce reservation, the signature and pass 2 (the
    /// exact signed transaction run on `fresh`'s state), recorded in one step with the charges
    /// and the fencing token (see [`crate::store::SignatureStep`]), on `fresh`. One signature
    /// at a time per instance.
    fn sign(
        &self,
        st: &State,
        fresh: Fresh,
        caller: &Caller,
        p: &mut Proposal,
        mode: ConfirmMode,
        value: Option<U256>,
    ) -> Result<Checked> {
        let Fresh {
            assessed, latest, ..
        } = fresh;
        let store = &*st.store;
        // I1, the confirm gate: sign only a preview whose confirmation is recorded.
        let confirmed = store.confirmation(&p.id)?;
        if confirmed.map(|c| c.preview_hash) != Some(p.preview.hash()) {
            return Err(Error::NotConfirmed(format!(
                "no recorded confirmation of the preview of {}",
                p.id
            )));
        }
        let _one_at_a_time = self.signing.lock().unwrap_or_else(|e| e.into_inner());
        // The sequence is reserved durably before the PDR is signed, on the lane positions of
        // the state the decision was made on.
        let tenant = self.tenant(&p.tenant)?;
        let account = assessed
            .account()
            .ok_or(Error::NoAccountCode(p.intent.account))?;
        let mut reservation = self.reserve(st, &latest, account, &tenant.lanes, &p.id)?;
        let signed = (|| {
            let nonce = Nonce {
                key: reservation.lane,
                sequence: reservation.sequence,
            };
            // The chain must hold the outcome to what was confirmed too, not only to the
            // policy's tolerance around the fresh simulation.
            let confirmed = p.preview.bounds(self.config.preview_tolerance_bps);
            // The account kind's domain (a delegated EOA's set-up salt, read on the same state).
            let route = self.pipeline.route(&latest, &p.intent, &assessed)?;
            // The window opens at the decision (the latest block) and lasts `validity_secs`
            // from when the PDR lands: on a chain idle for longer than the window, a window
            // counted from the latest block would be closed already.
            let landing = self.timed("node", || self.landing_time(st, latest.timestamp()));
            let longer = landing.saturating_sub(latest.timestamp());
            let pipeline = if longer > 0 {
                let mut config = self.config.pipeline;
                config.validity_secs = config.validity_secs.saturating_add(longer);
                std::borrow::Cow::Owned(self.pipeline.clone().with_config(config))
            } else {
                std::borrow::Cow::Borrowed(&self.pipeline)
            };
            let signed = self.timed("signing", || {
                pipeline.sign_on(&assessed, &tenant.policy, nonce, &confirmed, &route)
            })?;
            // Pass 2: the exact signed transaction, on the state it was simulated on.
            let checked = self.timed("simulation", || {
                self.pipeline
                    .preflight(&latest, &tenant.policy, &assessed, &signed)
            })?;
            Ok::<_, Error>((signed, checked))
        })();
        let (signed, checked) = match signed {
            Ok(s) => s,
            Err(e) => {
                let _ = store.release_nonce(&reservation);
                return Err(e);
            }
        };
        let terms = signed.pdr.terms();
        reservation.state = ReservationState::Signed;
        reservation.digest = Some(signed.digest);
        reservation.valid_until = Some(terms.valid_until);
        p.pdr = Some(signed.clone());
        p.state = ProposalState::Signed;
        let mut entry = Self::entry(caller, AuditKind::Sign, &[Scope::Confirm], Some(p));
        entry.detail = serde_json::json!({ "pdr": signed });
        self.fault_point_before_signature(p);
        let recorded = self.charges(caller, p, mode, value).and_then(|charges| {
            store.record_signature(&SignatureStep {
                instance: &self.instance.id,
                reservation: &reservation,
                proposal: p,
                charges,
                audit: entry,
                at: self.now(),
                lease: self.config.lease,
            })
        });
        if let Err(e) = recorded {
            p.pdr = None;
            p.state = ProposalState::Confirmed;
            let _ = store.release_nonce(&reservation);
            if let Error::Fenced(_) = &e {
                self.metrics.inc("fenced", "signature");
            }
            return Err(match e {
                Error::ChargeOverLimit { kind, spent, .. } if kind == "value" => {
                    Error::ApprovalRequired {
                        id: p.id.clone(),
                        reason: format!(
                            "{} wei of outflows, after {spent} wei in 24 h, is above {}'s \
                             threshold",
                            value.unwrap_or_default(),
                            caller.id
                        ),
                        url: self.approval_url(&p.id),
                    }
                }
                Error::ChargeOverLimit { spent, .. } => Error::GasBudgetExceeded {
                    tenant: tenant.id.clone(),
                    budget: tenant.relayer_budget_wei.unwrap_or_default(),
                    spent,
                    needed: self.gas_estimate(p.preview.gas_used),
                },
                e => e,
            });
        }
        Ok(checked)
    }

    /// When a transaction sent now lands: on a node, its pending block's time; on the
    /// embedded world, the next block's (12 s on).
    fn landing_time(&self, st: &State, latest: u64) -> u64 {
        match st.chain.node() {
            Some(node) => node.landing_time(latest),
            None => latest.saturating_add(12),
        }
    }

    /// For the cluster check's paused-signer case (debug builds only): with
    /// `PACE_TEST_STOP_BEFORE_SIGNATURE=MEMO` in its environment, the process stops itself
    /// (`SIGSTOP`) just before it records the signature of an intent whose `memo` is `MEMO`,
    /// as a process paused at the worst moment would; whoever continues it (`SIGCONT`) after
    /// its lane lease lapsed sees that signature refused by the fencing token.
    fn fault_point_before_signature(&self, p: &Proposal) {
        #[cfg(debug_assertions)]
        if let Ok(memo) = std::env::var("PACE_TEST_STOP_BEFORE_SIGNATURE")
            && p.intent.metadata.get("memo") == Some(&memo)
        {
            eprintln!("pace serve: stopping before a signature (test fault point)");
            let _ = std::process::Command::new("kill")
                .args(["-STOP", &std::process::id().to_string()])
                .status();
        }
        #[cfg(not(debug_assertions))]
        let _ = p;
    }

    /// Records what the submission of `p`'s PDR came to (`sent`: an `Err` means nothing was
    /// sent), with the gas the receipt says was paid, in one step.
    fn settle(
        &self,
        st: &mut State,
        caller: &Caller,
        p: &mut Proposal,
        signed: &SignedPdr,
        sent: Result<ExecutionResult>,
    ) -> Result<Confirmed> {
        let _ = st;
        let terms = signed.pdr.terms();
        let outcome = match sent {
            Ok(outcome) => outcome,
            Err(e) => {
                // Nothing was sent: the PDR stays signed (expiring) and its lane is skipped
                // until the window closes.
                p.state = ProposalState::Signed;
                match self.advance(p, ProposalState::Submitted, Vec::new()) {
                    Ok(()) | Err(Error::NotConfirmable { .. }) => {}
                    Err(store) => return Err(store),
                }
                return Err(e);
            }
        };
        // I4: executed only on the transaction's own success.
        p.state = match &outcome {
            ExecutionResult::Executed { .. } => ProposalState::Executed,
            ExecutionResult::Reverted { .. } => ProposalState::Reverted,
            ExecutionResult::Uncertain { .. } => ProposalState::Uncertain,
        };
        p.outcome = Some(outcome.clone());
        let mut charges = Vec::new();
        if let ExecutionResult::Executed { gas_used, .. }
        | ExecutionResult::Reverted { gas_used, .. } = &outcome
        {
            // The receipt's gas at the fee cap: what the relayer paid at most.
            let paid = U256::from(*gas_used) * U256::from(self.config.max_fee_per_gas);
            charges.push(Charge {
                kind: "gas".to_owned(),
                who: p.tenant.clone(),
                wei: paid,
                limit: None,
            });
        }
        let mut entry = Self::entry(caller, AuditKind::Outcome, &[Scope::Confirm], Some(p));
        if let Some(name) = outcome.revert_name() {
            entry.codes = vec![name.to_owned()];
        }
        entry.detail = serde_json::json!({ "state": p.state, "outcome": outcome });
        let step = Step {
            charges,
            audit: vec![entry],
            ..Step::new(self.now()).advance(p, ProposalState::Submitted)
        };
        if let Applied::Conflict(_) = self.store.apply(&step)? {
            // Reconciled meanwhile (by this instance's status, or another instance): what the
            // store holds stands.
            if let Some(now) = self.store.proposal(&p.id)? {
                *p = now;
            }
            return Confirmed::of(p).ok_or_else(|| Error::NotConfirmable {
                id: p.id.clone(),
                state: p.state.as_str().to_owned(),
            });
        }
        self.metrics.inc("submissions", p.state.as_str());
        Ok(Confirmed {
            proposal_id: p.id.clone(),
            state: p.state,
            pdr_digest: signed.digest,
            lane: terms.key,
            sequence: terms.sequence,
            outcome: Some(outcome),
        })
    }
}

/// A proposal one of this instance's handlers is confirming, for as long as it lives.
struct Confirming<'a> {
    service: &'a Service,
    id: String,
}

impl<'a> Confirming<'a> {
    fn new(service: &'a Service, id: &str) -> Self {
        service
            .confirming
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_owned());
        Self {
            service,
            id: id.to_owned(),
        }
    }
}

impl Drop for Confirming<'_> {
    fn drop(&mut self) {
        self.service
            .confirming
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
    }
}

/// `e`, except that a proposal found back in `from` after this confirm took it (another
/// instance reopened it while this one was paused or cut off from the store) is `IN_PROGRESS`:
/// nothing was signed, and the same request asked again confirms it.
fn reopened(e: Error, from: ProposalState) -> Error {
    match e {
        Error::NotConfirmable { state, .. } if state == from.as_str() => Error::InProgress,
        e => e,
    }
}

/// Fails with `PREVIEW_CHANGED` when a token's net change on fresh state moved more than
/// `bps` of the confirmed preview's amount (or a token appears or vanishes).
fn within_tolerance(confirmed: &Preview, fresh: &Preview, bps: u32) -> Result<()> {
    let tokens = confirmed
        .deltas
        .iter()
        .chain(&fresh.deltas)
        .map(|d| d.token);
    for token in tokens {
        let (was, now) = (confirmed.delta_of(token), fresh.delta_of(token));
        let moved = (now - was).unsigned_abs();
        let allowed = was.unsigned_abs() * U256::from(bps) / U256::from(10_000u64);
        if moved > allowed || (was == I256::ZERO) != (now == I256::ZERO) {
            return Err(Error::PreviewChanged(format!(
                "token {token}: previewed {was}, now {now} (tolerance {bps} bps of the preview)"
            )));
        }
    }
    Ok(())
}

/// `Ok` when a PDR of `terms` landing in block `landing` is within its simulation's freshness
/// limit (`simulationBlock + maxSimulationAge`, as the account checks it: an age of 0 lands
/// only in the simulated block), else [`Error::LandsStale`].
pub(crate) fn lands_fresh(terms: &pace_types::pdr::PdrTerms, landing: u64) -> Result<()> {
    let limit = terms
        .simulation_block
        .saturating_add(u64::from(terms.max_simulation_age));
    if landing <= limit {
        return Ok(());
    }
    Err(Error::LandsStale {
        simulation_block: terms.simulation_block,
        max_age: terms.max_simulation_age,
        landing_block: landing,
    })
}

#[cfg(test)]
mod freshness_tests {
    use super::*;

    #[test]
    fn a_pdr_landing_past_its_simulations_age_is_not_sent() {
        let terms = pace_types::pdr::PdrTerms {
            simulation_block: 100,
            max_simulation_age: 5,
            ..Default::default()
        };
        assert!(lands_fresh(&terms, 101).is_ok());
        assert!(
            lands_fresh(&terms, 105).is_ok(),
            "the last block the account accepts"
        );
        assert!(matches!(
            lands_fresh(&terms, 106),
            Err(Error::LandsStale {
                simulation_block: 100,
                max_age: 5,
                landing_block: 106
            })
        ));
        let same_block = pace_types::pdr::PdrTerms {
            max_simulation_age: 0,
            ..terms
        };
        assert!(lands_fresh(&same_block, 100).is_ok());
        assert!(
            lands_fresh(&same_block, 101).is_err(),
            "an age of 0 is the simulated block only, as the account reads it"
        );
    }
}
