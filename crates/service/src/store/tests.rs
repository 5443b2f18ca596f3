//! The store's suite, run against both backends: SQLite in memory, and PostgreSQL on a server
//! the tests start themselves (a fresh database per test). Without PostgreSQL installed its
//! half is skipped with a note, except under `CI=true`, where it fails.

use super::*;
use crate::{
    Error,
    audit::{AuditKind, CallerType},
    preview::Preview,
};
use std::{
    sync::{Arc, Barrier},
    time::Duration,
};

/// One backend under test.
struct Backend {
    name: &'static str,
    store: Arc<dyn Store>,
    /// Another handle on the same store, as a second instance would open it.
    second: Box<dyn Fn() -> Arc<dyn Store>>,
    /// Runs SQL on the store (tests that tamper with it).
    exec: Box<dyn Fn(&str)>,
}

fn backends() -> Vec<Backend> {
    let sqlite = Arc::new(SqliteStore::in_memory().unwrap());
    let (s1, s2) = (sqlite.clone(), sqlite.clone());
    let mut out = vec![Backend {
        name: "sqlite",
        store: sqlite,
        second: Box::new(move || s1.clone() as Arc<dyn Store>),
        exec: Box::new(move |sql| s2.connection().execute_batch(sql).unwrap()),
    }];
    if let Some(pg) = pace_testkit::postgres::for_tests() {
        let url = pg.fresh_database("store").unwrap();
        let store = Arc::new(PgStore::connect(&url).unwrap());
        let (u2, s3) = (url, store.clone());
        out.push(Backend {
            name: "postgres",
            store,
            second: Box::new(move || Arc::new(PgStore::connect(&u2).unwrap()) as Arc<dyn Store>),
            exec: Box::new(move |sql| {
                s3.execute(sql).unwrap();
            }),
        });
    }
    out
}

/// Runs `f` on each backend.
fn each(f: impl Fn(&Backend)) {
    for b in backends() {
        eprintln!("-- on {}", b.name);
        f(&b);
    }
}

fn entry(kind: &str) -> AuditEntry {
    AuditEntry {
        kind: AuditKind::Propose,
        actor: "agent-1".to_owned(),
        caller_type: CallerType::Agent,
        scopes: vec!["propose".to_owned()],
        proposal_id: Some("p-1".to_owned()),
        intent_hash: Some(B256::repeat_byte(7)),
        policy_hash: None,
        simulation_hash: None,
        codes: vec![],
        detail: serde_json::json!({ "kind": kind }),
    }
}

const ACCOUNT: Address = Address::repeat_byte(0xac);

/// A proposal `id` in `state`.
fn proposal(id: &str, state: ProposalState) -> Proposal {
    let intent = pace_types::Intent::from_json_str(&format!(
        r#"{{"chain_id": 31337, "account": "{ACCOUNT}",
            "calls": [{{"target": "{}", "value": "1", "data": "0x"}}]}}"#,
        Address::repeat_byte(0xbe)
    ))
    .unwrap();
    let intent_hash = pace_types::Hashed::new(intent.clone()).hash();
    let preview = Preview {
        proposal_id: id.to_owned(),
        approved: true,
        violations: vec![],
        chain_id: 31337,
        account: ACCOUNT,
        calls: vec![],
        deltas: vec![],
        outflows: vec![],
        counterparties: vec![],
        gas_used: 21_000,
        max_fee_per_gas: 1,
        max_fee_wei: "21000".to_owned(),
        block_number: 1,
        timestamp: 1,
        intent_hash,
        policy_hash: B256::ZERO,
        simulation_hash: None,
        expires_at: 10_000,
        outflow_value_wei: None,
        implied_claims: None,
    };
    Proposal {
        id: id.to_owned(),
        caller: "agent-1".to_owned(),
        tenant: DEFAULT_TENANT.to_owned(),
        intent,
        intent_hash,
        preview,
        state,
        created_at: 100,
        expires_at: 10_000,
        pdr: None,
        outcome: None,
    }
}

fn claim(key: u8, request: u8, now: u64, keep: u64) -> IdemClaim {
    IdemClaim {
        key: B256::repeat_byte(key),
        grant: "agent-1".to_owned(),
        request_hash: B256::repeat_byte(request),
        now,
        expires_at: now + keep,
        capacity: 3,
    }
}

fn ok(body: &str) -> StoredResponse {
    StoredResponse {
        status: 200,
        body: body.to_owned(),
    }
}

fn lease(ms: u64) -> LeaseConfig {
    LeaseConfig {
        ttl: Duration::from_millis(ms),
        idle: Duration::from_millis(ms),
    }
}

fn request<'a>(instance: &'a str, lanes: &'a [(u32, u64)], id: &'a str) -> NonceRequest<'a> {
    NonceRequest {
        instance,
        account: ACCOUNT,
        lanes,
        chain_time: 1_000,
        proposal_id: id,
        at: 1_000,
        lease: lease(10_000),
    }
}

/// Records the signature of `r` (reserved for proposal `p`, confirmed) with `digest`.
fn sign(
    s: &dyn Store,
    instance: &str,
    r: &Reservation,
    p: &Proposal,
    digest: u8,
    charges: Vec<Charge>,
) -> crate::Result<()> {
    let mut r = r.clone();
    r.digest = Some(B256::repeat_byte(digest));
    r.valid_until = Some(2_000);
    r.state = ReservationState::Signed;
    let mut p = p.clone();
    p.state = ProposalState::Signed;
    s.record_signature(&SignatureStep {
        instance,
        reservation: &r,
        proposal: &p,
        charges,
        audit: entry("sign"),
        at: 1_000,
        lease: lease(10_000),
    })
}

#[test]
fn edited_or_deleted_audit_records_are_detected() {
    use crate::audit::ChainError;
    for (edit, broken) in [
        (
            "UPDATE audit SET entry = replace(entry, 'agent-1', 'mallory') WHERE seq = 2",
            ChainError::Edited { seq: 2 },
        ),
        (
            "DELETE FROM audit WHERE seq = 3",
            ChainError::Missing {
                seq: 4,
                expected: 3,
            },
        ),
        (
            "DELETE FROM audit WHERE seq = 5",
            ChainError::Truncated { head: 5, found: 4 },
        ),
    ] {
        each(|b| {
            for i in 0..5 {
                b.store
                    .append_audit(1_000 + i, entry(&format!("e{i}")))
                    .unwrap();
            }
            assert_eq!(b.store.verify_audit().unwrap(), Ok(5));
            (b.exec)(edit);
            assert_eq!(
                b.store.verify_audit().unwrap(),
                Err(broken.clone()),
                "{}",
                b.name
            );
        });
    }
}

#[test]
fn the_audit_chain_stays_one_chain_under_concurrent_writers() {
    each(|b| {
        let (writers, each_writes) = (8, 25);
        let barrier = Arc::new(Barrier::new(writers));
        std::thread::scope(|s| {
            for w in 0..writers {
                let store = if w % 2 == 0 {
                    b.store.clone()
                } else {
                    (b.second)()
                };
                let barrier = barrier.clone();
                s.spawn(move || {
                    barrier.wait();
                    for i in 0..each_writes {
                        store.append_audit(1, entry(&format!("w{w}-{i}"))).unwrap();
                    }
                });
            }
        });
        let n = (writers * each_writes) as u64;
        assert_eq!(b.store.verify_audit().unwrap(), Ok(n), "{}", b.name);
        assert_eq!(b.store.audit_head().unwrap().unwrap().0, n);
    });
}

#[test]
fn idempotency_replays_until_the_key_expires_and_refuses_reuse() {
    each(|b| {
        let s = &*b.store;
        assert_eq!(
            s.idempotency_begin(&claim(9, 1, 100, 30), "i-1").unwrap(),
            IdemBegin::Fresh
        );
        assert_eq!(
            s.idempotency_begin(&claim(9, 1, 101, 30), "i-1").unwrap(),
            IdemBegin::InFlight
        );
        s.idempotency_finish(B256::repeat_byte(9), "i-1", &ok("{\"ok\":1}"))
            .unwrap();
        assert_eq!(
            s.idempotency_begin(&claim(9, 1, 129, 30), "i-1").unwrap(),
            IdemBegin::Replay(ok("{\"ok\":1}"))
        );
        // The same key for another request is refused while it lives.
        assert_eq!(
            s.idempotency_begin(&claim(9, 2, 129, 30), "i-1").unwrap(),
            IdemBegin::Reused
        );
        // Expired: a new request.
        assert_eq!(
            s.idempotency_begin(&claim(9, 2, 130, 30), "i-1").unwrap(),
            IdemBegin::Fresh
        );
    });
}

#[test]
fn unexpired_keys_are_never_evicted_and_a_full_grant_is_refused() {
    each(|b| {
        let s = &*b.store;
        for k in 1..=3 {
            assert_eq!(
                s.idempotency_begin(&claim(k, k, 100, 60), "i-1").unwrap(),
                IdemBegin::Fresh
            );
            s.idempotency_finish(B256::repeat_byte(k), "i-1", &ok("{}"))
                .unwrap();
        }
        assert_eq!(
            s.idempotency_begin(&claim(4, 4, 120, 60), "i-1").unwrap(),
            IdemBegin::Full
        );
        for k in 1..=3 {
            assert!(matches!(
                s.idempotency_begin(&claim(k, k, 120, 60), "i-1").unwrap(),
                IdemBegin::Replay(_)
            ));
        }
        assert_eq!(
            s.idempotency_begin(&claim(4, 4, 160, 60), "i-1").unwrap(),
            IdemBegin::Fresh
        );
    });
}

#[test]
fn a_claim_cut_short_by_a_crash_is_recovered_from_its_proposal() {
    each(|b| {
        let s = &*b.store;
        let (linked, bare, answered) = (
            claim(1, 1, 100, 60),
            claim(2, 2, 100, 60),
            claim(3, 3, 100, 60),
        );
        // Claimed by an instance that is gone (never registered, no lease).
        for c in [&linked, &bare, &answered] {
            assert_eq!(s.idempotency_begin(c, "i-dead").unwrap(), IdemBegin::Fresh);
        }
        s.idempotency_link(linked.key, "i-dead", "p-1").unwrap();
        s.idempotency_finish(answered.key, "i-dead", &ok("{}"))
            .unwrap();
        assert_eq!(s.release_in_flight("i-new").unwrap(), 2, "{}", b.name);
        assert_eq!(
            s.idempotency_begin(&claim(1, 1, 101, 60), "i-new").unwrap(),
            IdemBegin::Recover("p-1".to_owned())
        );
        assert_eq!(
            s.idempotency_begin(&claim(2, 9, 101, 60), "i-new").unwrap(),
            IdemBegin::Reused
        );
        assert_eq!(
            s.idempotency_begin(&claim(2, 2, 101, 60), "i-new").unwrap(),
            IdemBegin::Fresh
        );
        assert!(matches!(
            s.idempotency_begin(&claim(3, 3, 101, 60), "i-new").unwrap(),
            IdemBegin::Replay(_)
        ));
        s.idempotency_abandon(bare.key, "i-new").unwrap();
        assert_eq!(
            s.idempotency_begin(&claim(2, 2, 102, 60), "i-new").unwrap(),
            IdemBegin::Fresh
        );
    });
}

#[test]
fn a_grants_capacity_holds_however_many_new_keys_arrive_at_once() {
    each(|b| {
        let n = 12;
        let second = (b.second)();
        let barrier = Arc::new(Barrier::new(n));
        let outcomes: Vec<IdemBegin> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|i| {
                    let store = if i % 2 == 0 {
                        b.store.clone()
                    } else {
                        second.clone()
                    };
                    let barrier = barrier.clone();
                    let key = 0x40 + u8::try_from(i).unwrap();
                    s.spawn(move || {
                        barrier.wait();
                        store
                            .idempotency_begin(&claim(key, key, 100, 60), "i-1")
                            .unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let fresh = outcomes.iter().filter(|o| **o == IdemBegin::Fresh).count();
        assert_eq!(fresh, 3, "{}: the grant's capacity: {outcomes:?}", b.name);
        assert!(
            outcomes
                .iter()
                .all(|o| matches!(o, IdemBegin::Fresh | IdemBegin::Full))
        );
    });
}

#[test]
fn one_delivery_of_a_request_wins_however_many_arrive_at_once() {
    each(|b| {
        let n = 8;
        // Two live instances (on SQLite, one: a file serves one process).
        let second = (b.second)();
        let a = b.store.register_instance("a", None, lease(60_000)).unwrap();
        let other = if b.name == "sqlite" {
            a.clone()
        } else {
            second.register_instance("b", None, lease(60_000)).unwrap()
        };
        let barrier = Arc::new(Barrier::new(n));
        let outcomes: Vec<IdemBegin> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|i| {
                    let (store, me) = if i % 2 == 0 {
                        (b.store.clone(), a.id.clone())
                    } else {
                        (second.clone(), other.id.clone())
                    };
                    let barrier = barrier.clone();
                    s.spawn(move || {
                        barrier.wait();
                        store.idempotency_begin(&claim(7, 7, 100, 60), &me).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let fresh = outcomes.iter().filter(|o| **o == IdemBegin::Fresh).count();
        assert_eq!(fresh, 1, "{}: {outcomes:?}", b.name);
        assert!(
            outcomes
                .iter()
                .all(|o| matches!(o, IdemBegin::Fresh | IdemBegin::InFlight))
        );
    });
}

#[test]
fn a_live_instances_claim_is_in_flight_until_its_lease_lapses() {
    each(|b| {
        let s = &*b.store;
        let a = s.register_instance("a", None, lease(400)).unwrap();
        assert_eq!(
            s.idempotency_begin(&claim(5, 5, 100, 60), &a.id).unwrap(),
            IdemBegin::Fresh
        );
        s.idempotency_link(B256::repeat_byte(5), &a.id, "p-5")
            .unwrap();
        // Another instance sees it in flight while `a` lives...
        assert_eq!(
            s.idempotency_begin(&claim(5, 5, 101, 60), "i-other")
                .unwrap(),
            IdemBegin::InFlight
        );
        // ...and recovers it from its proposal once `a`'s lease has lapsed.
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(
            s.idempotency_begin(&claim(5, 5, 102, 60), "i-other")
                .unwrap(),
            IdemBegin::Recover("p-5".to_owned()),
            "{}",
            b.name
        );
    });
}

#[test]
fn a_claim_taken_over_reaches_one_proposal_whatever_its_first_holder_does_late() {
    each(|b| {
        let s = &*b.store;
        let a = s.register_instance("a", None, lease(300)).unwrap();
        let key = B256::repeat_byte(6);
        assert_eq!(
            s.idempotency_begin(&claim(6, 6, 100, 60), &a.id).unwrap(),
            IdemBegin::Fresh
        );
        // `a` is cut off past its lease (a database outage): `b` claims the request afresh.
        std::thread::sleep(Duration::from_millis(400));
        let taker = s.register_instance("b", None, lease(60_000)).unwrap();
        let b_id = taker.id.as_str();
        assert_eq!(
            s.idempotency_begin(&claim(6, 6, 101, 60), b_id).unwrap(),
            IdemBegin::Fresh,
            "{}",
            b.name
        );
        // `a` comes back with its decision: refused, nothing recorded, the claim left alone.
        let late = proposal("p-a", ProposalState::Proposed);
        assert!(matches!(
            s.record_decision(1, &late, Some((key, a.id.as_str())), entry("a")),
            Err(Error::InProgress)
        ));
        assert_eq!(s.proposal("p-a").unwrap(), None, "{}", b.name);
        assert!(matches!(
            s.idempotency_link(key, &a.id, "p-a"),
            Err(Error::InProgress)
        ));
        s.idempotency_abandon(key, &a.id).unwrap();
        s.idempotency_finish(key, &a.id, &ok("{\"from\":\"a\"}"))
            .unwrap();
        assert_eq!(
            s.idempotency_begin(&claim(6, 6, 102, 60), "i-c").unwrap(),
            IdemBegin::InFlight,
            "{}",
            b.name
        );
        // `b`'s decision is the request's one proposal, and its answer the one replayed.
        let won = proposal("p-b", ProposalState::Proposed);
        assert!(
            s.record_decision(1, &won, Some((key, b_id)), entry("b"))
                .unwrap()
                .done()
        );
        s.idempotency_finish(key, b_id, &ok("{\"from\":\"b\"}"))
            .unwrap();
        assert_eq!(
            s.idempotency_begin(&claim(6, 6, 103, 60), "i-c").unwrap(),
            IdemBegin::Replay(ok("{\"from\":\"b\"}"))
        );
    });
}

#[test]
fn a_decision_is_recorded_once_and_moves_by_compare_and_set() {
    each(|b| {
        let s = &*b.store;
        let mut p = proposal("p-1", ProposalState::Proposed);
        assert!(
            s.record_decision(5, &p, None, entry("propose"))
                .unwrap()
                .done()
        );
        assert_eq!(
            s.record_decision(5, &p, None, entry("propose")).unwrap(),
            Applied::Conflict(Some(ProposalState::Proposed))
        );
        // Two instances confirm it at once: one wins.
        let barrier = Arc::new(Barrier::new(2));
        p.state = ProposalState::Confirmed;
        let won: Vec<bool> = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..2)
                .map(|i| {
                    let store = if i == 0 {
                        b.store.clone()
                    } else {
                        (b.second)()
                    };
                    let (barrier, p) = (barrier.clone(), p.clone());
                    sc.spawn(move || {
                        barrier.wait();
                        let step = Step {
                            owner: Some(format!("i-{i}")),
                            ..Step::new(6)
                                .advance(&p, ProposalState::Proposed)
                                .audit(entry("c"))
                        };
                        store.apply(&step).unwrap().done()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(won.iter().filter(|w| **w).count(), 1, "{}", b.name);
        // One confirmation audited, after the decision.
        assert_eq!(s.verify_audit().unwrap(), Ok(2));
        // A move from the wrong state changes nothing and names the state.
        p.state = ProposalState::Executed;
        assert_eq!(
            s.advance(7, &p, ProposalState::Proposed, vec![entry("x")])
                .unwrap(),
            Applied::Conflict(Some(ProposalState::Confirmed))
        );
        assert_eq!(s.verify_audit().unwrap(), Ok(2));
        assert_eq!(
            s.proposal("p-1").unwrap().unwrap().state,
            ProposalState::Confirmed
        );
    });
}

#[test]
fn instances_reserve_distinct_sequences_and_a_lapsed_lease_is_taken_over_and_fenced() {
    each(|b| {
        let s = &*b.store;
        let lanes = [(0, 0), (1, 0)];
        for id in ["p-a", "p-b", "p-c"] {
            s.record_decision(1, &proposal(id, ProposalState::Confirmed), None, entry(id))
                .unwrap();
        }
        let a = s.reserve_nonce(&request("i-a", &lanes, "p-a")).unwrap();
        let a = a.reserved.unwrap();
        assert_eq!((a.lane, a.sequence, a.fence), (0, 0, 1));
        // Lane 0's lease is i-a's: i-b reserves on lane 1.
        let bb = s
            .reserve_nonce(&request("i-b", &lanes, "p-b"))
            .unwrap()
            .reserved
            .unwrap();
        assert_eq!((bb.lane, bb.sequence), (1, 0));
        // Both leases are held: nothing for a third instance.
        assert_eq!(
            s.reserve_nonce(&request("i-c", &lanes, "p-c"))
                .unwrap()
                .reserved,
            None
        );
        // i-a's lease lapses (it stopped renewing): i-c takes lane 0 over under a new token,
        // supersedes i-a's unsigned reservation, and i-a's late signature is fenced.
        let mut short = request("i-c", &lanes, "p-c");
        short.lease = lease(10_000);
        (b.exec)("UPDATE lane_leases SET lease_until = 0 WHERE holder = 'i-a'");
        let c = s.reserve_nonce(&short).unwrap().reserved.unwrap();
        assert_eq!((c.lane, c.sequence, c.fence), (0, 0, 2), "{}", b.name);
        let late = sign(
            s,
            "i-a",
            &a,
            &proposal("p-a", ProposalState::Confirmed),
            0xaa,
            vec![],
        );
        assert!(
            matches!(late, Err(Error::Fenced(_))),
            "{}: {late:?}",
            b.name
        );
        assert!(
            sign(
                s,
                "i-c",
                &c,
                &proposal("p-c", ProposalState::Confirmed),
                0xcc,
                vec![]
            )
            .is_ok()
        );
        let log = s.audit_records(1, 100).unwrap();
        assert!(
            log.iter().any(|r| r.entry.codes == ["LANE_TAKEN_OVER"]),
            "{}",
            b.name
        );
    });
}

#[test]
fn a_sequence_holds_one_digest() {
    each(|b| {
        let s = &*b.store;
        let p = proposal("p-1", ProposalState::Confirmed);
        s.record_decision(1, &p, None, entry("d")).unwrap();
        let r = s
            .reserve_nonce(&request("i-1", &[(3, 7)], "p-1"))
            .unwrap()
            .reserved
            .unwrap();
        sign(s, "i-1", &r, &p, 0x11, vec![]).unwrap();
        // The same digest again: already recorded.
        sign(s, "i-1", &r, &p, 0x11, vec![]).unwrap();
        // Another digest for the taken sequence: refused while the holder can execute.
        let other = sign(s, "i-1", &r, &p, 0x22, vec![]);
        assert!(
            matches!(
                other,
                Err(Error::SequenceTaken {
                    lane: 3,
                    sequence: 7
                })
            ),
            "{other:?}"
        );
        let held = s.live_reservation(ACCOUNT, 3, 7).unwrap().unwrap();
        assert_eq!(held.digest, Some(B256::repeat_byte(0x11)));
        // The next request skips the live PDR's lane.
        s.record_decision(
            1,
            &proposal("p-2", ProposalState::Confirmed),
            None,
            entry("d"),
        )
        .unwrap();
        let next = s.reserve_nonce(&request("i-1", &[(3, 7)], "p-2")).unwrap();
        assert_eq!(next.reserved, None);
    });
}

#[test]
fn a_dead_holder_is_reconciled_then_superseded_and_audited() {
    each(|b| {
        let s = &*b.store;
        let p = proposal("p-1", ProposalState::Confirmed);
        s.record_decision(1, &p, None, entry("d")).unwrap();
        let r = s
            .reserve_nonce(&request("i-1", &[(0, 4)], "p-1"))
            .unwrap()
            .reserved
            .unwrap();
        sign(s, "i-1", &r, &p, 0x11, vec![]).unwrap();
        s.record_decision(
            1,
            &proposal("p-2", ProposalState::Confirmed),
            None,
            entry("d"),
        )
        .unwrap();
        // Its window (2,000) closed before the chain's time, the lane still at 4: dead, but
        // its proposal is unsettled: reconciled first, the lane skipped meanwhile.
        let mut late = request("i-1", &[(0, 4)], "p-2");
        late.chain_time = 2_001;
        let out = s.reserve_nonce(&late).unwrap();
        assert_eq!(
            (out.reserved, out.reconcile),
            (None, vec!["p-1".to_owned()])
        );
        let expired = proposal("p-1", ProposalState::Expired);
        s.advance(3, &expired, ProposalState::Signed, vec![])
            .unwrap();
        let taken = s.reserve_nonce(&late).unwrap().reserved.unwrap();
        assert_eq!(
            (taken.lane, taken.sequence, taken.proposal_id.as_str()),
            (0, 4, "p-2")
        );
        let log = s.audit_records(1, 100).unwrap();
        assert!(
            log.iter().any(|r| r.entry.codes == ["SUPERSEDED"]),
            "{}",
            b.name
        );
    });
}

#[test]
fn a_signature_is_refused_while_halted_or_over_a_limit_and_nothing_is_recorded() {
    each(|b| {
        let s = &*b.store;
        let p = proposal("p-1", ProposalState::Confirmed);
        s.record_decision(1, &p, None, entry("d")).unwrap();
        let r = s
            .reserve_nonce(&request("i-1", &[(0, 0)], "p-1"))
            .unwrap()
            .reserved
            .unwrap();
        let halt = Halt {
            halted: true,
            ..Halt::default()
        };
        let step = Step {
            setting: Some(("halt".to_owned(), serde_json::to_string(&halt).unwrap())),
            ..Step::new(2).audit(entry("halt"))
        };
        s.apply(&step).unwrap();
        assert!(matches!(
            sign(s, "i-1", &r, &p, 1, vec![]),
            Err(Error::Halted(_))
        ));
        let step = Step {
            setting: Some((
                "halt".to_owned(),
                serde_json::to_string(&Halt::default()).unwrap(),
            )),
            ..Step::new(2)
        };
        s.apply(&step).unwrap();
        // 60 already charged to agent-1 in the window; 50 more is over 100.
        let mut q = proposal("p-0", ProposalState::Proposed);
        s.record_decision(1, &q, None, entry("d")).unwrap();
        q.state = ProposalState::Rejected;
        let charged = Step {
            charges: vec![Charge {
                kind: "value".to_owned(),
                who: "agent-1".to_owned(),
                wei: U256::from(60),
                limit: None,
            }],
            ..Step::new(500).advance(&q, ProposalState::Proposed)
        };
        s.apply(&charged).unwrap();
        let over = Charge {
            kind: "value".to_owned(),
            who: "agent-1".to_owned(),
            wei: U256::from(50),
            limit: Some((100, U256::from(100))),
        };
        let refused = sign(s, "i-1", &r, &p, 1, vec![over.clone()]);
        assert!(
            matches!(refused, Err(Error::ChargeOverLimit { .. })),
            "{refused:?}"
        );
        assert_eq!(
            s.charged_since("value", "agent-1", 0).unwrap(),
            U256::from(60)
        );
        assert_eq!(
            s.proposal("p-1").unwrap().unwrap().state,
            ProposalState::Confirmed
        );
        assert_eq!(
            s.live_reservation(ACCOUNT, 0, 0).unwrap().unwrap().state,
            ReservationState::Reserved
        );
        // Outside the window the charge fits.
        let fits = Charge {
            limit: Some((501, U256::from(100))),
            ..over
        };
        sign(s, "i-1", &r, &p, 1, vec![fits]).unwrap();
        assert_eq!(
            s.charged_since("value", "agent-1", 0).unwrap(),
            U256::from(110)
        );
        assert_eq!(
            s.proposal("p-1").unwrap().unwrap().state,
            ProposalState::Signed
        );
    });
}

#[test]
fn a_transaction_is_recorded_only_by_the_relayers_holder_for_a_submitted_pdr() {
    each(|b| {
        let s = &*b.store;
        let relayer = Address::repeat_byte(0x77);
        let a = s
            .register_instance("a", Some(relayer), lease(10_000))
            .unwrap();
        let mut p = proposal("p-1", ProposalState::Signed);
        s.record_decision(1, &p, None, entry("d")).unwrap();
        let tx = SentTx {
            tx_hash: B256::repeat_byte(1),
            raw: Some(vec![1, 2].into()),
            sender: Some(relayer),
            nonce: Some(4),
            at: 9,
        };
        // Not submitted (yet): nothing is sent for it.
        assert!(s.record_tx("p-1", &tx, Some(&a)).is_err());
        p.state = ProposalState::Submitted;
        s.advance(2, &p, ProposalState::Signed, vec![]).unwrap();
        s.record_tx("p-1", &tx, Some(&a)).unwrap();
        // Another instance took the relayer over (a's lease lapsed): a sends nothing more.
        (b.exec)("UPDATE relayer_leases SET lease_until = 0");
        (b.exec)("UPDATE instances SET lease_until = 0");
        let other = (b.second)();
        let _b = other
            .register_instance("b", Some(relayer), lease(10_000))
            .unwrap();
        let fenced = s.record_tx("p-1", &tx, Some(&a));
        assert!(
            matches!(fenced, Err(Error::Fenced(_))),
            "{}: {fenced:?}",
            b.name
        );
        assert!(matches!(
            s.heartbeat(&a, lease(10_000), &[]),
            Err(Error::Fenced(_))
        ));
        assert_eq!(s.tx_hashes("p-1").unwrap(), vec![B256::repeat_byte(1)]);
    });
}

#[test]
fn a_relayer_is_held_by_one_live_instance() {
    // On SQLite the file is one process's: a new instance is its restart, and takes over.
    let Some(pg) = pace_testkit::postgres::for_tests() else {
        return;
    };
    let url = pg.fresh_database("relayer").unwrap();
    let (s1, s2) = (
        PgStore::connect(&url).unwrap(),
        PgStore::connect(&url).unwrap(),
    );
    let relayer = Address::repeat_byte(0x42);
    let a = s1
        .register_instance("a", Some(relayer), lease(500))
        .unwrap();
    let refused = s2.register_instance("b", Some(relayer), lease(500));
    assert!(
        matches!(&refused, Err(Error::RelayerInUse { holder, .. }) if holder == "a"),
        "{refused:?}"
    );
    s1.heartbeat(&a, lease(500), &[]).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let b = s2
        .register_instance("b", Some(relayer), lease(500))
        .unwrap();
    assert!(b.relayer_fence > a.relayer_fence);
}

#[test]
fn the_rate_window_is_shared() {
    each(|b| {
        let (s1, s2) = (b.store.clone(), (b.second)());
        let counted = (0..5)
            .filter(|i| {
                let s = if i % 2 == 0 { &s1 } else { &s2 };
                s.count_request("agent-1", 600, 3).unwrap()
            })
            .count();
        assert_eq!(counted, 3, "{}", b.name);
        assert!(s1.count_request("agent-1", 660, 3).unwrap());
        assert!(s1.count_request("agent-2", 600, 3).unwrap());
    });
}

#[test]
fn mcp_sessions_are_capped_per_grant_and_expire_when_idle() {
    each(|b| {
        let s = &*b.store;
        assert!(s.open_session("s-1", "g", "i-1", 100, 2, 60).unwrap());
        assert!(s.open_session("s-2", "g", "i-1", 100, 2, 60).unwrap());
        assert!(!s.open_session("s-3", "g", "i-1", 110, 2, 60).unwrap());
        assert!(s.open_session("s-x", "h", "i-1", 110, 2, 60).unwrap());
        assert!(s.touch_session("s-1", 150, 60).unwrap());
        s.close_session("s-1").unwrap();
        assert!(!s.touch_session("s-1", 151, 60).unwrap());
        assert!(s.open_session("s-3", "g", "i-1", 152, 2, 60).unwrap());
        // s-2 idle since 100: gone at 161, room for another.
        assert!(!s.touch_session("s-2", 161, 60).unwrap());
        assert!(s.open_session("s-4", "g", "i-1", 161, 2, 60).unwrap());
    });
}

#[test]
fn settings_charges_and_published_configuration_are_kept() {
    each(|b| {
        let s = &*b.store;
        assert_eq!(s.setting("halt").unwrap(), None);
        for v in ["on", "off"] {
            let step = Step {
                setting: Some(("halt".to_owned(), v.to_owned())),
                ..Step::new(1)
            };
            s.apply(&step).unwrap();
        }
        assert_eq!(s.setting("halt").unwrap().as_deref(), Some("off"));
        let mut p = proposal("p-1", ProposalState::Proposed);
        s.record_decision(1, &p, None, entry("d")).unwrap();
        p.state = ProposalState::Rejected;
        let gas = |wei: u8| Charge {
            kind: "gas".to_owned(),
            who: "acme".to_owned(),
            wei: U256::from(wei),
            limit: None,
        };
        let step = Step {
            charges: vec![gas(5)],
            ..Step::new(100).advance(&p, ProposalState::Proposed)
        };
        s.apply(&step).unwrap();
        let step = Step {
            charges: vec![gas(8)],
            ..Step::new(200).advance(&p, ProposalState::Rejected)
        };
        s.apply(&step).unwrap();
        assert_eq!(s.charged_since("gas", "acme", 0).unwrap(), U256::from(8u8));
        assert_eq!(
            s.charged_since("gas", "acme", 150).unwrap(),
            U256::from(8u8)
        );
        assert_eq!(s.charged_since("gas", "acme", 250).unwrap(), U256::ZERO);
        assert_eq!(s.publish("grants", "[1]", 1).unwrap(), 1);
        assert_eq!(s.publish("grants", "[1]", 2).unwrap(), 1);
        assert_eq!(s.publish("grants", "[2]", 3).unwrap(), 2);
        assert_eq!(s.published("grants").unwrap(), Some((2, "[2]".to_owned())));
        assert_eq!(s.published("tenants").unwrap(), None);
    });
}

#[test]
fn a_dead_instances_confirmed_proposals_are_orphaned_and_transactions_kept_in_order() {
    each(|b| {
        let s = &*b.store;
        let live = s.register_instance("live", None, lease(10_000)).unwrap();
        for (id, owner) in [
            ("p-live", live.id.as_str()),
            ("p-dead", "i-gone"),
            ("p-mine", "i-me"),
        ] {
            let mut p = proposal(id, ProposalState::Proposed);
            s.record_decision(1, &p, None, entry("d")).unwrap();
            p.state = ProposalState::Confirmed;
            let step = Step {
                owner: Some(owner.to_owned()),
                ..Step::new(2).advance(&p, ProposalState::Proposed)
            };
            s.apply(&step).unwrap();
        }
        let orphaned: Vec<String> = s
            .orphaned(ProposalState::Confirmed, "i-me")
            .unwrap()
            .into_iter()
            .map(|p| p.id)
            .collect();
        assert_eq!(orphaned, ["p-dead", "p-mine"], "{}", b.name);
        for (i, h) in [1u8, 2, 3].into_iter().enumerate() {
            s.add_tx_hash(
                if i < 2 { "p-live" } else { "p-dead" },
                B256::repeat_byte(h),
                i as u64,
            )
            .unwrap();
        }
        assert_eq!(
            s.tx_hashes("p-live").unwrap(),
            vec![B256::repeat_byte(1), B256::repeat_byte(2)]
        );
        assert_eq!(
            s.last_tx("p-live").unwrap(),
            Some((B256::repeat_byte(2), 1))
        );
    });
}

/// PostgreSQL keeps each grant's count of idempotency records (the capacity check reads it
/// instead of counting the grant's keys): after claims, answers, a refused claim, an abandoned
/// one, expiry and a store migrated from before the count existed, it is the records' count.
#[test]
fn a_grants_kept_key_count_is_the_count_of_its_keys() {
    let Some(pg) = pace_testkit::postgres::for_tests() else {
        return;
    };
    let url = pg.fresh_database("held").unwrap();
    let s = PgStore::connect(&url).unwrap();
    let check = |s: &PgStore, grant: &str, step: &str| {
        let kept = s
            .scalar(&format!(
                "SELECT coalesce((SELECT held FROM idempotency_held WHERE grant_id = '{grant}'), 0)"
            ))
            .unwrap();
        let counted = s
            .scalar(&format!(
                "SELECT count(*) FROM idempotency WHERE grant_id = '{grant}'"
            ))
            .unwrap();
        assert_eq!(kept, counted, "{grant} after {step}");
        kept
    };
    for k in 1..=3 {
        assert_eq!(
            s.idempotency_begin(&claim(k, k, 100, 60), "i-1").unwrap(),
            IdemBegin::Fresh
        );
    }
    assert_eq!(check(&s, "agent-1", "three claims"), 3);
    s.idempotency_finish(B256::repeat_byte(1), "i-1", &ok("{}"))
        .unwrap();
    assert_eq!(
        s.idempotency_begin(&claim(4, 4, 110, 60), "i-1").unwrap(),
        IdemBegin::Full
    );
    assert_eq!(check(&s, "agent-1", "a claim refused as full"), 3);
    s.idempotency_abandon(B256::repeat_byte(2), "i-1").unwrap();
    assert_eq!(check(&s, "agent-1", "an abandoned claim"), 2);
    assert_eq!(
        s.idempotency_begin(&claim(4, 4, 110, 60), "i-1").unwrap(),
        IdemBegin::Fresh
    );
    assert_eq!(check(&s, "agent-1", "a claim in the freed place"), 3);
    // Everything expired by 200: deleted by the next claim, which is then alone.
    assert_eq!(
        s.idempotency_begin(&claim(5, 5, 200, 60), "i-1").unwrap(),
        IdemBegin::Fresh
    );
    assert_eq!(check(&s, "agent-1", "expiry"), 1);
    // A store from before the count: records written with no count kept, then migrated.
    s.execute(
        "DROP TABLE idempotency_held;
         DROP FUNCTION idempotency_held_added, idempotency_held_removed,
             idempotency_held_moved CASCADE;
         DELETE FROM schema_migrations WHERE version = 2;
         INSERT INTO idempotency (key, at, grant_id, request_hash, expires_at)
         SELECT 'k' || g, 1, 'agent-2', 'h', 1000 FROM generate_series(1, 7) g;",
    )
    .unwrap();
    let s = PgStore::connect(&url).unwrap();
    assert_eq!(check(&s, "agent-1", "the migration"), 1);
    assert_eq!(check(&s, "agent-2", "the migration"), 7);
}
