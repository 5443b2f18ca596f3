//! Retries never pay twice: client idempotency keys (scoped, kept, refused on reuse, bounded),
//! canonical content without a key, and the repeat window for unattended execution. Each
//! execution is counted on the chain (the account's lane positions).

use crate::common::{ALL, Setup, grant, scratch_store};
use pace_service::{ServiceConfig, api::Operation, store::SqliteStore};
use serde_json::{Value, json};

fn body(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

#[test]
fn a_keyed_retry_with_reordered_keys_or_after_the_window_executes_once() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let intent = serde_json::to_value(&s.swap).unwrap();
    let first = body(&json!({ "intent": intent, "execute": true }));
    // The same request, its keys in another order and spaced otherwise.
    let reordered = format!(r#"{{ "execute" : true , "intent" : {intent} }}"#).into_bytes();
    let a = s
        .service
        .answer(&alice, Operation::Propose, &first, Some("pay-42"));
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(!a.replayed);
    let done: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(done["confirmed"]["state"], "executed", "{done}");
    let b = s
        .service
        .answer(&alice, Operation::Propose, &reordered, Some("pay-42"));
    assert!(b.replayed);
    assert_eq!((b.status, &b.body), (200, &a.body));
    // After the 30 s window for requests without a key, the key still holds (24 h).
    s.service.advance_clock(31);
    let c = s
        .service
        .answer(&alice, Operation::Propose, &reordered, Some("pay-42"));
    assert!(c.replayed);
    assert_eq!(c.body, a.body);
    // The key in the body instead of the header is the same key.
    let in_body = body(&json!({ "intent": intent, "execute": true, "idempotency_key": "pay-42" }));
    assert!(
        s.service
            .answer(&alice, Operation::Propose, &in_body, None)
            .replayed
    );
    assert_eq!(s.executed(), 1, "one execution on the chain");

    // The same key for another request is refused, and runs nothing.
    let mut other = s.swap.clone();
    other
        .metadata
        .insert("memo".into(), "another payment".into());
    let other = body(&json!({ "intent": other, "execute": true }));
    let reused = s
        .service
        .answer(&alice, Operation::Propose, &other, Some("pay-42"));
    assert_eq!(reused.status, 422, "{}", reused.body);
    assert!(
        reused.body.contains("IDEMPOTENCY_KEY_REUSED"),
        "{}",
        reused.body
    );

    // Without a key, after the window: an equal intent (memos do not count) executed within
    // the repeat window needs allow_repeat.
    let again = s.service.answer(&alice, Operation::Propose, &other, None);
    assert_eq!(again.status, 409, "{}", again.body);
    let err: Value = serde_json::from_str(&again.body).unwrap();
    assert_eq!(err["error"]["code"], "DUPLICATE_INTENT");
    assert_eq!(err["error"]["proposal_id"], done["preview"]["proposal_id"]);
    assert_eq!(s.executed(), 1);
    // Two honest equal payments: the second says so.
    let mut repeat: Value = serde_json::from_slice(&other).unwrap();
    repeat["allow_repeat"] = json!(true);
    let paid = s
        .service
        .answer(&alice, Operation::Propose, &body(&repeat), Some("pay-43"));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(s.executed(), 2);
}

#[test]
fn keys_are_scoped_to_their_token() {
    let s = Setup::new(
        vec![grant("alice", ALL), grant("bob", ALL)],
        ServiceConfig::default(),
    );
    let req = body(&json!({ "intent": s.swap, "execute": false }));
    let a = s
        .service
        .answer(&s.caller("alice"), Operation::Propose, &req, Some("k"));
    let b = s
        .service
        .answer(&s.caller("bob"), Operation::Propose, &req, Some("k"));
    assert!(!b.replayed);
    assert_ne!(a.body, b.body, "bob's key is not alice's");
}

#[test]
fn a_refused_request_leaves_no_echo_and_a_corrected_retry_runs() {
    let path = scratch_store("no-echo");
    let s = Setup::with_store(
        vec![grant("alice", ALL)],
        ServiceConfig::default(),
        Box::new(SqliteStore::open(&path).unwrap()),
    );
    let alice = s.caller("alice");
    let bad = br#"{"intent": {"chain_id": "SECRET-ECHO"}, "execute": true}"#;
    let refused = s
        .service
        .answer(&alice, Operation::Propose, bad, Some("retry-me"));
    assert_eq!(refused.status, 400, "{}", refused.body);
    let db = rusqlite::Connection::open(&path).unwrap();
    let echoes: u64 = db
        .query_row(
            "SELECT COUNT(*) FROM idempotency WHERE body LIKE '%SECRET-ECHO%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let rows: u64 = db
        .query_row("SELECT COUNT(*) FROM idempotency", [], |r| r.get(0))
        .unwrap();
    assert_eq!((echoes, rows), (0, 0));
    let fixed = body(&json!({ "intent": s.swap, "execute": false }));
    let ok = s
        .service
        .answer(&alice, Operation::Propose, &fixed, Some("retry-me"));
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert!(!ok.replayed);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_token_holding_its_limit_of_keys_is_refused_with_429_and_keeps_them() {
    let mut slow = grant("slow", ALL);
    slow.rate_per_minute = 1;
    let config = ServiceConfig {
        idempotency_retention_secs: 60,
        ..ServiceConfig::default()
    };
    let s = Setup::new(vec![slow], config);
    let caller = s.caller("slow");
    let req = |memo: &str| {
        let mut i = s.swap.clone();
        i.metadata.insert("memo".into(), memo.into());
        body(&json!({ "intent": i }))
    };
    let first = s
        .service
        .answer(&caller, Operation::Propose, &req("a"), Some("k-1"));
    assert_eq!(first.status, 200);
    let full = s
        .service
        .answer(&caller, Operation::Propose, &req("b"), Some("k-2"));
    assert_eq!(full.status, 429, "{}", full.body);
    assert!(
        full.body.contains("IDEMPOTENCY_STORE_FULL"),
        "{}",
        full.body
    );
    // The held key was not evicted.
    assert!(
        s.service
            .answer(&caller, Operation::Propose, &req("a"), Some("k-1"))
            .replayed
    );
    s.service.advance_clock(61);
    let later = s
        .service
        .answer(&caller, Operation::Propose, &req("b"), Some("k-2"));
    assert_eq!(later.status, 200, "{}", later.body);
}
