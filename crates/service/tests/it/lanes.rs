//! Nonce lanes: a live signed PDR holds its sequence; the next PDR moves to another lane until
//! the chain shows the first one dead.

use crate::common::{ALL, Setup, grant};
use pace_service::{
    ServiceConfig, lanes,
    store::{
        LeaseConfig, NonceRequest, ProposalState, ReservationState, SignatureStep, SqliteStore,
        Store,
    },
};

/// A PDR signed on lane 0 and never sent holds its sequence: the service's next PDR goes to
/// lane 1; once the chain's time passes its window (the lane still at its sequence), the
/// next confirm settles it as expired and takes lane 0 again.
#[test]
fn a_live_pdr_moves_the_next_one_to_another_lane_until_it_is_dead() {
    let config = ServiceConfig {
        lanes: vec![0, 1],
        ..ServiceConfig::default()
    };
    let s = Setup::new(vec![grant("alice", ALL)], config);
    let alice = s.caller("alice");
    // A proposal of the caller, signed on lane 0 by this instance and never sent.
    let held = s.service.propose(&alice, s.swap.clone(), false).unwrap();
    let id = held.preview.proposal_id;
    let store = s.service.store().clone();
    let mut p = store.proposal(&id).unwrap().unwrap();
    p.state = ProposalState::Confirmed;
    store.put_proposal(&p).unwrap();
    let (positions, now) = {
        let st = s.service.state();
        let evm = &st.chain.world().unwrap().evm;
        let account = pace_pipeline::AccountState::read_pace(
            evm,
            s.addrs.account,
            pace_pipeline::AccountKind::PaceAccount,
        )
        .unwrap();
        (
            lanes::positions(evm, &account, &[0, 1]).unwrap(),
            evm.timestamp(),
        )
    };
    let instance = s.service.instance().id.clone();
    let out = store
        .reserve_nonce(&NonceRequest {
            instance: &instance,
            account: s.addrs.account,
            lanes: &positions,
            chain_time: now,
            proposal_id: &id,
            at: now,
            lease: LeaseConfig::default(),
        })
        .unwrap();
    let mut r = out.reserved.unwrap();
    assert_eq!((r.lane, r.sequence), (0, 0));
    r.state = ReservationState::Signed;
    r.digest = Some(alloy_primitives::B256::repeat_byte(1));
    r.valid_until = Some(now + 60);
    let mut signed = p;
    signed.state = ProposalState::Signed;
    store
        .record_signature(&SignatureStep {
            instance: &instance,
            reservation: &r,
            proposal: &signed,
            charges: vec![],
            audit: pace_service::audit::AuditEntry {
                kind: pace_service::audit::AuditKind::Sign,
                actor: "test".into(),
                caller_type: pace_service::audit::CallerType::Agent,
                scopes: vec![],
                proposal_id: Some(id.clone()),
                intent_hash: None,
                policy_hash: None,
                simulation_hash: None,
                codes: vec![],
                detail: serde_json::Value::Null,
            },
            at: now,
            lease: LeaseConfig::default(),
        })
        .unwrap();

    // The next PDR goes to lane 1.
    let repeat = pace_service::ProposeOptions {
        execute: true,
        allow_repeat: true,
        claim: None,
    };
    let mut other = s.swap.clone();
    other.metadata.insert("memo".into(), "second".into());
    let second = s.service.propose_with(&alice, other, repeat).unwrap();
    let second = second.confirmed.unwrap();
    assert_eq!((second.lane, second.sequence), (1, 0));
    assert_eq!(second.state, ProposalState::Executed);

    // Past its window, with lane 0 still at sequence 0: dead. The next confirm settles it as
    // expired (its lane skipped meanwhile) and the one after reuses lane 0.
    s.service.state().chain.world_mut().unwrap().advance(10);
    let next = |memo: &str| {
        let mut intent = s.swap.clone();
        intent.metadata.insert("memo".into(), memo.into());
        s.service
            .propose_with(&alice, intent, repeat)
            .unwrap()
            .confirmed
            .unwrap()
    };
    let third = next("third");
    assert_eq!((third.lane, third.sequence), (1, 1));
    assert_eq!(
        store.proposal(&id).unwrap().unwrap().state,
        ProposalState::Expired
    );
    let fourth = next("fourth");
    assert_eq!((fourth.lane, fourth.sequence), (0, 0));
    assert_eq!(fourth.state, ProposalState::Executed);
    let log = store.audit_records(1, 1_000).unwrap();
    assert!(log.iter().any(|r| r.entry.codes == ["RECONCILED_EXPIRED"]));
    assert_eq!(store.verify_audit().unwrap(), Ok(log.len() as u64));
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
        let p = s.service.state().store.proposal(&id).unwrap().unwrap();
        let p = pace_service::store::Proposal {
            state: ProposalState::Uncertain,
            ..p
        };
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
