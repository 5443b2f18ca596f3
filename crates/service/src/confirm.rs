//! `confirm(proposal_id)`: re-check on fresh state, sign only after a recorded confirmation,
//! submit, and report only what the chain showed.

use crate::{
    Error, Result,
    audit::AuditKind,
    auth::{Caller, Scope},
    chain::Source,
    lanes,
    preview::Preview,
    service::{Confirmed, Service, State},
    store::{ConfirmMode, Confirmation, Proposal, ProposalState, ReservationState, Store},
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
            st.store.idempotency_link(key, &p.id)?;
        }
        if !confirm {
            let e = Error::NotConfirmed(format!("confirm was false for proposal {id}"));
            self.refuse(&mut st, caller, Some(&p), &e)?;
            return Err(e);
        }
        self.confirm_with(st, caller, &mut p, ConfirmMode::Attended, Repeat::Allowed)
    }

    /// Confirms `p`: records the confirmation under the lock `st`, re-establishes the
    /// transition on fresh state, then signs and submits. One path on the embedded world and
    /// on a node; only the locking differs ([`Self::on_latest`], [`Self::send`]): on a node
    /// the fresh state is read and the submission awaited with the lock released, so
    /// concurrent requests simulate in parallel over the shared fork cache; meanwhile `p`
    /// stands `confirmed`, so no other confirm of it, or of an equal intent of the same caller
    /// (I6), can start.
    pub(crate) fn confirm_with<'s>(
        &'s self,
        mut st: MutexGuard<'s, State>,
        caller: &Caller,
        p: &mut Proposal,
        mode: ConfirmMode,
        repeat: Repeat,
    ) -> Result<Confirmed> {
        if let Err(e) = self.check_confirmable(&mut st, p, repeat) {
            self.refuse(&mut st, caller, Some(p), &e)?;
            return Err(e);
        }
        // The confirmation is durable before anything is signed (I1's evidence).
        st.store.record_confirmation(&Confirmation {
            proposal_id: p.id.clone(),
            actor: caller.id.clone(),
            mode,
            preview_hash: p.preview.hash(),
            at: self.now(),
        })?;
        p.state = ProposalState::Confirmed;
        st.store.put_proposal(p)?;
        let scope = if mode == ConfirmMode::Human {
            Scope::Approve
        } else {
            Scope::Confirm
        };
        let mut entry = Self::entry(caller, AuditKind::Confirm, &[scope], Some(p));
        entry.detail = serde_json::json!({ "mode": mode, "preview_hash": p.preview.hash() });
        self.audit(&mut st, entry)?;

        let (st2, fresh) = self.on_latest(st, |latest| self.fresh(latest, p, caller));
        st = st2;
        let out = fresh
            .and_then(|fresh| {
                // Under the lock again: thresholds and budgets count what is signed.
                self.gate(&st, caller, p, mode, &fresh.preview)?;
                let value = fresh.preview.outflow_value();
                let signed = self.sign(st.store.as_mut(), fresh, caller, p)?;
                self.charge_signed(&mut st, caller, p, mode, value)?;
                Ok(signed)
            })
            .and_then(|signed| {
                p.state = ProposalState::Submitted;
                st.store.put_proposal(p)?;
                Ok(signed)
            });
        let out = match out {
            Ok(checked) => {
                let tokens: Vec<_> = p.preview.deltas.iter().map(|d| d.token).collect();
                let (st2, sent) = self.send(st, &p.id, &checked, &tokens);
                st = st2;
                self.settle(&mut st, caller, p, checked.signed(), sent)
            }
            Err(e) => Err(e),
        };
        out.or_else(|e| {
            if let Error::ApprovalRequired { reason, .. } = &e {
                return self.await_approval(&mut st, caller, p, reason.clone());
            }
            // Nothing was signed: the proposal can be confirmed again (the refusal is
            // recorded); a rejection on fresh state is final.
            if p.state == ProposalState::Confirmed {
                p.state = match e {
                    Error::Rejected(_) => ProposalState::Rejected,
                    _ => ProposalState::Proposed,
                };
                st.store.put_proposal(p)?;
            }
            self.refuse(&mut st, caller, Some(p), &e)?;
            Err(e)
        })
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
                let mut record = |sent: crate::store::SentTx| {
                    let sent = crate::store::SentTx { at, ..sent };
                    self.state().store.add_tx(id, &sent)
                };
                let sent = node.submit(&mut record, checked, tokens);
                (self.state(), sent)
            }
            None => {
                let State { store, chain } = &mut *st;
                let sent = chain.submit(store.as_mut(), id, checked, tokens, at);
                (st, sent)
            }
        }
    }

    /// The kill switch, state, expiry, plan-level retry safety (I6) and, for an unattended
    /// execution, the repeat window.
    fn check_confirmable(&self, st: &mut State, p: &mut Proposal, repeat: Repeat) -> Result<()> {
        let halt = self.halt_state(st)?;
        if halt.halted {
            return Err(Error::Halted(halt.reason));
        }
        if p.state != ProposalState::Proposed {
            return Err(Error::NotConfirmable {
                id: p.id.clone(),
                state: p.state.as_str().to_owned(),
            });
        }
        if self.now() > p.expires_at {
            p.state = ProposalState::Expired;
            st.store.put_proposal(p)?;
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

    /// Charges what was just signed: its value to the caller (not for a human's approval),
    /// its estimated gas to the tenant.
    fn charge_signed(
        &self,
        st: &mut State,
        caller: &Caller,
        p: &Proposal,
        mode: ConfirmMode,
        value: Option<U256>,
    ) -> Result<()> {
        let now = self.now();
        if mode != ConfirmMode::Human
            && let Some(v) = value
        {
            st.store.charge(&p.id, "value", &caller.id, now, v)?;
        }
        let needed = self.gas_estimate(p.preview.gas_used);
        st.store.charge(&p.id, "gas", &p.tenant, now, needed)
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
        p.state = ProposalState::AwaitingApproval;
        p.expires_at = p
            .expires_at
            .max(self.now().saturating_add(self.config.approval_ttl_secs));
        st.store.put_proposal(p)?;
        self.metrics.inc("approvals_awaited", "");
        let mut entry = Self::entry(caller, AuditKind::AwaitApproval, &[Scope::Confirm], Some(p));
        entry.codes = vec!["APPROVAL_REQUIRED".to_owned()];
        entry.detail = serde_json::json!({
            "reason": reason,
            "outflow_value_wei": p.preview.outflow_value_wei,
            "threshold_wei": caller.approval_threshold_wei.map(|t| t.to_string()),
        });
        self.audit(st, entry)?;
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
            let balance = source.balance_of(out.token, account)?;
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
    /// exact signed transaction run on `fresh`'s state), on `fresh`.
    fn sign(
        &self,
        store: &mut dyn Store,
        fresh: Fresh,
        caller: &Caller,
        p: &mut Proposal,
    ) -> Result<Checked> {
        let Fresh {
            assessed, latest, ..
        } = fresh;
        // I1, the confirm gate: sign only a preview whose confirmation is recorded.
        let confirmed = store.confirmation(&p.id)?;
        if confirmed.map(|c| c.preview_hash) != Some(p.preview.hash()) {
            return Err(Error::NotConfirmed(format!(
                "no recorded confirmation of the preview of {}",
                p.id
            )));
        }

        // The sequence is reserved durably before the PDR is signed, on the lane positions of
        // the state the decision was made on.
        let tenant = self.tenant(&p.tenant)?;
        let account = assessed
            .account()
            .ok_or(Error::NoAccountCode(p.intent.account))?;
        let mut reservation = lanes::reserve(store, &latest, account, &tenant.lanes, &p.id)?;
        let nonce = Nonce {
            key: reservation.lane,
            sequence: reservation.sequence,
        };
        // The chain must hold the outcome to what was confirmed too, not only to the
        // policy's tolerance around the fresh simulation.
        let confirmed = p.preview.bounds(self.config.preview_tolerance_bps);
        // The account kind's domain (a delegated EOA's set-up salt, read on the same state).
        let route = self.pipeline.route(&latest, &p.intent, &assessed)?;
        let signed = self
            .pipeline
            .sign_on(&assessed, &tenant.policy, nonce, &confirmed, &route)?;
        // Pass 2: the exact signed transaction, on the state it was simulated on.
        let checked = self
            .pipeline
            .preflight(&latest, &tenant.policy, &assessed, &signed)?;
        let terms = signed.pdr.terms();
        reservation.state = ReservationState::Signed;
        reservation.digest = Some(signed.digest);
        reservation.valid_until = Some(terms.valid_until);
        store.update_reservation(&reservation)?;
        p.pdr = Some(signed.clone());
        p.state = ProposalState::Signed;
        store.put_proposal(p)?;
        let mut entry = Self::entry(caller, AuditKind::Sign, &[Scope::Confirm], Some(p));
        entry.detail = serde_json::json!({ "pdr": signed });
        store.append_audit(self.now(), entry)?;
        Ok(checked)
    }

    /// Records what the submission of `p`'s PDR came to (`sent`: an `Err` means nothing was
    /// sent).
    fn settle(
        &self,
        st: &mut State,
        caller: &Caller,
        p: &mut Proposal,
        signed: &SignedPdr,
        sent: Result<ExecutionResult>,
    ) -> Result<Confirmed> {
        let terms = signed.pdr.terms();
        let outcome = match sent {
            Ok(outcome) => outcome,
            Err(e) => {
                // Nothing was sent: the PDR stays signed (expiring) and its lane is skipped
                // until the window closes.
                p.state = ProposalState::Signed;
                st.store.put_proposal(p)?;
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
        st.store.put_proposal(p)?;
        if let ExecutionResult::Executed { gas_used, .. }
        | ExecutionResult::Reverted { gas_used, .. } = &outcome
        {
            // The receipt's gas at the fee cap: what the relayer paid at most.
            let paid = U256::from(*gas_used) * U256::from(self.config.max_fee_per_gas);
            st.store.charge(&p.id, "gas", &p.tenant, self.now(), paid)?;
        }
        self.metrics.inc("submissions", p.state.as_str());
        let mut entry = Self::entry(caller, AuditKind::Outcome, &[Scope::Confirm], Some(p));
        if let Some(name) = outcome.revert_name() {
            entry.codes = vec![name.to_owned()];
        }
        entry.detail = serde_json::json!({ "state": p.state, "outcome": outcome });
        self.audit(st, entry)?;
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
