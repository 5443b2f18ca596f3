//! `confirm(proposal_id)`: re-check on fresh state, sign only after a recorded confirmation,
//! submit, and report only what the chain showed.

use crate::{
    Error, Result,
    auth::{Caller, Scope},
    lanes,
    preview::Preview,
    service::{Confirmed, Service, State},
    store::{ConfirmMode, Confirmation, Proposal, ProposalState, ReservationState},
};
use alloy_primitives::{I256, U256};
use pace_pipeline::{ExecutionResult, PipelineConfig};

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
        self.confirm_locked(&mut st, caller, &mut p, ConfirmMode::Attended)
    }

    /// Confirms `p` under the lock.
    pub(crate) fn confirm_locked(
        &self,
        st: &mut State,
        caller: &Caller,
        p: &mut Proposal,
        mode: ConfirmMode,
    ) -> Result<Confirmed> {
        match self.check_confirmable(st, p) {
            Ok(()) => {}
            Err(e) => {
                self.refuse(st, caller, Some(p), &e)?;
                return Err(e);
            }
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
        self.audit(st, entry)?;
        match self.sign_and_submit(st, caller, p) {
            Ok(done) => Ok(done),
            Err(e) => {
                // Nothing was signed: the proposal can be confirmed again (the refusal is
                // recorded); a rejection on fresh state is final.
                if p.state == ProposalState::Confirmed {
                    p.state = match e {
                        Error::Rejected(_) => ProposalState::Rejected,
                        _ => ProposalState::Proposed,
                    };
                    st.store.put_proposal(p)?;
                }
                self.refuse(st, caller, Some(p), &e)?;
                Err(e)
            }
        }
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
        // I6: while an equal intent of the same caller may have landed, refuse a new one.
        let pending = st
            .store
            .proposals_by_intent(&p.caller, p.intent_hash)?
            .into_iter()
            .find(|other| other.id != p.id && other.state.is_unreconciled());
        if let Some(other) = pending {
            return Err(Error::RetryBlocked(other.id));
        }
        Ok(())
    }

    /// Pre-state sufficiency (I2), fresh re-simulation and verification, the tolerance check,
    /// the confirm gate (I1), the nonce reservation, signing and submission.
    fn sign_and_submit(
        &self,
        st: &mut State,
        caller: &Caller,
        p: &mut Proposal,
    ) -> Result<Confirmed> {
        // I2: the balances on the chain's latest block (a node's own `latest`, not a fork)
        // cover every previewed outflow.
        let account = p.intent.account;
        for out in &p.preview.outflows {
            let balance = st.chain.balance_of(out.token, account)?;
            if balance < out.amount {
                return Err(Error::InsufficientBalance {
                    token: out.token,
                    balance,
                    needed: out.amount,
                    shortfall: out.amount - balance,
                });
            }
        }
        // Fresh simulation and verification on the latest state.
        let latest = st.chain.latest()?;
        let now = latest.timestamp();
        let (fresh, report) = self.assess(&latest, p.id.clone(), &p.intent)?;
        if !fresh.approved {
            let codes: Vec<_> = fresh.violations.iter().map(|v| v.code.as_str()).collect();
            return Err(Error::Rejected(codes.join(", ")));
        }
        within_tolerance(&p.preview, &fresh, self.config.preview_tolerance_bps)?;
        caller.admits(&fresh)?;

        // I1, the confirm gate: sign only a preview whose confirmation is recorded.
        let confirmed = st.store.confirmation(&p.id)?;
        if confirmed.map(|c| c.preview_hash) != Some(p.preview.hash()) {
            return Err(Error::NotConfirmed(format!(
                "no recorded confirmation of the preview of {}",
                p.id
            )));
        }

        // The sequence is reserved durably before the PDR is signed.
        let mut reservation = lanes::reserve(
            st.store.as_mut(),
            &latest,
            account,
            &self.config.lanes,
            &p.id,
        )?;
        let config = PipelineConfig {
            nonce_key: reservation.lane,
            ..self.config.pipeline
        };
        let eval = self
            .pipeline
            .decide(&latest, &p.intent, &self.policy, report, now, &config)?;
        drop(latest);
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
        st.store.update_reservation(&reservation)?;
        p.pdr = Some(signed.clone());
        p.state = ProposalState::Signed;
        st.store.put_proposal(p)?;
        let mut entry = Self::entry(caller, "sign", &[Scope::Confirm], Some(p));
        entry.detail = serde_json::json!({ "pdr": signed });
        self.audit(st, entry)?;

        // Submit: on a node, each transaction hash is recorded before its broadcast.
        p.state = ProposalState::Submitted;
        st.store.put_proposal(p)?;
        let tokens: Vec<_> = p.preview.deltas.iter().map(|d| d.token).collect();
        let at = self.now();
        let State { store, chain } = st;
        let outcome = match chain.submit(store.as_mut(), &p.id, &signed, &tokens, at) {
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
