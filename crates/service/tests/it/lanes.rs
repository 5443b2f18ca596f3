//! Nonce lanes: a live signed PDR holds its sequence; the next PDR moves to another lane until
//! the chain shows the first one dead.

use crate::common::{ALL, Setup, grant};
use pace_service::{
    Error, ServiceConfig, lanes,
    store::{ProposalState, ReservationState, SqliteStore, Store},
};

#[test]
fn a_live_pdr_moves_the_next_one_to_another_lane_until_it_is_dead() {
    let s = Setup::default();
    let mut st = s.service.state();
    let account = pace_pipeline::AccountState::read_pace(
        &st.chain.world().unwrap().evm,
        s.addrs.account,
        pace_pipeline::AccountKind::PaceAccount,
    )
    .unwrap();
    let account = &account;
    let st = &mut *st;
    let store: &mut dyn Store = st.store.as_mut();
    let mut first = lanes::reserve(
        store,
        &st.chain.world().unwrap().evm,
        account,
        &[0, 1],
        "p-1",
    )
    .unwrap();
    assert_eq!((first.lane, first.sequence), (0, 0));
    first.state = ReservationState::Signed;
    first.valid_until = Some(st.chain.world().unwrap().evm.timestamp() + 60);
    store.update_reservation(&first).unwrap();

    let second = lanes::reserve(
        store,
        &st.chain.world().unwrap().evm,
        account,
        &[0, 1],
        "p-2",
    )
    .unwrap();
    assert_eq!((second.lane, second.sequence), (1, 0));
    let mut signed = second;
    signed.state = ReservationState::Signed;
    signed.valid_until = Some(st.chain.world().unwrap().evm.timestamp() + 60);
    store.update_reservation(&signed).unwrap();
    assert!(matches!(
        lanes::reserve(
            store,
            &st.chain.world().unwrap().evm,
            account,
            &[0, 1],
            "p-3"
        ),
        Err(Error::NoFreeLane)
    ));

    // Past validUntil, with the lane still at sequence 0, the first PDR is dead.
    st.chain.world_mut().unwrap().advance(10);
    let third = lanes::reserve(
        store,
        &st.chain.world().unwrap().evm,
        account,
        &[0, 1],
        "p-3",
    )
    .unwrap();
    assert_eq!(
        (third.lane, third.sequence, third.proposal_id.as_str()),
        (0, 0, "p-3")
    );
}

/// With a persistent store, a restart of the embedded world (which starts from genesis)
/// retires the earlier run's reservations and expires what it left unreconciled, before the
/// service accepts anything; the first PDR of the new run goes on lane 0 again.
#[test]
fn a_restart_reconciles_what_the_earlier_run_left() {
    let path = std::env::temp_dir().join(format!("pace-restart-{}.sqlite", std::process::id()));
    let open = || Box::new(SqliteStore::open(&path).unwrap()) as Box<dyn Store>;
    let left = {
        let s = Setup::with_store(vec![grant("alice", ALL)], ServiceConfig::default(), open());
        let alice = s.caller("alice");
        let done = s.service.propose(&alice, s.swap.clone(), true).unwrap();
        assert_eq!(done.confirmed.unwrap().lane, 0);
        let id = s
            .service
            .propose(&alice, s.swap.clone(), false)
            .unwrap()
            .preview
            .proposal_id;
        let mut p = s.service.state().store.proposal(&id).unwrap().unwrap();
        p.state = ProposalState::Uncertain;
        s.service.state().store.put_proposal(&p).unwrap();
        id
    };
    let s = Setup::with_store(vec![grant("alice", ALL)], ServiceConfig::default(), open());
    let alice = s.caller("alice");
    assert_eq!(s.service.status(&alice, &left).unwrap().state, "expired");
    // The earlier run's execution is not on this world: the caller means it again.
    let repeat = pace_service::ProposeOptions {
        execute: true,
        allow_repeat: true,
        claim: None,
    };
    let again = s
        .service
        .propose_with(&alice, s.swap.clone(), repeat)
        .unwrap();
    let confirmed = again.confirmed.unwrap();
    assert_eq!((confirmed.lane, confirmed.sequence), (0, 0));
    assert_eq!(confirmed.state, ProposalState::Executed);
    let st = s.service.state();
    let log = st.store.audit_records(1, 1_000).unwrap();
    assert!(log.iter().any(|r| r.entry.kind == "reconcile"));
    assert_eq!(st.store.verify_audit().unwrap(), Ok(log.len() as u64));
    drop(st);
    drop(s);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}
