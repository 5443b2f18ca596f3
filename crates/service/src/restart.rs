//! Start-up reconciliation: on the embedded world, and against a node.
//!
//! The embedded world starts from genesis on every run, so nothing an earlier run signed or
//! sent exists on it: with a persistent store (`--store`), every reservation of an earlier run
//! is dead and every proposal it left confirmed, signed, submitted or uncertain is expired.
//! This runs before the service accepts anything, and each change is audited. On a node the
//! same step reconciles against the chain instead: lane position and `PdrExecuted` logs
//! ([`Service::reconcile`]).

use crate::{
    Error, Result, Service, State,
    audit::{AuditEntry, AuditKind, CallerType},
    store::{Applied, Proposal, ProposalState, Step},
};
use pace_pipeline::ExecutionResult;

impl Service {
    /// Retires what an earlier run of the embedded world left in the store; returns how many
    /// proposals were expired.
    pub(crate) fn reconcile_world_restart(&self) -> Result<usize> {
        self.store.retire_reservations()?;
        let mut expired = 0;
        for state in [
            ProposalState::Confirmed,
            ProposalState::Signed,
            ProposalState::Submitted,
            ProposalState::Uncertain,
        ] {
            for mut p in self.store.proposals_in(state)? {
                p.state = ProposalState::Expired;
                let entry = own_entry(
                    AuditKind::Reconcile,
                    &p,
                    "WORLD_RESTARTED",
                    serde_json::json!({ "was": state, "now": "expired" }),
                );
                if self.store.advance(self.now(), &p, state, vec![entry])? == Applied::Done {
                    expired += 1;
                }
            }
        }
        Ok(expired)
    }
}

impl Service {
    /// Start-up reconciliation: the embedded world's (above), or a node's ([`Self::reconcile`]).
    pub(crate) fn reconcile_restart(&self) -> Result<usize> {
        if self.state().chain.node().is_some() {
            self.reconcile()
        } else {
            self.reconcile_world_restart()
        }
    }

    /// On a node, reconciles every signed, submitted or uncertain proposal against the chain
    /// and returns how many changed state (none on the embedded world). The terminal states:
    ///
    /// - `executed`: the account's lane has passed the PDR's sequence and a `PdrExecuted` log
    ///   for its digest exists (as deep as the configured confirmations);
    /// - `expired`: its `validUntil` lies before the latest block, or the next block is past
    ///   its simulation's freshness limit (`simulationBlock + maxSimulationAge`), and the
    ///   sequence is unused (its reservation is then dead: the sequence may be signed again);
    /// - otherwise a submitted one is `uncertain`, and a signed one never sent stays `signed`
    ///   (shown as expiring).
    ///
    /// Runs at start, before the service accepts anything, and for one proposal whenever its
    /// status is read. Each change is audited.
    ///
    /// On a store shared by several instances every instance reconciles every proposal (each
    /// change is one compare-and-set step: the first instance's stands, the others read it),
    /// and a proposal a dead instance left `confirmed` before signing is reopened for a new
    /// confirm.
    pub fn reconcile(&self) -> Result<usize> {
        let st = self.state();
        if st.chain.node().is_none() {
            return Ok(0);
        }
        drop(st);
        let mut changed = self.reopen_unsigned()?;
        for state in [
            ProposalState::Signed,
            ProposalState::Submitted,
            ProposalState::Uncertain,
        ] {
            for mut p in self.store.proposals_in(state)? {
                let st = self.state();
                changed += usize::from(self.reconcile_one(&st, &mut p)?);
            }
        }
        Ok(changed)
    }

    /// Reconciles `p` against the node (see [`Self::reconcile`]); whether its state changed.
    pub(crate) fn reconcile_one(&self, st: &State, p: &mut Proposal) -> Result<bool> {
        let (Some(node), Some(signed)) = (st.chain.node(), p.pdr.clone()) else {
            return Ok(false);
        };
        let terms = signed.pdr.terms();
        let account = signed.account;
        let txs = st.store.txs(&p.id)?;
        let hashes: Vec<_> = txs.iter().map(|t| t.tx_hash).collect();
        // The block first, then the lane: a lane read after the block is at least as new.
        let latest = node.latest_block()?;
        let next = node.lane_sequence(account, terms.key, signed.kind())?;
        let was = p.state;
        let mut outcome = None;
        let (now, code) = if next > terms.sequence {
            // The contract that took the PDR logs it: the account, or a Safe's module.
            match node.executed_log(signed.sender(), signed.digest, terms.simulation_block)? {
                Some(log)
                    if latest.number + 1 >= log.block_number + node.config().confirmations =>
                {
                    let gas_used = node.receipt(log.tx_hash)?.map_or(0, |r| r.gas_used);
                    if !hashes.contains(&log.tx_hash) {
                        st.store.add_tx_hash(&p.id, log.tx_hash, self.now())?;
                    }
                    outcome = Some(ExecutionResult::Executed {
                        tx_hash: Some(log.tx_hash),
                        gas_used,
                        balance_changes: Vec::new(),
                    });
                    (ProposalState::Executed, "RECONCILED_EXECUTED")
                }
                Some(_) => (ProposalState::Uncertain, "AWAITING_CONFIRMATIONS"),
                None => (ProposalState::Uncertain, "LANE_PASSED_WITHOUT_LOG"),
            }
        } else if let Some(reverted) = reverted_receipt(node, &hashes, latest.number)? {
            // One of its transactions was mined and reverted: their shared relayer nonce is
            // used, so none of the others can land. Reverted, with that receipt (before the
            // window's end is looked at: a replacement mined late that reverted is not
            // "expired").
            outcome = Some(reverted);
            (ProposalState::Reverted, "RECONCILED_REVERTED")
        } else if terms.valid_until < latest.timestamp {
            (ProposalState::Expired, "RECONCILED_EXPIRED")
        } else if crate::confirm::lands_fresh(&terms, latest.number.saturating_add(1)).is_err() {
            // The next block is past the simulation's freshness limit: the account refuses it
            // there and in every block after (`PaceAccountStaleSimulation`).
            (ProposalState::Expired, "RECONCILED_STALE")
        } else if was == ProposalState::Signed && hashes.is_empty() {
            (ProposalState::Signed, "NOT_SENT")
        } else {
            self.keep_sent(st, p, &txs)?;
            (ProposalState::Uncertain, "PENDING")
        };
        if now == was {
            return Ok(false);
        }
        p.state = now;
        if outcome.is_some() {
            p.outcome = outcome;
        }
        let entry = own_entry(
            AuditKind::Reconcile,
            p,
            code,
            serde_json::json!({
                "was": was,
                "now": now,
                "lane": terms.key,
                "sequence": terms.sequence,
                "next_sequence": next,
                "block": latest.number,
                "tx_hashes": hashes,
            }),
        );
        // Expired: its sequence is free again (the reservation, if still its own, is dead).
        let dead = (now == ProposalState::Expired).then_some((account, terms.key, terms.sequence));
        let step = Step {
            dead_reservation: dead,
            audit: vec![entry],
            ..Step::new(self.now()).advance(p, was)
        };
        if let Applied::Conflict(_) = st.store.apply(&step)? {
            // Another delivery or instance reconciled it first: its answer stands.
            if let Some(stored) = st.store.proposal(&p.id)? {
                *p = stored;
            }
            return Ok(false);
        }
        self.metrics.inc("reconciled", now.as_str());
        Ok(true)
    }
}

/// The outcome of the first of `hashes` mined with status 0 at least as deep as the node's
/// confirmations before block `latest`, with its receipt's gas and its revert decoded when the
/// node can replay it.
fn reverted_receipt(
    node: &crate::chain::NodeChain,
    hashes: &[alloy_primitives::B256],
    latest: u64,
) -> Result<Option<ExecutionResult>> {
    for &hash in hashes {
        let Some(r) = node.receipt(hash)? else {
            continue;
        };
        let Some(block) = r.block_number else {
            continue;
        };
        if r.status() || latest + 1 < block + node.config().confirmations {
            continue;
        }
        let outcome = pace_node::TxOutcome::Reverted {
            tx_hash: hash,
            gas_used: r.gas_used,
            block_number: block,
            revert_data: node.revert_data(hash, block),
        };
        return Ok(Some(ExecutionResult::from(outcome)));
    }
    Ok(None)
}

impl Service {
    /// Keeps `p`'s sent transaction alive while it can still land (unless the kill switch
    /// stops fee bumps): when the node knows none of its transactions, the last one is
    /// broadcast again from its signed bytes, unless its relayer nonce is already used by
    /// another transaction (then it is dead, and the PDR expires at its `validUntil` unless it
    /// lands otherwise); when it is pending too long, it is replaced.
    fn keep_sent(&self, st: &State, p: &Proposal, txs: &[crate::store::SentTx]) -> Result<()> {
        if !self.fee_bumps_allowed(st)? {
            return Ok(());
        }
        let (Some(node), Some(last)) = (st.chain.node(), txs.last()) else {
            return Ok(());
        };
        let mut known = false;
        for t in txs {
            if node.knows(t.tx_hash)? {
                known = true;
                break;
            }
        }
        if known {
            return self.replace_if_stuck(st, p);
        }
        if let (Some(sender), Some(nonce)) = (last.sender, last.nonce)
            && node.mined_nonce(sender)? > nonce
        {
            self.metrics.inc("transactions_dead", "");
            return Ok(());
        }
        let Some(raw) = &last.raw else {
            self.metrics.inc("rebroadcasts_skipped", "no signed bytes");
            return Ok(());
        };
        match node.rebroadcast(raw) {
            Ok(()) => {
                self.metrics.inc("rebroadcasts", "");
                let entry = own_entry(
                    AuditKind::Rebroadcast,
                    p,
                    "REBROADCAST",
                    serde_json::json!({ "tx_hash": last.tx_hash, "nonce": last.nonce }),
                );
                st.store.append_audit(self.now(), entry)?;
            }
            Err(e) => self.metrics.inc("rebroadcasts_skipped", e.code()),
        }
        Ok(())
    }

    /// Replaces `p`'s last transaction when it has been pending longer than the node's
    /// `replace_after_secs` (same nonce, fees raised under the cap; the new hash recorded
    /// before its broadcast, and audited). A transaction that cannot be replaced (mined in
    /// the meantime, gone from the pool, at the fee cap) is left as it is.
    /// Only the instance whose relayer sent it replaces a transaction (another instance's
    /// relayer cannot sign for that nonce).
    fn replace_if_stuck(&self, st: &State, p: &Proposal) -> Result<()> {
        let State { store, chain } = st;
        let Some(node) = chain.node() else {
            return Ok(());
        };
        let Some(last) = store.txs(&p.id)?.pop() else {
            return Ok(());
        };
        if last
            .sender
            .is_some_and(|s| Some(s) != self.instance.relayer)
        {
            return Ok(());
        }
        let (last, at) = (last.tx_hash, last.at);
        let now = self.now();
        if now.saturating_sub(at) < node.config().replace_after_secs {
            return Ok(());
        }
        match node.replace(&**store, &p.id, last, now, &self.instance) {
            Ok(new) => {
                self.metrics.inc("replacements", "");
                let entry = own_entry(
                    AuditKind::Replace,
                    p,
                    "REPLACED",
                    serde_json::json!({ "replaced": last, "by": new }),
                );
                store.append_audit(self.now(), entry)?;
            }
            Err(e) => self.metrics.inc("replacements_skipped", e.code()),
        }
        Ok(())
    }
}

impl Service {
    /// On a node: a proposal left `confirmed` by an instance that is gone (the previous
    /// process at start, or on a shared store an instance whose lease lapsed), or by a handler
    /// of this instance that ended without taking it further (the store failed midway), was
    /// never signed (a PDR is recorded before anything is sent), so its confirm died before
    /// signing. It is `proposed` again: the preview can be confirmed (a re-delivered confirm
    /// is handled afresh). A proposal a live instance is confirming is left alone. Returns how
    /// many; each audited.
    fn reopen_unsigned(&self) -> Result<usize> {
        let mut reopened = 0;
        for mut p in self
            .store
            .orphaned(ProposalState::Confirmed, &self.instance.id)?
        {
            let held = self
                .confirming
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(&p.id);
            if p.pdr.is_some() || held {
                continue;
            }
            p.state = ProposalState::Proposed;
            let entry = own_entry(
                AuditKind::Reconcile,
                &p,
                "NOT_SIGNED",
                serde_json::json!({ "was": "confirmed", "now": "proposed" }),
            );
            match self.advance(&mut p, ProposalState::Confirmed, vec![entry]) {
                Ok(()) => reopened += 1,
                Err(Error::NotConfirmable { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(reopened)
    }
}

/// The audit entry of a change the service makes to `p` on its own (reconciling, replacing a
/// transaction): actor `pace-serve`, no scopes, `code` and `detail` saying what changed.
pub(crate) fn own_entry(
    kind: AuditKind,
    p: &Proposal,
    code: &str,
    detail: serde_json::Value,
) -> AuditEntry {
    AuditEntry {
        kind,
        actor: "pace-serve".to_owned(),
        caller_type: CallerType::Agent,
        scopes: Vec::new(),
        proposal_id: Some(p.id.clone()),
        intent_hash: Some(p.intent_hash),
        policy_hash: Some(p.preview.policy_hash),
        simulation_hash: p.preview.simulation_hash,
        codes: vec![code.to_owned()],
        detail,
    }
}
