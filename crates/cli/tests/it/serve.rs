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

#[test]
fn serve_then_audit_verify_detects_tampering() {
    let dir = scratch("serve");
    let store = dir.join("pace.sqlite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["serve", "--listen", "127.0.0.1:0", "--store"])
        .arg(&store)
        .env_remove("PACE_VERIFIER_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut token, mut addr) = (None, None);
    while addr.is_none() {
        let line = lines.next().expect("pace serve exited early").unwrap();
        if let Some(t) = line.split("(every scope): ").nth(1) {
            token = Some(t.to_owned());
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
        4,
        "{tools}"
    );
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
