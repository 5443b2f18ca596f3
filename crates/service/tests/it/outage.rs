//! The store out of reach between a signature and its broadcast, on anvil: a short outage
//! delays the broadcast (the payment executes once); a long one sends nothing and answers the
//! store's `STORE_UNAVAILABLE` (503, retry after), not a pipeline error.

use crate::{
    faulty::{Faults, Faulty},
    node::{OnAnvil, quick},
};
use pace_service::{
    Error, Result, Service,
    store::{Instance, ProposalState, SentTx, SqliteStore, Store},
};
use std::sync::{
    Arc,
    atomic::{AtomicU32, Ordering},
};

/// The next `failing` `record_tx` calls fail as an unreachable server's would.
struct Outage {
    failing: Arc<AtomicU32>,
}

#[test]
fn a_short_outage_at_the_hash_delays_the_broadcast_and_the_payment_executes_once() {
    let node = OnAnvil::start();
    let failing = Arc::new(AtomicU32::new(3));
    let (service, id) = proposed(&node, failing.clone());
    let alice = service.authenticate(Some("alice")).unwrap();
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed, "{:?}", done.outcome);
    assert_eq!(failing.load(Ordering::Relaxed), 0, "the outage was met");
    assert_eq!(node.executed_logs(done.pdr_digest), 1);
    assert_eq!(node.next_sequence(done.lane), done.sequence + 1);
    assert_eq!(service.status(&alice, &id).unwrap().tx_hashes.len(), 1);
}

#[test]
fn a_long_outage_at_the_hash_sends_nothing_and_answers_store_unavailable() {
    let node = OnAnvil::start();
    let (service, id) = proposed(&node, Arc::new(AtomicU32::new(u32::MAX)));
    let alice = service.authenticate(Some("alice")).unwrap();
    let e = service.confirm(&alice, &id, true).unwrap_err();
    assert!(matches!(e, Error::StoreUnavailable(_)), "{e}");
    assert_eq!((e.code(), e.http_status()), ("STORE_UNAVAILABLE", 503));
    node.mine();
    let status = service.status(&alice, &id).unwrap();
    let digest = status.pdr_digest.expect("signed before the outage");
    assert_eq!(node.executed_logs(digest), 0, "nothing was sent");
    assert!(status.tx_hashes.is_empty(), "{:?}", status.tx_hashes);
}

/// A service on `node` over an [`Outage`] store failing the next `failing` records, and the id
/// of alice's swap proposed on it.
fn proposed(node: &OnAnvil, failing: Arc<AtomicU32>) -> (Service, String) {
    let store = Faulty::new(Outage { failing });
    let service = node.service(Box::new(store), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    (service, id)
}

impl Faults for Outage {
    fn record_tx(
        &self,
        inner: &SqliteStore,
        proposal_id: &str,
        tx: &SentTx,
        instance: Option<&Instance>,
    ) -> Result<()> {
        let failing = self
            .failing
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        if failing.is_ok() {
            return Err(Error::StoreUnavailable(
                "test: the server is out of reach".to_owned(),
            ));
        }
        inner.record_tx(proposal_id, tx, instance)
    }
}
