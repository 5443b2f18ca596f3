//! Start-up reconciliation on the embedded world.
//!
//! The embedded world starts from genesis on every run, so nothing an earlier run signed or
//! sent exists on it: with a persistent store (`--store`), every reservation of an earlier run
//! is dead and every proposal it left confirmed, signed, submitted or uncertain is expired.
//! This runs before the service accepts anything, and each change is audited. (On a node the
//! same step reconciles against the chain instead: lane position and `PdrExecuted` logs.)

use crate::{
    Result, Service,
    audit::{AuditEntry, CallerType},
    store::{ProposalState, ReservationState},
};

impl Service {
    /// Retires what an earlier run of the embedded world left in the store; returns how many
    /// proposals were expired.
    pub(crate) fn reconcile_world_restart(&self) -> Result<usize> {
        let mut st = self.state();
        for mut r in st.store.live_reservations()? {
            r.state = ReservationState::Dead;
            st.store.update_reservation(&r)?;
        }
        let mut expired = 0;
        for state in [
            ProposalState::Confirmed,
            ProposalState::Signed,
            ProposalState::Submitted,
            ProposalState::Uncertain,
        ] {
            for mut p in st.store.proposals_in(state)? {
                p.state = ProposalState::Expired;
                st.store.put_proposal(&p)?;
                let entry = AuditEntry {
                    kind: "reconcile".to_owned(),
                    actor: "pace-serve".to_owned(),
                    caller_type: CallerType::Agent,
                    scopes: Vec::new(),
                    proposal_id: Some(p.id.clone()),
                    intent_hash: Some(p.intent_hash),
                    policy_hash: Some(p.preview.policy_hash),
                    simulation_hash: p.preview.simulation_hash,
                    codes: vec!["WORLD_RESTARTED".to_owned()],
                    detail: serde_json::json!({ "was": state, "now": "expired" }),
                };
                self.audit(&mut st, entry)?;
                expired += 1;
            }
        }
        Ok(expired)
    }
}
