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
use alloy_primitives::{Address, I256, U256};
use pace_evm::InProcessEvm;
use pace_pipeline::SignedPdr;
use pace_pipeline::{Assessed, ExecutionResult, Nonce};
use pace_types::{Hashed, ViolationCode};
use std::sync::MutexGuard;

/// What confirm re-established on fresh state: the decision on the intent simulated on the
/// latest state, and that state (the embedded world's, or a fork of the node's latest block),
/// whose lane positions the PDR's nonce is reserved from.
pub(crate) struct Fresh {
    assessed: Assessed,
    latest: InProcessEvm,
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
        let mut entry = Self::entry(caller, AuditKind::Confirm, &[Scope::Confirm], Some(p));
        entry.detail = serde_json::json!({ "mode": mode, "preview_hash": p.preview.hash() });
        self.audit(&mut st, entry)?;

        let (st2, fresh) = self.on_latest(st, |latest| self.fresh(latest, p, caller));
        st = st2;
        let out = fresh
            .and_then(|fresh| self.sign(st.store.as_mut(), fresh, caller, p))
            .and_then(|signed| {
                p.state = ProposalState::Submitted;
                st.store.put_proposal(p)?;
                Ok(signed)
            });
        let out = match out {
            Ok(signed) => {
                let tokens: Vec<_> = p.preview.deltas.iter().map(|d| d.token).collect();
                let (st2, sent) = self.send(st, &p.id, &signed, &tokens);
                st = st2;
                self.settle(&mut st, caller, p, &signed, sent)
            }
            Err(e) => Err(e),
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
            Source::World(_) => {
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
        signed: &SignedPdr,
        tokens: &[Address],
    ) -> (MutexGuard<'s, State>, Result<ExecutionResult>) {
        let at = self.now();
        match st.chain.node_arc() {
            Some(node) => {
                drop(st);
                let mut record = |hash| self.state().store.add_tx_hash(id, hash, at);
                let sent = node.submit(&mut record, signed, tokens);
                (self.state(), sent)
            }
            None => {
                let State { store, chain } = &mut *st;
                let sent = chain.submit(store.as_mut(), id, signed, tokens, at);
                (st, sent)
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
        let (preview, assessed) = self.assess(&latest, p.id.clone(), &intent)?;
        if !preview.approved {
            let codes: Vec<ViolationCode> = preview.violations.iter().map(|v| v.code).collect();
            return Err(Error::Rejected(codes));
        }
        within_tolerance(&p.preview, &preview, self.config.preview_tolerance_bps)?;
        caller.admits(&preview)?;
        Ok(Fresh { assessed, latest })
    }

    /// The confirm gate (I1), the durable nonce reservation and the signature, on `fresh`.
    fn sign(
        &self,
        store: &mut dyn Store,
        fresh: Fresh,
        caller: &Caller,
        p: &mut Proposal,
    ) -> Result<SignedPdr> {
        let Fresh { assessed, latest } = fresh;
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
        let mut reservation =
            lanes::reserve(store, &latest, p.intent.account, &self.config.lanes, &p.id)?;
        let nonce = Nonce {
            key: reservation.lane,
            sequence: reservation.sequence,
        };
        // The chain must hold the outcome to what was confirmed too, not only to the
        // policy's tolerance around the fresh simulation.
        let confirmed = p.preview.bounds(self.config.preview_tolerance_bps);
        let signed = self
            .pipeline
            .sign(&assessed, &self.policy, nonce, &confirmed)?;
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
        Ok(signed)
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
