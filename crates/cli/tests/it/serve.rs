//! `pace serve` as a process: propose and confirm over HTTP on 127.0.0.1, then
//! `pace audit verify` on its store, intact and tampered.

use crate::{pace, scratch};
use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Command, Stdio},
};

pub(crate) fn request(
    addr: &str,
    method: &str,
    path: &str,
    token: &str,
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out[9..12].parse().unwrap();
    (status, out.split_once("\r\n\r\n").unwrap().1.to_owned())
}

/// Serves the embedded world on the SQLite store `store`, proposes the demo agent's swap and
/// confirms it (executed), then kills the server: four audit records.
pub(crate) fn serve_and_execute(store: &std::path::Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--approval-threshold-wei",
            "none",
            "--store",
        ])
        .arg(store)
        .env_remove("PACE_VERIFIER_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut token, mut addr) = (None, None);
    while addr.is_none() {
        let line = lines.next().expect("pace serve exited early").unwrap();
        if line.contains("API token for this run (") {
            token = line.rsplit("): ").next().map(str::to_owned);
        }
        if let Some(a) = line.split("listening on http://").nth(1) {
            addr = Some(a.split_whitespace().next().unwrap().to_owned());
        }
    }
    let (token, addr) = (token.unwrap(), addr.unwrap());

    // The example request stays valid for the embedded world: it is the demo agent's swap.
    let body = std::fs::read_to_string(crate::example("world-swap.propose.json")).unwrap();
    let signer = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY).unwrap();
    let world = pace_world::World::new(signer.address()).unwrap();
    let swap = &pace_world::scenarios(&world)[0].intent;
    let example: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(example["intent"], serde_json::to_value(swap).unwrap());
    let (st, resp) = request(&addr, "POST", "/v1/propose", &token, &body);
    assert_eq!(st, 200, "{resp}");
    let v: serde_json::Value = serde_json::from_str(&resp).unwrap();
    let id = v["preview"]["proposal_id"].as_str().unwrap();
    let confirm = serde_json::json!({ "proposal_id": id, "confirm": true }).to_string();
    let (st, resp) = request(&addr, "POST", "/v1/confirm", &token, &confirm);
    assert_eq!(st, 200, "{resp}");
    assert!(resp.contains("\"state\":\"executed\""), "{resp}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn serve_then_audit_verify_detects_tampering() {
    let dir = scratch("serve");
    let store = dir.join("pace.sqlite");
    serve_and_execute(&store);

    let out = pace(["audit", "verify", "--store", store.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("intact: 4 records"), "{stdout}");

    let db = rusqlite::Connection::open(&store).unwrap();
    db.execute(
        "UPDATE audit SET entry = replace(entry, '\"dev\"', '\"eve\"') WHERE seq = 2",
        [],
    )
    .unwrap();
    drop(db);
    let out = pace(["audit", "verify", "--store", store.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("record 2 was edited"), "{stderr}");

    let db = rusqlite::Connection::open(&store).unwrap();
    db.execute("DELETE FROM audit WHERE seq = 2", []).unwrap();
    drop(db);
    let out = pace(["audit", "verify", "--store", store.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("deleted"), "{stderr}");
}

#[test]
fn serve_refuses_a_non_loopback_listener() {
    let out = pace(["serve", "--listen", "0.0.0.0:0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[test]
fn serve_with_tls_files_that_do_not_hold_a_certificate_names_them() {
    let dir = scratch("serve-tls");
    let cert = dir.join("cert.pem");
    std::fs::write(&cert, "not a certificate\n").unwrap();
    let out = pace([
        "serve",
        "--listen",
        "0.0.0.0:0",
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        cert.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cert.pem"), "{stderr}");
    assert!(stderr.contains("no certificate"), "{stderr}");
    // One of the two alone is a usage error.
    let out = pace(["serve", "--tls-cert", cert.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

/// MCP over stdio: initialize, list the tools, propose, as an MCP client spawning the server.
#[test]
fn serve_stdio_speaks_mcp() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["serve", "--stdio"])
        .env_remove("PACE_VERIFIER_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = |msg: serde_json::Value, id: Option<u64>| -> serde_json::Value {
        writeln!(stdin, "{msg}").unwrap();
        let Some(id) = id else {
            return serde_json::Value::Null;
        };
        loop {
            let line = lines.next().expect("server closed stdout").unwrap();
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == serde_json::json!(id) {
                return v;
            }
        }
    };
    let init = call(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "pace-cli-test", "version": "1"}}}),
        Some(1),
    );
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    call(
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        None,
    );
    let tools = call(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        Some(2),
    );
    assert_eq!(
        tools["result"]["tools"].as_array().unwrap().len(),
        14,
        "{tools}"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "pace", "{init}");
    let body = std::fs::read_to_string(crate::example("world-swap.propose.json")).unwrap();
    let args: serde_json::Value = serde_json::from_str(&body).unwrap();
    let proposed = call(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "propose", "arguments": args}}),
        Some(3),
    );
    let result = &proposed["result"];
    assert_ne!(result["isError"], serde_json::json!(true), "{proposed}");
    assert_eq!(
        result["structuredContent"]["preview"]["approved"],
        serde_json::json!(true)
    );
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// The default run: the generated agent token cannot execute unattended, its confirmation
/// waits for a human, and the human's generated credential approves it on the approval page
/// (form token from the page, same origin); the agent's token cannot.
#[test]
fn by_default_a_human_approves_on_the_approval_page() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env_remove("PACE_VERIFIER_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut agent, mut human, mut addr) = (None, None, None);
    while addr.is_none() {
        let line = lines.next().expect("pace serve exited early").unwrap();
        if line.contains("API token for this run (propose, confirm, read;") {
            agent = line.rsplit("): ").next().map(str::to_owned);
        }
        if line.contains("approval credential for the human (approve, read): ") {
            human = line.rsplit("): ").next().map(str::to_owned);
        }
        if let Some(a) = line.split("listening on http://").nth(1) {
            addr = Some(a.split_whitespace().next().unwrap().to_owned());
        }
    }
    let (agent, human, addr) = (agent.unwrap(), human.unwrap(), addr.unwrap());
    let body = std::fs::read_to_string(crate::example("world-swap.propose.json")).unwrap();
    let mut unattended: serde_json::Value = serde_json::from_str(&body).unwrap();
    unattended["execute"] = serde_json::json!(true);
    let (st, resp) = request(
        &addr,
        "POST",
        "/v1/propose",
        &agent,
        &unattended.to_string(),
    );
    assert_eq!(st, 403, "{resp}");
    let (st, resp) = request(&addr, "POST", "/v1/propose", &agent, &body);
    assert_eq!(st, 200, "{resp}");
    let v: serde_json::Value = serde_json::from_str(&resp).unwrap();
    let id = v["preview"]["proposal_id"].as_str().unwrap().to_owned();
    let confirm = serde_json::json!({ "proposal_id": id, "confirm": true }).to_string();
    let (st, resp) = request(&addr, "POST", "/v1/confirm", &agent, &confirm);
    assert_eq!(st, 202, "{resp}");
    let waiting: serde_json::Value = serde_json::from_str(&resp).unwrap();
    assert_eq!(waiting["error"]["code"], "APPROVAL_REQUIRED");
    let url = waiting["error"]["approval_url"].as_str().unwrap();
    assert_eq!(url, format!("http://{addr}/approve/{id}"));
    let (st, pending) = request(&addr, "GET", "/v1/pending", &human, "");
    assert_eq!(st, 200, "{pending}");
    assert!(pending.contains(&id), "{pending}");

    let (st, page) = request(&addr, "GET", &format!("/approve/{id}"), "", "");
    assert_eq!(st, 200, "{page}");
    let at = page.find("name=\"token\" value=\"").unwrap() + 20;
    let token = &page[at..at + 66];
    let post = |credential: &str| {
        let form = format!("token={token}&credential={credential}&decision=approve");
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "POST /approve/{id} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
            form.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        (out[9..12].parse::<u16>().unwrap(), out)
    };
    let (st, out) = post(&agent);
    assert_eq!(st, 403, "{out}");
    let (st, out) = post(&human);
    assert_eq!(st, 200, "{out}");
    assert!(out.contains("executed"), "{out}");
    assert!(
        out.to_ascii_lowercase().contains("x-frame-options: deny"),
        "{out}"
    );
    let (_, status) = request(&addr, "GET", &format!("/v1/status/{id}"), &agent, "");
    assert!(status.contains("\"state\":\"executed\""), "{status}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A store written by the previous schema (version 1) still verifies, and is migrated to the
/// current one in place with its audit chain untouched.
#[test]
fn audit_verify_reads_a_version_1_store() {
    use pace_service::audit::{AuditEntry, AuditKind, AuditRecord, CallerType};
    let store = scratch("audit-v1").join("old.sqlite");
    let db = rusqlite::Connection::open(&store).unwrap();
    db.execute_batch(
        "CREATE TABLE audit (seq INTEGER PRIMARY KEY, version INTEGER NOT NULL, at INTEGER NOT NULL,
             entry TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
         CREATE TABLE audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
         CREATE TABLE proposals (id TEXT PRIMARY KEY, caller TEXT NOT NULL, intent_hash TEXT NOT NULL,
             state TEXT NOT NULL, created_at INTEGER NOT NULL, body TEXT NOT NULL);
         CREATE INDEX proposals_by_intent ON proposals (caller, intent_hash);
         CREATE INDEX proposals_by_state ON proposals (state);
         CREATE TABLE confirmations (proposal_id TEXT PRIMARY KEY, body TEXT NOT NULL);
         CREATE TABLE idempotency (key TEXT PRIMARY KEY, at INTEGER NOT NULL, status INTEGER, body TEXT);
         CREATE TABLE reservations (id INTEGER PRIMARY KEY, account TEXT NOT NULL, lane INTEGER NOT NULL,
             sequence INTEGER NOT NULL, state TEXT NOT NULL, body TEXT NOT NULL);
         CREATE UNIQUE INDEX live_reservation ON reservations (account, lane, sequence) WHERE state <> 'dead';
         CREATE TABLE transactions (id INTEGER PRIMARY KEY, proposal_id TEXT NOT NULL, tx_hash TEXT NOT NULL,
             at INTEGER NOT NULL);
         PRAGMA user_version = 1;",
    )
    .unwrap();
    let mut prev = alloy_primitives::B256::ZERO;
    for seq in 1..=3u64 {
        let entry = AuditEntry {
            kind: AuditKind::Propose,
            actor: "dev".into(),
            caller_type: CallerType::Human,
            scopes: vec!["propose".into()],
            proposal_id: None,
            intent_hash: None,
            policy_hash: None,
            simulation_hash: None,
            codes: vec![],
            detail: serde_json::json!({ "n": seq }),
        };
        let rec = AuditRecord::chain(seq, 1_000 + seq, entry, prev);
        db.execute(
            "INSERT INTO audit VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![
                rec.seq,
                rec.version,
                rec.at,
                serde_json::to_string(&rec.entry).unwrap(),
                rec.prev_hash.to_string(),
                rec.hash.to_string()
            ],
        )
        .unwrap();
        db.execute(
            "INSERT INTO audit_head (id, seq, hash) VALUES (1, ?1, ?2)
             ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
            rusqlite::params![rec.seq, rec.hash.to_string()],
        )
        .unwrap();
        prev = rec.hash;
    }
    drop(db);
    let out = pace(["audit", "verify", "--store", store.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("intact: 3 records"), "{stdout}");
    let db = rusqlite::Connection::open(&store).unwrap();
    let version: i64 = db
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, pace_service::store::SCHEMA_VERSION);
}

/// Over stdio the human confirms through a loopback listener of the same process: the
/// agent's confirm answers `APPROVAL_REQUIRED` with the page's link (the client declares no
/// elicitation), the human approves there with the credential printed for them, and the
/// agent's status then says executed.
#[test]
fn serve_stdio_serves_the_approval_page_on_loopback() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["serve", "--stdio"])
        .env_remove("PACE_VERIFIER_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err_lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut page_base, mut human) = (None, None);
    while page_base.is_none() || human.is_none() {
        let line = err_lines.next().expect("pace serve exited early").unwrap();
        if let Some(rest) = line.split("approval page for the human at ").nth(1) {
            page_base = rest.split("/approve/").next().map(str::to_owned);
        }
        if line.contains("approval credential for the human (approve, read): ") {
            human = line.rsplit("): ").next().map(str::to_owned);
        }
    }
    let (page_base, human) = (page_base.unwrap(), human.unwrap());
    let addr = page_base.strip_prefix("http://").unwrap().to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = |msg: serde_json::Value, id: Option<u64>| -> serde_json::Value {
        writeln!(stdin, "{msg}").unwrap();
        let Some(id) = id else {
            return serde_json::Value::Null;
        };
        loop {
            let line = lines.next().expect("server closed stdout").unwrap();
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == serde_json::json!(id) {
                return v;
            }
        }
    };
    call(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "pace-cli-test", "version": "1"}}}),
        Some(1),
    );
    call(
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        None,
    );
    let body = std::fs::read_to_string(crate::example("world-swap.propose.json")).unwrap();
    let args: serde_json::Value = serde_json::from_str(&body).unwrap();
    let proposed = call(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "propose", "arguments": args}}),
        Some(2),
    );
    let id = proposed["result"]["structuredContent"]["preview"]["proposal_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let waiting = call(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "confirm", "arguments": {"proposal_id": id, "confirm": true}}}),
        Some(3),
    );
    let error = &waiting["result"]["structuredContent"]["error"];
    assert_eq!(error["code"], "APPROVAL_REQUIRED", "{waiting}");
    assert_eq!(error["approval_url"], format!("{page_base}/approve/{id}"));

    let (st, page) = request(&addr, "GET", &format!("/approve/{id}"), "", "");
    assert_eq!(st, 200, "{page}");
    let at = page.find("name=\"token\" value=\"").unwrap() + 20;
    let form = format!(
        "token={}&credential={human}&decision=approve",
        &page[at..at + 66]
    );
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "POST /approve/{id} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
        form.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    let status = call(
        serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "status", "arguments": {"proposal_id": id}}}),
        Some(4),
    );
    assert_eq!(
        status["result"]["structuredContent"]["state"], "executed",
        "{status}"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// SIGTERM: the listener stops accepting, nothing is in flight, the process exits 0 and says
/// so; `/ready` answered before.
#[test]
fn serve_stops_gracefully_on_sigterm_with_exit_0() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--shutdown-grace-secs",
            "5",
        ])
        .env_remove("PACE_VERIFIER_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("pace serve exited early").unwrap();
        if let Some(a) = line.split("listening on http://").nth(1) {
            break a.split_whitespace().next().unwrap().to_owned();
        }
    };
    let (st, body) = request(&addr, "GET", "/ready", "", "");
    assert_eq!(st, 200, "{body}");
    let t0 = std::time::Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{rest:?}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(5));
    assert!(
        rest.iter()
            .any(|l| l.contains("stopped: nothing in flight")),
        "{rest:?}"
    );
    assert!(TcpStream::connect(&addr).is_err(), "still accepting");
}
