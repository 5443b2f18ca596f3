//! `confirm(proposal_id)`: re-check on fresh state, sign only after a recorded confirmation,
//! submit, and report only what the chain showed.

use crate::{
    Error, Result,
    auth::{Caller, Scope},
    chain::StateView,
    lanes,
    preview::Preview,
    service::{Confirmed, Service, State},
    store::{ConfirmMode, Confirmation, Proposal, ProposalState, ReservationState, Store},
};
use alloy_primitives::{Address, I256, U256};
use pace_pipeline::{ExecutionResult, PipelineConfig};
use pace_signer::SignedPdr;
use pace_types::SimulationReport;
use std::sync::MutexGuard;

/// What confirm re-established on fresh state: the simulation of the intent on the latest
/// state, and that state (a fork of the node's latest block, or the world).
pub(crate) struct Fresh<'a> {
    report: SimulationReport,
    latest: StateView<'a>,
}

impl Service {
    /// `confirm(proposal_id, confirm)`: `confirm` must be `true` (a strict boolean: the
    /// caller's "false" never confirms). Records the confirmation, re-simulates and re-verifies
    /// on the latest state, checks the balances (I2) and that the result stayed within the
    /// preview's tolerance, reserves a nonce, signs, submits and returns the outcome.
    pub fn confirm(&self, caller: &Caller, id: &str, confirm: bool) -> Result<Confirmed> {
        let mut st = self.state();
        self.authorize(&mut st, caller, Scope::Confirm)?;
        let mut p = st
            .store
            .proposal(id)?
            .ok_or_else(|| Error::NotFound(id.to_owned()))?;
        if !confirm {
            let e = Error::NotConfirmed(format!("confirm was false for proposal {id}"));
            self.refuse(&mut st, caller, Some(&p), &e)?;
            return Err(e);
        }
        self.confirm_with(st, caller, &mut p, ConfirmMode::Attended)
    }

    /// Confirms `p`: records the confirmation under the lock `st`, re-establishes the
    /// transition on fresh state, then signs and submits under the lock. On a node the fresh
    /// state is read with the lock released, so concurrent requests simulate in parallel over
    /// the shared fork cache; meanwhile `p` stands `confirmed`, so no other confirm of it, or
    /// of an equal intent of the same caller (I6), can start.
    pub(crate) fn confirm_with<'s>(
        &'s self,
        mut st: MutexGuard<'s, State>,
        caller: &Caller,
        p: &mut Proposal,
        mode: ConfirmMode,
    ) -> Result<Confirmed> {
        if let Err(e) = self.check_confirmable(&mut st, p) {
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
        let mut entry = Self::entry(caller, "confirm", &[Scope::Confirm], Some(p));
        entry.detail = serde_json::json!({ "mode": mode, "preview_hash": p.preview.hash() });
        self.audit(&mut st, entry)?;
        let out = match st.chain.node_arc() {
            Some(node) => {
                drop(st);
                let fresh = node.fork_latest().and_then(|fork| {
                    let latest = StateView::Fork(Box::new(fork));
                    self.fresh(&|t, w| node.balance_of(t, w), latest, p, caller)
                });
                st = self.state();
                match fresh.and_then(|f| self.sign(st.store.as_mut(), f, caller, p)) {
                    Err(e) => Err(e),
                    Ok(signed) => {
                        // Sent with the lock released too: receipts of concurrent confirms
                        // are awaited in parallel. Each hash is recorded, under the lock,
                        // before its broadcast; the node client sends one at a time.
                        p.state = ProposalState::Submitted;
                        st.store.put_proposal(p)?;
                        drop(st);
                        let tokens: Vec<_> = p.preview.deltas.iter().map(|d| d.token).collect();
                        let (id, at) = (p.id.clone(), self.now());
                        let mut record = |hash| self.state().store.add_tx_hash(&id, hash, at);
                        let sent = node.submit(&mut record, &signed, &tokens);
                        st = self.state();
                        self.settle(&mut st, caller, p, &signed, sent)
                    }
                }
            }
            None => {
                let State { store, chain } = &mut *st;
                let signed = chain.latest().and_then(|latest| {
                    let f = self.fresh(&|t, w| chain.balance_of(t, w), latest, p, caller)?;
                    self.sign(store.as_mut(), f, caller, p)
                });
                signed.and_then(|signed| self.submit(&mut st, caller, p, &signed))
            }
        };
        out.or_else(|e| {
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

    /// State, expiry and plan-level retry safety (I6).
    fn check_confirmable(&self, st: &mut State, p: &mut Proposal) -> Result<()> {
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
        Ok(())
    }

    /// Pre-state sufficiency (I2, balances from `balance_of`: the chain's latest block, on a
    /// node its own `latest`, never a fork), then a fresh simulation and verification on
    /// `latest`, within the preview's tolerance and the caller's scope.
    fn fresh<'a>(
        &self,
        balance_of: &dyn Fn(Address, Address) -> Result<U256>,
        latest: StateView<'a>,
        p: &Proposal,
        caller: &Caller,
    ) -> Result<Fresh<'a>> {
        let account = p.intent.account;
        for out in &p.preview.outflows {
            let balance = balance_of(out.token, account)?;
            if balance < out.amount {
                return Err(Error::InsufficientBalance {
                    token: out.token,
                    balance,
                    needed: out.amount,
                    shortfall: out.amount - balance,
                });
            }
        }
        let (preview, report) = self.assess(&latest, p.id.clone(), &p.intent)?;
        if !preview.approved {
            let codes: Vec<_> = preview.violations.iter().map(|v| v.code.as_str()).collect();
            return Err(Error::Rejected(codes.join(", ")));
        }
        within_tolerance(&p.preview, &preview, self.config.preview_tolerance_bps)?;
        caller.admits(&preview)?;
        Ok(Fresh { report, latest })
    }

    /// The confirm gate (I1), the durable nonce reservation and the signature, on `fresh`.
    fn sign(
        &self,
        store: &mut dyn Store,
        fresh: Fresh<'_>,
        caller: &Caller,
        p: &mut Proposal,
    ) -> Result<SignedPdr> {
        let Fresh { report, latest } = fresh;
        // I1, the confirm gate: sign only a preview whose confirmation is recorded.
        let confirmed = store.confirmation(&p.id)?;
        if confirmed.map(|c| c.preview_hash) != Some(p.preview.hash()) {
            return Err(Error::NotConfirmed(format!(
                "no recorded confirmation of the preview of {}",
                p.id
            )));
        }

        // The sequence is reserved durably before the PDR is signed.
        let mut reservation =
            lanes::reserve(store, &latest, p.intent.account, &self.config.lanes, &p.id)?;
        let config = PipelineConfig {
            nonce_key: reservation.lane,
            ..self.config.pipeline
        };
        let now = latest.timestamp();
        // The chain must hold the outcome to what was confirmed too, not only to the
        // policy's tolerance around the fresh simulation.
        let confirmed = p.preview.bounds(self.config.preview_tolerance_bps);
        let eval = self.pipeline.decide_confirmed(
            &latest,
            &p.intent,
            &self.policy,
            report,
            now,
            &config,
            &confirmed,
        )?;
        let Some(signed) = eval.record.signed().cloned() else {
            let codes: Vec<_> = eval.decision.codes().map(|c| c.as_str()).collect();
            return Err(Error::Rejected(codes.join(", ")));
        };
        let terms = signed.pdr.terms();
        if terms.sequence != reservation.sequence || terms.key != reservation.lane {
            return Err(Error::Store(format!(
                "signed sequence {}/{} differs from the reservation {}/{}; not submitted",
                terms.key, terms.sequence, reservation.lane, reservation.sequence
            )));
        }
        reservation.state = ReservationState::Signed;
        reservation.digest = Some(signed.digest);
        reservation.valid_until = Some(terms.valid_until);
        store.update_reservation(&reservation)?;
        p.pdr = Some(signed.clone());
        p.state = ProposalState::Signed;
        store.put_proposal(p)?;
        let mut entry = Self::entry(caller, "sign", &[Scope::Confirm], Some(p));
        entry.detail = serde_json::json!({ "pdr": signed });
        store.append_audit(self.now(), entry)?;
        Ok(signed)
    }

    /// Submits the signed PDR of `p` under the lock and records what the chain did (the
    /// embedded world's path; on a node `confirm_with` sends with the lock released).
    fn submit(
        &self,
        st: &mut State,
        caller: &Caller,
        p: &mut Proposal,
        signed: &SignedPdr,
    ) -> Result<Confirmed> {
        // Submit (the embedded world: under the lock, the transaction lands at once).
        p.state = ProposalState::Submitted;
        st.store.put_proposal(p)?;
        let tokens: Vec<_> = p.preview.deltas.iter().map(|d| d.token).collect();
        let at = self.now();
        let State { store, chain } = st;
        let sent = chain.submit(store.as_mut(), &p.id, signed, &tokens, at);
        self.settle(st, caller, p, signed, sent)
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
        self.metrics.inc("submissions", p.state.as_str());
        let mut entry = Self::entry(caller, "outcome", &[Scope::Confirm], Some(p));
        if let ExecutionResult::Reverted { error, .. } = &outcome {
            entry.codes = vec![error.split('(').next().unwrap_or_default().to_owned()];
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
