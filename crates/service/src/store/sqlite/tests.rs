use super::super::ReservationState;
use super::*;
use crate::audit::{AuditKind, CallerType, ChainError};

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

fn temp_path(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "pace-store-{name}-{}-{nanos}.sqlite",
        std::process::id()
    ))
}

fn filled(store: &mut SqliteStore, n: u64) {
    for i in 0..n {
        store
            .append_audit(1_000 + i, entry(&format!("e{i}")))
            .unwrap();
    }
}

#[test]
fn file_store_is_wal_versioned_and_reopens() {
    let path = temp_path("wal");
    {
        let mut s = SqliteStore::open(&path).unwrap();
        filled(&mut s, 3);
        let mode: String = s
            .connection()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.verify_audit().unwrap(), Ok(3));
    assert_eq!(s.audit_records(2, 10).unwrap().len(), 2);
    s.connection()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    drop(s);
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(err.to_string().contains("schema version 99"), "{err}");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

#[test]
fn edited_or_deleted_audit_records_are_detected() {
    let mut s = SqliteStore::in_memory().unwrap();
    filled(&mut s, 5);
    assert_eq!(s.verify_audit().unwrap(), Ok(5));

    s.connection()
        .execute(
            "UPDATE audit SET entry = replace(entry, 'agent-1', 'mallory') WHERE seq = 2",
            [],
        )
        .unwrap();
    assert_eq!(
        s.verify_audit().unwrap(),
        Err(ChainError::Edited { seq: 2 })
    );

    let mut s = SqliteStore::in_memory().unwrap();
    filled(&mut s, 5);
    s.connection()
        .execute("DELETE FROM audit WHERE seq = 3", [])
        .unwrap();
    assert_eq!(
        s.verify_audit().unwrap(),
        Err(ChainError::Missing {
            seq: 4,
            expected: 3
        })
    );

    let mut s = SqliteStore::in_memory().unwrap();
    filled(&mut s, 5);
    s.connection()
        .execute("DELETE FROM audit WHERE seq = 5", [])
        .unwrap();
    assert_eq!(
        s.verify_audit().unwrap(),
        Err(ChainError::Truncated { head: 5, found: 4 })
    );
}

#[test]
fn idempotency_replays_within_the_window_only() {
    let mut s = SqliteStore::in_memory().unwrap();
    let key = B256::repeat_byte(9);
    assert_eq!(s.idempotency_begin(key, 100, 30).unwrap(), IdemBegin::Fresh);
    assert_eq!(
        s.idempotency_begin(key, 101, 30).unwrap(),
        IdemBegin::InFlight
    );
    let resp = StoredResponse {
        status: 200,
        body: "{\"ok\":1}".to_owned(),
    };
    s.idempotency_finish(key, &resp).unwrap();
    assert_eq!(
        s.idempotency_begin(key, 129, 30).unwrap(),
        IdemBegin::Replay(resp)
    );
    assert_eq!(s.idempotency_begin(key, 130, 30).unwrap(), IdemBegin::Fresh);

    // A claim left in flight by a dead process is released; answered ones stay.
    let (answered, dead) = (B256::repeat_byte(1), B256::repeat_byte(2));
    assert_eq!(
        s.idempotency_begin(answered, 200, 30).unwrap(),
        IdemBegin::Fresh
    );
    s.idempotency_finish(
        answered,
        &StoredResponse {
            status: 200,
            body: "{}".into(),
        },
    )
    .unwrap();
    assert_eq!(
        s.idempotency_begin(dead, 200, 30).unwrap(),
        IdemBegin::Fresh
    );
    assert_eq!(
        s.release_in_flight().unwrap(),
        2,
        "the key above and the dead one"
    );
    assert_eq!(
        s.idempotency_begin(dead, 201, 30).unwrap(),
        IdemBegin::Fresh
    );
    assert!(matches!(
        s.idempotency_begin(answered, 201, 30).unwrap(),
        IdemBegin::Replay(_)
    ));
}

#[test]
fn a_live_reservation_holds_its_sequence() {
    let mut s = SqliteStore::in_memory().unwrap();
    let account = Address::repeat_byte(1);
    let mut r = Reservation {
        account,
        lane: 2,
        sequence: 7,
        proposal_id: "p-1".to_owned(),
        digest: None,
        valid_until: None,
        state: ReservationState::Reserved,
    };
    s.reserve(&r).unwrap();
    assert!(
        s.reserve(&r).is_err(),
        "a second live reservation of one sequence"
    );
    assert_eq!(s.live_reservation(account, 2, 7).unwrap(), Some(r.clone()));
    assert_eq!(s.live_reservation(account, 3, 7).unwrap(), None);
    r.state = ReservationState::Dead;
    s.update_reservation(&r).unwrap();
    assert_eq!(s.live_reservation(account, 2, 7).unwrap(), None);
    r.state = ReservationState::Reserved;
    s.reserve(&r).unwrap();
}

#[test]
fn tx_hashes_are_kept_in_order() {
    let mut s = SqliteStore::in_memory().unwrap();
    s.add_tx_hash("p-1", B256::repeat_byte(1), 1).unwrap();
    s.add_tx_hash("p-1", B256::repeat_byte(2), 2).unwrap();
    s.add_tx_hash("p-2", B256::repeat_byte(3), 3).unwrap();
    assert_eq!(
        s.tx_hashes("p-1").unwrap(),
        vec![B256::repeat_byte(1), B256::repeat_byte(2)]
    );
}
