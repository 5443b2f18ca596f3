//! What only the SQLite store does: WAL, its schema versions and their migrations, one
//! process per file. The behaviour both backends share is tested in `store/tests.rs`.

use super::super::{ReservationState, SentTx};
use super::*;
use crate::audit::{AuditKind, CallerType};

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

fn remove(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

fn filled(store: &SqliteStore, n: u64) {
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
        let s = SqliteStore::open(&path).unwrap();
        filled(&s, 3);
        let mode: String = s
            .connection()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(s.schema_version().unwrap(), 4);
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
    assert!(err.to_string().contains("versions 1 to 4"), "{err}");
    remove(&path);
}

#[test]
fn a_file_serves_one_process_and_is_read_beside_it() {
    let path = temp_path("lock");
    let s = SqliteStore::open(&path).unwrap();
    filled(&s, 2);
    let second = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(
        second.contains("another pace serve holds this store"),
        "{second}"
    );
    assert!(second.contains("postgres"), "{second}");
    // `pace audit verify` reads it while the instance runs.
    let reader = SqliteStore::open_read_only(&path).unwrap();
    assert_eq!(reader.verify_audit().unwrap(), Ok(2));
    drop(s);
    assert!(SqliteStore::open(&path).is_ok());
    remove(&path);
}

#[test]
fn a_version_1_store_is_migrated_and_its_audit_chain_still_verifies() {
    let path = temp_path("v1");
    {
        let conn = Connection::open(&path).unwrap();
        schema::create_v1(&conn).unwrap();
        let v1 = SqliteStore {
            conn: Mutex::new(conn),
            path: None,
            _lock: None,
            busy_ns: Default::default(),
        };
        filled(&v1, 3);
        let conn = v1.connection();
        conn.execute(
            "INSERT INTO transactions (proposal_id, tx_hash, at) VALUES ('p-1', ?1, 5)",
            [B256::repeat_byte(4).to_string()],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO idempotency (key, at, status, body) VALUES ('0x01', 1, NULL, NULL)",
            [],
        )
        .unwrap();
    }
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION as u32);
    assert_eq!(s.verify_audit().unwrap(), Ok(3));
    let old = s.txs("p-1").unwrap();
    assert_eq!(
        (old.len(), old[0].raw.clone(), old[0].nonce),
        (1, None, None)
    );
    // The old claim without a request hash is dropped at start, not matched.
    assert_eq!(s.release_in_flight("i-1").unwrap(), 1);
    s.record_tx(
        "p-1",
        &SentTx {
            tx_hash: B256::repeat_byte(5),
            raw: Some(vec![1, 2, 3].into()),
            sender: Some(Address::repeat_byte(6)),
            nonce: Some(7),
            at: 6,
        },
        None,
    )
    .unwrap();
    assert_eq!(s.txs("p-1").unwrap()[1].nonce, Some(7));
    drop(s);
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.verify_audit().unwrap(), Ok(3));
    drop(s);
    remove(&path);
}

#[test]
fn a_version_2_store_keeps_one_reservation_per_sequence() {
    let path = temp_path("v2");
    {
        let conn = Connection::open(&path).unwrap();
        schema::create_v2(&conn).unwrap();
        let row = |state: &str, proposal: &str, digest: Option<u8>| {
            let body = serde_json::json!({
                "account": Address::repeat_byte(1), "lane": 2, "sequence": 7,
                "proposal_id": proposal, "digest": digest.map(B256::repeat_byte),
                "valid_until": digest.map(|_| 500), "state": state,
            });
            conn.execute(
                "INSERT INTO reservations (account, lane, sequence, state, body)
                 VALUES (?1, 2, 7, ?2, ?3)",
                params![Address::repeat_byte(1).to_string(), state, body.to_string()],
            )
            .unwrap();
        };
        row("dead", "p-old", None);
        row("signed", "p-live", Some(9));
        filled(
            &SqliteStore {
                conn: Mutex::new(conn),
                path: None,
                _lock: None,
                busy_ns: Default::default(),
            },
            2,
        );
    }
    let s = SqliteStore::open(&path).unwrap();
    let kept = s
        .live_reservation(Address::repeat_byte(1), 2, 7)
        .unwrap()
        .unwrap();
    assert_eq!(
        (kept.proposal_id.as_str(), kept.state, kept.digest),
        (
            "p-live",
            ReservationState::Signed,
            Some(B256::repeat_byte(9))
        )
    );
    assert_eq!(kept.valid_until, Some(500));
    let superseded: i64 = s
        .connection()
        .query_row("SELECT COUNT(*) FROM superseded", [], |r| r.get(0))
        .unwrap();
    assert_eq!(superseded, 1);
    assert_eq!(s.verify_audit().unwrap(), Ok(2));
    drop(s);
    remove(&path);
}

/// Each grant's keys as counted row by row, and as the kept count says.
fn held(s: &SqliteStore) -> Vec<(String, i64, i64)> {
    let conn = s.connection();
    let mut stmt = conn
        .prepare(
            "SELECT g.grant_id, g.held, (SELECT COUNT(*) FROM idempotency i
                 WHERE i.grant_id = g.grant_id)
             FROM idempotency_held g ORDER BY g.grant_id",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

fn claim(key: u8, grant: &str, now: u64, capacity: u64) -> IdemClaim {
    IdemClaim {
        key: B256::repeat_byte(key),
        grant: grant.to_owned(),
        request_hash: B256::repeat_byte(0xee),
        now,
        expires_at: now + 100,
        capacity,
    }
}

#[test]
fn the_kept_key_count_follows_every_claim_answer_release_and_expiry() {
    let s = SqliteStore::in_memory().unwrap();
    let me = "i-1";
    for key in 1..=5 {
        assert_eq!(
            s.idempotency_begin(&claim(key, "alice", 10, 100), me)
                .unwrap(),
            IdemBegin::Fresh
        );
    }
    s.idempotency_begin(&claim(9, "bob", 10, 100), me).unwrap();
    let answer = StoredResponse {
        status: 200,
        body: "{}".to_owned(),
    };
    s.idempotency_finish(B256::repeat_byte(1), me, &answer)
        .unwrap();
    s.idempotency_abandon(B256::repeat_byte(2), me).unwrap();
    // Released and claimed again: still one key.
    s.release_claims(me, &[B256::repeat_byte(3)]).unwrap();
    assert_eq!(
        s.idempotency_begin(&claim(3, "alice", 11, 100), me)
            .unwrap(),
        IdemBegin::Fresh
    );
    assert_eq!(
        held(&s),
        [("alice".to_owned(), 4, 4), ("bob".to_owned(), 1, 1)]
    );
    // At capacity: refused, and nothing is added.
    assert_eq!(
        s.idempotency_begin(&claim(6, "alice", 12, 4), me).unwrap(),
        IdemBegin::Full
    );
    assert_eq!(held(&s)[0], ("alice".to_owned(), 4, 4));
    // Past their expiry, a grant's keys go before its next claim, and its count with them.
    assert_eq!(
        s.idempotency_begin(&claim(7, "alice", 500, 4), me).unwrap(),
        IdemBegin::Fresh
    );
    assert_eq!(
        held(&s),
        [("alice".to_owned(), 1, 1), ("bob".to_owned(), 1, 1)]
    );
}

#[test]
fn a_version_3_store_gets_its_key_counts() {
    let path = temp_path("v3");
    {
        let conn = Connection::open(&path).unwrap();
        schema::create_v3(&conn).unwrap();
        for (key, grant) in [
            ("0x01", Some("alice")),
            ("0x02", Some("alice")),
            ("0x03", None),
        ] {
            conn.execute(
                "INSERT INTO idempotency (key, at, grant_id, expires_at) VALUES (?1, 1, ?2, 99)",
                params![key, grant],
            )
            .unwrap();
        }
    }
    let s = SqliteStore::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), 4);
    assert_eq!(held(&s), [("alice".to_owned(), 2, 2)]);
    // The capacity reads the kept count: two held, a third over a capacity of two.
    assert_eq!(
        s.idempotency_begin(&claim(4, "alice", 10, 2), "i-1")
            .unwrap(),
        IdemBegin::Full
    );
    drop(s);
    remove(&path);
}

#[test]
fn in_memory_stores_are_apart_and_roll_back() {
    let (a, b) = (
        SqliteStore::in_memory().unwrap(),
        SqliteStore::in_memory().unwrap(),
    );
    filled(&a, 2);
    assert_eq!(a.audit_records(1, 10).unwrap().len(), 2);
    assert!(b.audit_records(1, 10).unwrap().is_empty(), "one store each");
    // A transaction that fails leaves nothing behind.
    let failed: Result<()> = a.write(|tx| {
        tx.execute("DELETE FROM audit", [])?;
        Err(Error::Store("test: refused midway".to_owned()))
    });
    assert!(failed.is_err());
    assert_eq!(a.verify_audit().unwrap(), Ok(2));
    let mode: String = a
        .connection()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "memory");
}
