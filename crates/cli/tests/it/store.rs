//! `pace store migrate` into PostgreSQL and `pace audit verify` there; `--store` mistakes said
//! at once. PostgreSQL is a server of the test's own (skipped with a note when it is not
//! installed, failed under `CI=true`).

use crate::{pace, scratch, serve::serve_and_execute};
use std::time::{Duration, Instant};

#[test]
fn a_sqlite_store_moves_into_postgres_with_its_audit_chain_intact() {
    let Some(pg) = pace_testkit::postgres::for_tests() else {
        return;
    };
    let dir = scratch("store-migrate");
    let store = dir.join("pace.sqlite");
    serve_and_execute(&store);
    let url = pg.fresh_database("migrate").unwrap();
    let from = format!("sqlite:{}", store.display());
    let out = pace(["store", "migrate", "--from", &from, "--to", &url]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("1 proposals"), "{stdout}");
    assert!(
        stdout.contains("4 audit records; audit chain intact (head 4 0x"),
        "{stdout}"
    );
    let out = pace(["audit", "verify", "--store", &url]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("intact: 4 records"), "{stdout}");
    // The copy is the SQLite store's, byte for byte: the same head.
    let sqlite = pace(["audit", "verify", "--store", &from]);
    assert_eq!(sqlite.status.code(), Some(0));

    // Into a store that is not empty: refused, nothing copied.
    let out = pace(["store", "migrate", "--from", &from, "--to", &url]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr.contains("not empty"), "{stderr}");

    // Tampered in PostgreSQL: found.
    let db = url.rsplit('/').next().unwrap();
    pg.psql(
        db,
        "UPDATE audit SET entry = replace(entry, '\"dev\"', '\"eve\"') WHERE seq = 2",
    )
    .unwrap();
    let out = pace(["audit", "verify", "--store", &url]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("record 2 was edited"), "{stderr}");
}

#[test]
fn store_mistakes_are_said_at_once_and_passwords_never_shown() {
    // A password on the command line: refused, and not repeated.
    let out = pace([
        "serve",
        "--rpc",
        "http://127.0.0.1:1",
        "--store",
        "postgres://pace:hunter2@127.0.0.1:1/pace",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("PGPASSWORD") && !stderr.contains("hunter2"),
        "{stderr}"
    );

    // A database nobody listens for: a clear error within the connect timeout, not a hang.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let tokens = scratch("store-mistakes").join("tokens.json");
    std::fs::write(&tokens, "[]").unwrap();
    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["serve", "--rpc", "http://127.0.0.1:1", "--tokens"])
        .arg(&tokens)
        .arg("--store")
        .arg(format!("postgres://pace@127.0.0.1:{port}/pace"))
        .env("PACE_VERIFIER_KEY", format!("0x{}", "5a".repeat(32)))
        .env("PACE_RELAYER_KEY", format!("0x{}", "11".repeat(32)))
        .env("PGPASSWORD", "hunter2")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot reach the store"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );

    // The embedded world lives in one process: not on a shared store.
    let out = pace(["serve", "--store", "postgres://pace@127.0.0.1:1/pace"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--rpc"), "{stderr}");
    // Instances of one store follow one grants file: generated tokens would differ.
    let out = pace([
        "serve",
        "--rpc",
        "http://127.0.0.1:1",
        "--store",
        "postgres://pace@127.0.0.1:1/pace",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--tokens"), "{stderr}");
}
