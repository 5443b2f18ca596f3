//! Nonce lanes: a sequence is reserved durably before a PDR is signed for it.
//!
//! The account's nonces are `key << 64 | sequence`, each key a lane executed in strict
//! sequence. A tenant's lanes are shared by every instance serving it; an instance signs on a
//! lane only under a lease on it, taken in the store (timed by the store's clock) with a
//! fencing token that the signature's own step checks ([`crate::store::SignatureStep`]). For a
//! PDR it takes the first lane whose lease it holds or can take and whose next on-chain
//! sequence is free: not reserved, or held by a reservation the chain shows dead (never
//! signed, or signed with a `validUntil` before the latest block while the lane still stands
//! at that sequence, the holder then superseded and audited). A lane whose next sequence is
//! held by a live PDR is skipped, so a signed PDR never blocks its lane unnoticed and a
//! sequence is never signed twice while the first signature can still execute. A lane whose
//! lease another instance let lapse is taken over after that instance's unsettled proposals
//! on it are reconciled against the chain.

use crate::{
    Error, Result, Service, State,
    audit::AuditKind,
    store::{NonceRequest, ProposalState, Reservation, Step},
};
use pace_evm::InProcessEvm;
use pace_pipeline::AccountState;

/// Each of `lanes` with its next unused sequence on `evm` (the embedded world, or a fork of
/// the node's latest block).
pub fn positions(
    evm: &InProcessEvm,
    account: &AccountState,
    lanes: &[u32],
) -> Result<Vec<(u32, u64)>> {
    lanes
        .iter()
        .map(|&lane| Ok((lane, account.sequence(evm, lane)?)))
        .collect()
}

impl Service {
    /// Reserves the next free sequence for `proposal_id` on one of `lanes` of `account` (as
    /// read on `evm`), reconciling first what holds a lane while the chain shows it dead, or
    /// what an instance whose lease lapsed left on a lane taken over.
    pub(crate) fn reserve(
        &self,
        st: &State,
        evm: &InProcessEvm,
        account: &AccountState,
        lanes: &[u32],
        proposal_id: &str,
    ) -> Result<Reservation> {
        let positions = positions(evm, account, lanes)?;
        let request = NonceRequest {
            instance: &self.instance.id,
            account: account.account(),
            lanes: &positions,
            chain_time: evm.timestamp(),
            proposal_id,
            at: self.now(),
            lease: self.config.lease,
        };
        for _ in 0..3 {
            let out = self.store.reserve_nonce(&request)?;
            for id in &out.reconcile {
                if let Some(mut p) = self.store.proposal(id)? {
                    self.metrics.inc("reconciled_for_lanes", "");
                    if st.chain.node().is_some() {
                        self.reconcile_one(st, &mut p)?;
                    } else {
                        self.expire_dead(&mut p, evm.timestamp())?;
                    }
                }
            }
            if let Some(r) = out.reserved {
                return Ok(r);
            }
            if out.reconcile.is_empty() {
                break;
            }
        }
        Err(Error::NoFreeLane)
    }

    /// On the embedded world (where a transaction lands as it is sent), settles `p` whose PDR
    /// the chain shows dead at `chain_time`: signed and never sent, its window closed.
    fn expire_dead(&self, p: &mut crate::store::Proposal, chain_time: u64) -> Result<()> {
        let Some(held) = self
            .store
            .live_reservations()?
            .into_iter()
            .find(|r| r.proposal_id == p.id)
        else {
            return Ok(());
        };
        let dead = held.valid_until.is_some_and(|until| until < chain_time);
        if !p.state.is_unreconciled() || !dead {
            return Ok(());
        }
        let was = p.state;
        p.state = ProposalState::Expired;
        let entry = crate::restart::own_entry(
            AuditKind::Reconcile,
            p,
            "RECONCILED_EXPIRED",
            serde_json::json!({ "was": was, "now": "expired", "lane": held.lane,
                                "sequence": held.sequence, "chain_time": chain_time }),
        );
        let step = Step {
            dead_reservation: Some((held.account, held.lane, held.sequence)),
            audit: vec![entry],
            ..Step::new(self.now()).advance(p, was)
        };
        self.store.apply(&step)?;
        Ok(())
    }
}
