//! The operator's service: JSON errors on every route with one body limit, the 401 challenge
//! and its RFC 9728 metadata, a wrong chain id as a client mistake, refusals counted and
//! audited, `/metrics` behind a token, `/ready` while the node is down, and draining that
//! waits for a confirmation in flight.

use crate::{
    common::{ALL, Setup, grant},
    node::{OnAnvil, quick},
};
use pace_service::{
    api::Operation,
    auth::Scope,
    http::serve,
    store::{ProposalState, SqliteStore},
};
use serde_json::{Value, json};
use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    sync::Arc,
    time::{Duration, Instant},
};

/// An answer: status, header block (lowercased names), body.
struct Reply {
    status: u16,
    headers: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("no error code: {}", self.body))
            .to_owned()
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }
}

/// One HTTP/1.1 request with `extra` header lines (each ending in `\r\n`).
fn call(addr: SocketAddr, method: &str, path: &str, extra: &str, body: &str) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    Reply {
        status: head[9..12].parse().unwrap(),
        headers: head.to_owned(),
        body: body.to_owned(),
    }
}

/// Serves `service` on a free loopback port from `runtime`.
fn start(runtime: &tokio::runtime::Runtime, service: Arc<pace_service::Service>) -> SocketAddr {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    runtime.spawn(serve(service, listener, std::future::pending()));
    addr
}

const JSON: &str = "Content-Type: application/json\r\n";

#[test]
fn every_error_is_json_on_v1_and_mcp_with_one_body_limit() {
    let s = Setup::default();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let addr = start(&rt, s.service);
    let auth = "Authorization: Bearer alice\r\n";

    let r = call(addr, "GET", "/v1/nothing-here", auth, "");
    assert_eq!((r.status, r.code().as_str()), (404, "NOT_FOUND"));
    let r = call(addr, "GET", "/v1/propose", auth, "");
    assert_eq!((r.status, r.code().as_str()), (405, "METHOD_NOT_ALLOWED"));
    assert!(r.header("allow").is_some_and(|a| a.contains("POST")));
    let form = "Content-Type: application/x-www-form-urlencoded\r\nAuthorization: Bearer alice\r\n";
    let r = call(addr, "POST", "/v1/propose", form, "{}");
    assert_eq!(
        (r.status, r.code().as_str()),
        (415, "UNSUPPORTED_MEDIA_TYPE")
    );
    // One limit for both: a body declared just over 1 MiB is refused on /v1 and on /mcp
    // alike, before it is read (none is sent: a server closing on unread bytes resets the
    // connection, and the answer with it).
    for path in ["/v1/propose", "/mcp"] {
        let mut s = TcpStream::connect(addr).unwrap();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}{JSON}Content-Length: {}\r\nConnection: close\r\n\r\n",
            pace_service::edge::BODY_LIMIT + 1
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 413"), "{path}: {out}");
        assert!(out.contains("\"PAYLOAD_TOO_LARGE\""), "{path}: {out}");
    }
    // The MCP transport's own refusal (no event-stream in Accept) is JSON too.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let r = call(addr, "POST", "/mcp", &format!("{auth}{JSON}"), &init);
    assert!(r.status >= 400, "{}", r.body);
    assert!(!r.code().is_empty());
}

#[test]
fn unauthenticated_requests_get_the_challenge_and_its_metadata() {
    let s = Setup::default();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let addr = start(&rt, s.service.clone());
    let before = s.service.metrics().get("refusals", "UNAUTHORIZED");
    for path in ["/mcp", "/v1/history"] {
        let method = if path == "/mcp" { "POST" } else { "GET" };
        let r = call(addr, method, path, JSON, "{}");
        assert_eq!(
            (r.status, r.code().as_str()),
            (401, "UNAUTHORIZED"),
            "{path}"
        );
        let challenge = r.header("www-authenticate").unwrap();
        let suffix = if path == "/mcp" { "/mcp" } else { "" };
        assert_eq!(
            challenge,
            format!(
                "Bearer resource_metadata=\"http://127.0.0.1{}{suffix}\"",
                pace_service::edge::RESOURCE_METADATA_PATH
            )
        );
    }
    assert_eq!(
        s.service.metrics().get("refusals", "UNAUTHORIZED"),
        before + 2
    );
    let r = call(
        addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        "",
        "",
    );
    assert_eq!(r.status, 200);
    let doc = r.json();
    assert_eq!(doc["resource"], "http://127.0.0.1/mcp");
    assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    assert!(
        doc["scopes_supported"]
            .as_array()
            .unwrap()
            .contains(&json!("propose"))
    );
    // The scheme is case-insensitive.
    let r = call(
        addr,
        "GET",
        "/v1/history",
        "Authorization: bearer alice\r\n",
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call(
        addr,
        "GET",
        "/v1/history",
        "Authorization: BEARER alice\r\n",
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn a_wrong_chain_id_is_a_client_mistake() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let mut intent = s.swap.clone();
    intent.chain_id += 1;
    let body = json!({ "intent": intent }).to_string();
    let a = s
        .service
        .answer(&alice, Operation::Propose, body.as_bytes(), None);
    assert_eq!(a.status, 422, "{}", a.body);
    let v: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(v["error"]["code"], "WRONG_CHAIN");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("chain {}", intent.chain_id))
    );
}

#[test]
fn refusals_naming_a_caller_are_counted_and_audited_and_metrics_need_a_read_token() {
    let mut limited = grant("slow", &[Scope::Propose]);
    limited.rate_per_minute = 1;
    let s = Setup::new(
        vec![
            grant("alice", ALL),
            limited,
            grant("writer", &[Scope::Propose]),
        ],
        Default::default(),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let addr = start(&rt, s.service.clone());
    // A scope refusal on a read names its caller: counted and audited.
    let r = call(
        addr,
        "GET",
        "/v1/history",
        "Authorization: Bearer writer\r\n",
        "",
    );
    assert_eq!((r.status, r.code().as_str()), (403, "FORBIDDEN_SCOPE"));
    // The metrics too need the read scope.
    let r = call(
        addr,
        "GET",
        "/metrics",
        "Authorization: Bearer writer\r\n",
        "",
    );
    assert_eq!((r.status, r.code().as_str()), (403, "FORBIDDEN_SCOPE"));
    // Over its rate, three times: counted each time, audited once in the minute.
    for _ in 0..4 {
        call(
            addr,
            "GET",
            "/v1/pending",
            "Authorization: Bearer slow\r\n",
            "",
        );
    }
    let m = s.service.metrics();
    assert_eq!(
        m.get("refusals", "FORBIDDEN_SCOPE"),
        3,
        "history, metrics, the first pending"
    );
    assert_eq!(m.get("refusals", "RATE_LIMITED"), 3);
    let log = s.service.state().store.audit_records(1, 100).unwrap();
    let refusals: Vec<(String, String)> = log
        .iter()
        .filter(|r| r.entry.kind.as_str() == "refuse")
        .map(|r| (r.entry.actor.clone(), r.entry.codes.join(",")))
        .collect();
    assert_eq!(
        refusals,
        [
            ("writer".to_owned(), "FORBIDDEN_SCOPE".to_owned()),
            ("writer".to_owned(), "FORBIDDEN_SCOPE".to_owned()),
            ("slow".to_owned(), "FORBIDDEN_SCOPE".to_owned()),
            ("slow".to_owned(), "RATE_LIMITED".to_owned()),
        ]
    );
    let r = call(
        addr,
        "GET",
        "/metrics",
        "Authorization: Bearer alice\r\n",
        "",
    );
    assert_eq!(r.status, 200);
    assert!(
        r.body
            .contains("pace_refusals_total{code=\"RATE_LIMITED\"} 3\n"),
        "{}",
        r.body
    );
    s.service.set_metrics_public(true);
    assert_eq!(call(addr, "GET", "/metrics", "", "").status, 200);
}

#[test]
fn ready_is_503_while_the_node_is_down_and_health_stays_ok() {
    let mut node = OnAnvil::start();
    let service = Arc::new(node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(300)));
    let addr = start(&node.runtime, service);
    let r = call(addr, "GET", "/ready", "", "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["block"].as_u64().is_some());
    node.anvil.kill();
    let r = call(addr, "GET", "/ready", "", "");
    assert_eq!(
        (r.status, r.code().as_str()),
        (503, "NOT_READY"),
        "{}",
        r.body
    );
    let r = call(addr, "GET", "/health", "", "");
    assert_eq!((r.status, r.json()["status"].as_str()), (200, Some("ok")));
}

#[test]
fn draining_waits_for_a_confirmation_in_flight_and_refuses_new_ones() {
    let node = OnAnvil::start();
    let service = Arc::new(node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(1_500)));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    // No block is mined: the confirmation waits its whole receipt window (1.5 s).
    node.set_automine(false);
    let confirming = {
        let (service, alice, id) = (service.clone(), alice.clone(), id.clone());
        std::thread::spawn(move || {
            let body = json!({ "proposal_id": id, "confirm": true }).to_string();
            service.answer(&alice, Operation::Confirm, body.as_bytes(), None)
        })
    };
    let t0 = Instant::now();
    while service.in_flight() == 0 {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "the confirm never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let drained = node
        .runtime
        .block_on(service.drain(Duration::from_secs(20)));
    let waited = t0.elapsed();
    assert!(drained);
    assert!(waited >= Duration::from_millis(1_000), "{waited:?}");
    let answer = confirming.join().unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    // What it did is recorded: the transaction's hash is in the store.
    let p = service.state().store.proposal(&id).unwrap().unwrap();
    assert_eq!(p.state, ProposalState::Uncertain);
    assert_eq!(service.state().store.tx_hashes(&id).unwrap().len(), 1);
    // While draining, nothing new can sign; reads still answer.
    let again = service.answer(
        &alice,
        Operation::Propose,
        json!({ "intent": node.swap }).to_string().as_bytes(),
        None,
    );
    assert_eq!(again.status, 503);
    assert!(again.body.contains("SHUTTING_DOWN"), "{}", again.body);
    let status = service.answer(
        &alice,
        Operation::Status,
        json!({ "proposal_id": id }).to_string().as_bytes(),
        None,
    );
    assert_eq!(status.status, 200);
    node.set_automine(true);
}

#[test]
fn the_reads_and_encoders_answer_on_v1_too() {
    let s = Setup::default();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let addr = start(&rt, s.service.clone());
    let auth = "Authorization: Bearer alice\r\n";
    let r = call(addr, "GET", "/v1/policy", auth, "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["policy"].get("metadata_patterns").is_none());
    let r = call(addr, "GET", "/v1/budgets", auth, "");
    assert_eq!((r.status, r.json()["budgets"].clone()), (200, json!([])));
    let r = call(addr, "GET", "/v1/balances?account=0x12", auth, "");
    assert_eq!((r.status, r.code().as_str()), (400, "BAD_REQUEST"));
    let args = json!({ "weth": s.addrs.weth, "amount": "1000" }).to_string();
    let r = call(
        addr,
        "POST",
        "/v1/encode/wrap",
        &format!("{auth}{JSON}"),
        &args,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["intent"]["calls"][0]["value"], "1000");
    let r = call(
        addr,
        "POST",
        "/v1/encode/mint",
        &format!("{auth}{JSON}"),
        &args,
    );
    assert_eq!((r.status, r.code().as_str()), (404, "NOT_FOUND"));
}
