//! Two deliveries, or two instances, meeting on one proposal at the worst moment, made
//! deterministic with a [`Faulty`] store: a confirm whose proposal another instance reopened
//! before its signature is `IN_PROGRESS` and the same request asked again executes it; a
//! delivery run again after its first was cut short, overtaken meanwhile by another that
//! executed the proposal, answers what that reached. Each execution counted on the chain.

use crate::{
    common::{ALL, Setup, grant},
    faulty::{Faults, Faulty},
};
use pace_service::{
    Result, ServiceConfig,
    api::Operation,
    store::{
        IdemBegin, IdemClaim, Proposal, ProposalState, SignatureStep, SqliteStore, Step, Store,
    },
};
use serde_json::{Value, json};
use std::sync::{
    Arc, Mutex,
    atomic::{AtomicBool, Ordering},
};

/// Once armed, the next signature finds its proposal reopened (`proposed`), as when another
/// instance's reconciliation took it back while this one was paused.
struct Reopen {
    armed: Arc<AtomicBool>,
}

impl Faults for Reopen {
    fn record_signature(&self, inner: &SqliteStore, step: &SignatureStep<'_>) -> Result<()> {
        if self.armed.swap(false, Ordering::Relaxed) {
            let mut p = inner.proposal(&step.proposal.id)?.expect("stored");
            assert_eq!(p.state, ProposalState::Confirmed);
            p.state = ProposalState::Proposed;
            inner.apply(&Step::new(step.at).advance(&p, ProposalState::Confirmed))?;
        }
        inner.record_signature(step)
    }
}

#[test]
fn a_confirm_whose_proposal_was_reopened_before_its_signature_is_in_progress_then_executes_once() {
    let armed = Arc::new(AtomicBool::new(true));
    let store = Faulty::new(Reopen {
        armed: armed.clone(),
    });
    let s = Setup::with_store(
        vec![grant("alice", ALL)],
        ServiceConfig::default(),
        Box::new(store),
    );
    let alice = s.caller("alice");
    let id = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let body = json!({ "proposal_id": id, "confirm": true }).to_string();
    let first = s
        .service
        .answer(&alice, Operation::Confirm, body.as_bytes(), Some("c-1"));
    assert!(!armed.load(Ordering::Relaxed), "the reopening was met");
    assert_eq!(first.status, 409, "{}", first.body);
    let err: Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(err["error"]["code"], "IN_PROGRESS", "{err}");
    assert_eq!(s.executed(), 0, "nothing was signed");

    let again = s
        .service
        .answer(&alice, Operation::Confirm, body.as_bytes(), Some("c-1"));
    assert_eq!(again.status, 200, "{}", again.body);
    let done: Value = serde_json::from_str(&again.body).unwrap();
    assert_eq!(done["state"], "executed", "{done}");
    let replay = s
        .service
        .answer(&alice, Operation::Confirm, body.as_bytes(), Some("c-1"));
    assert!(replay.replayed);
    assert_eq!(replay.body, again.body);
    assert_eq!(s.executed(), 1);
}

/// Once armed with a proposal as a delivery read it before another took it further, the next
/// new idempotency claim is a cut-short delivery's (its instance gone) and the proposal it
/// reached is read as it was then.
#[derive(Clone, Default)]
struct Overtaken {
    /// The proposal as the cut-short delivery's recovery reads it.
    armed: Arc<Mutex<Option<Proposal>>>,
    /// Served by the next read of the proposal.
    stale: Arc<Mutex<Option<Proposal>>>,
}

impl Faults for Overtaken {
    fn idempotency_begin(
        &self,
        inner: &SqliteStore,
        claim: &IdemClaim,
        instance: &str,
    ) -> Result<IdemBegin> {
        let begun = inner.idempotency_begin(claim, instance)?;
        let Some(p) = self.armed.lock().unwrap().take() else {
            return Ok(begun);
        };
        assert_eq!(begun, IdemBegin::Fresh);
        // Left by a delivery whose instance is gone: released, to be taken over.
        inner.release_claims(instance, &[claim.key])?;
        let id = p.id.clone();
        *self.stale.lock().unwrap() = Some(p);
        Ok(IdemBegin::Recover(id))
    }

    fn proposal(&self, inner: &SqliteStore, id: &str) -> Result<Option<Proposal>> {
        match self.stale.lock().unwrap().take() {
            Some(p) => Ok(Some(p)),
            None => inner.proposal(id),
        }
    }
}

#[test]
fn a_delivery_run_again_after_another_executed_its_proposal_answers_what_that_reached() {
    let faults = Overtaken::default();
    let s = Setup::with_store(
        vec![grant("alice", ALL)],
        ServiceConfig::default(),
        Box::new(Faulty::new(faults.clone())),
    );
    let alice = s.caller("alice");
    for (op, execute) in [(Operation::Confirm, false), (Operation::Propose, true)] {
        let id = s
            .service
            .propose(&alice, s.swap.clone(), false)
            .unwrap()
            .preview
            .proposal_id;
        let before = s.service.store().proposal(&id).unwrap().unwrap();
        assert_eq!(before.state, ProposalState::Proposed);
        // The other delivery executes it.
        let other = s.service.confirm(&alice, &id, true).unwrap();
        assert_eq!(other.state, ProposalState::Executed);
        *faults.armed.lock().unwrap() = Some(before);
        let body = if execute {
            json!({ "intent": s.swap, "execute": true, "allow_repeat": true })
        } else {
            json!({ "proposal_id": id, "confirm": true })
        };
        let key = format!("{}-1", op.as_str());
        let rerun = s
            .service
            .answer(&alice, op, body.to_string().as_bytes(), Some(&key));
        assert!(
            faults.stale.lock().unwrap().is_none(),
            "the stale read was met"
        );
        assert_eq!(rerun.status, 200, "{op:?}: {}", rerun.body);
        let answer: Value = serde_json::from_str(&rerun.body).unwrap();
        let confirmed = if execute {
            &answer["confirmed"]
        } else {
            &answer
        };
        assert_eq!(confirmed["state"], "executed", "{answer}");
        assert_eq!(confirmed["proposal_id"], json!(id));
        assert_eq!(
            confirmed["pdr_digest"],
            json!(other.pdr_digest),
            "the other delivery's PDR"
        );
    }
    assert_eq!(s.executed(), 2, "one execution per proposal");
}
