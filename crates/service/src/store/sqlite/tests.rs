use super::super::{IdemClaim, ReservationState, SentTx};
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
    assert!(err.to_string().contains("versions 1 to 2"), "{err}");
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

#[test]
fn idempotency_replays_until_the_key_expires_and_refuses_reuse() {
    let mut s = SqliteStore::in_memory().unwrap();
    assert_eq!(
        s.idempotency_begin(&claim(9, 1, 100, 30)).unwrap(),
        IdemBegin::Fresh
    );
    assert_eq!(
        s.idempotency_begin(&claim(9, 1, 101, 30)).unwrap(),
        IdemBegin::InFlight
    );
    s.idempotency_finish(B256::repeat_byte(9), &ok("{\"ok\":1}"))
        .unwrap();
    assert_eq!(
        s.idempotency_begin(&claim(9, 1, 129, 30)).unwrap(),
        IdemBegin::Replay(ok("{\"ok\":1}"))
    );
    // The same key for another request is refused while it lives.
    assert_eq!(
        s.idempotency_begin(&claim(9, 2, 129, 30)).unwrap(),
        IdemBegin::Reused
    );
    // Expired: a new request.
    assert_eq!(
        s.idempotency_begin(&claim(9, 2, 130, 30)).unwrap(),
        IdemBegin::Fresh
    );
}

#[test]
fn unexpired_keys_are_never_evicted_and_a_full_grant_is_refused() {
    let mut s = SqliteStore::in_memory().unwrap();
    for k in 1..=3 {
        assert_eq!(
            s.idempotency_begin(&claim(k, k, 100, 60)).unwrap(),
            IdemBegin::Fresh
        );
        s.idempotency_finish(B256::repeat_byte(k), &ok("{}"))
            .unwrap();
    }
    assert_eq!(
        s.idempotency_begin(&claim(4, 4, 120, 60)).unwrap(),
        IdemBegin::Full
    );
    // Every held key still replays.
    for k in 1..=3 {
        assert!(matches!(
            s.idempotency_begin(&claim(k, k, 120, 60)).unwrap(),
            IdemBegin::Replay(_)
        ));
    }
    // Once they expire, room is made.
    assert_eq!(
        s.idempotency_begin(&claim(4, 4, 160, 60)).unwrap(),
        IdemBegin::Fresh
    );
}

#[test]
fn a_claim_cut_short_by_a_crash_is_recovered_from_its_proposal() {
    let mut s = SqliteStore::in_memory().unwrap();
    let (linked, bare, answered) = (
        claim(1, 1, 100, 60),
        claim(2, 2, 100, 60),
        claim(3, 3, 100, 60),
    );
    for c in [&linked, &bare, &answered] {
        assert_eq!(s.idempotency_begin(c).unwrap(), IdemBegin::Fresh);
    }
    s.idempotency_link(linked.key, "p-1").unwrap();
    s.idempotency_finish(answered.key, &ok("{}")).unwrap();
    assert_eq!(
        s.release_in_flight().unwrap(),
        2,
        "the two without an answer"
    );
    assert_eq!(
        s.idempotency_begin(&claim(1, 1, 101, 60)).unwrap(),
        IdemBegin::Recover("p-1".to_owned())
    );
    // Released without a proposal: handled afresh; with another request: refused.
    assert_eq!(
        s.idempotency_begin(&claim(2, 9, 101, 60)).unwrap(),
        IdemBegin::Reused
    );
    assert_eq!(
        s.idempotency_begin(&claim(2, 2, 101, 60)).unwrap(),
        IdemBegin::Fresh
    );
    assert!(matches!(
        s.idempotency_begin(&claim(3, 3, 101, 60)).unwrap(),
        IdemBegin::Replay(_)
    ));
    // A refused request leaves nothing behind.
    s.idempotency_abandon(bare.key).unwrap();
    let rows: u64 = s
        .connection()
        .query_row(
            "SELECT COUNT(*) FROM idempotency WHERE key = ?1",
            [bare.key.to_string()],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 0);
}

#[test]
fn a_version_1_store_is_migrated_and_its_audit_chain_still_verifies() {
    let path = temp_path("v1");
    {
        let conn = Connection::open(&path).unwrap();
        schema::create_v1(&conn).unwrap();
        // A version-1 row of each kind the migration touches.
        let mut v1 = SqliteStore { conn };
        filled(&mut v1, 3);
        v1.conn
            .execute(
                "INSERT INTO transactions (proposal_id, tx_hash, at) VALUES ('p-1', ?1, 5)",
                [B256::repeat_byte(4).to_string()],
            )
            .unwrap();
        v1.conn
            .execute(
                "INSERT INTO idempotency (key, at, status, body) VALUES ('0x01', 1, NULL, NULL)",
                [],
            )
            .unwrap();
        let version: i64 = v1
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 1);
    }
    let mut s = SqliteStore::open(&path).unwrap();
    let version: i64 = s
        .connection()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    assert_eq!(s.verify_audit().unwrap(), Ok(3));
    let old = s.txs("p-1").unwrap();
    assert_eq!(
        (old.len(), old[0].raw.clone(), old[0].nonce),
        (1, None, None)
    );
    // The old claim without a request hash is dropped at start, not matched.
    assert_eq!(s.release_in_flight().unwrap(), 1);
    s.add_tx(
        "p-1",
        &SentTx {
            tx_hash: B256::repeat_byte(5),
            raw: Some(vec![1, 2, 3].into()),
            sender: Some(Address::repeat_byte(6)),
            nonce: Some(7),
            at: 6,
        },
    )
    .unwrap();
    assert_eq!(s.txs("p-1").unwrap()[1].nonce, Some(7));
    drop(s);
    // Reopening a migrated store changes nothing.
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.verify_audit().unwrap(), Ok(3));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

#[test]
fn settings_and_charges_are_kept() {
    let mut s = SqliteStore::in_memory().unwrap();
    assert_eq!(s.setting("halt").unwrap(), None);
    s.set_setting("halt", "on").unwrap();
    s.set_setting("halt", "off").unwrap();
    assert_eq!(s.setting("halt").unwrap().as_deref(), Some("off"));
    s.charge("p-1", "gas", "acme", 100, U256::from(5u8))
        .unwrap();
    s.charge("p-1", "gas", "acme", 100, U256::from(7u8))
        .unwrap();
    s.charge("p-2", "gas", "acme", 200, U256::from(1u8))
        .unwrap();
    s.charge("p-3", "gas", "other", 200, U256::from(9u8))
        .unwrap();
    assert_eq!(s.charged_since("gas", "acme", 0).unwrap(), U256::from(8u8));
    assert_eq!(
        s.charged_since("gas", "acme", 150).unwrap(),
        U256::from(1u8)
    );
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
