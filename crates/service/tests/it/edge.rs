//! Limits at the edge, each pushed past its limit while the service keeps answering others:
//! the header-read timeout (a stalled head, an idle keep-alive connection), the connection
//! limits (per address and in all), the MCP sessions per token and their idle expiry; and
//! `Retry-After` on a 429 and a 503.

use crate::common::{ALL, Setup, grant, listen};
use pace_service::{ServiceConfig, auth::Scope, listener::Limits};
use std::{net::SocketAddr, time::Duration};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpSocket, TcpStream},
};

/// Serves `s` under `limits` on a free loopback port.
async fn listen_with(s: &Setup, limits: Limits) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(pace_service::http::serve_router_with(
        pace_service::http::router(s.service.clone()),
        listener,
        limits,
        std::future::pending(),
    ));
    addr
}

/// A connection to `addr` from the loopback address `from` (127.0.0.x).
async fn connect_from(from: &str, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(addr).await.unwrap()
}

/// `GET /health` on a fresh connection from `from`: the status line's code.
async fn health_from(from: &str, addr: SocketAddr) -> u16 {
    let mut c = connect_from(from, addr).await;
    c.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    let read = tokio::time::timeout(Duration::from_secs(5), c.read_to_string(&mut out)).await;
    assert!(read.is_ok(), "no answer within 5 s");
    out.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// Whether the server closed `c` within `within` (a read returns end of stream or an error).
async fn closed_within(c: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, c.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_head_and_an_idle_connection_are_closed_while_others_are_answered() {
    let s = Setup::default();
    let limits = Limits {
        header_timeout: Duration::from_millis(600),
        ..Limits::default()
    };
    let addr = listen_with(&s, limits).await;
    // A client that stalls in the middle of its request head.
    let mut stalled = connect_from("127.0.0.1", addr).await;
    stalled
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    // A keep-alive client that asks once, then idles.
    let mut idle = connect_from("127.0.0.1", addr).await;
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 512];
    let n = idle.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // Others are answered meanwhile.
    assert_eq!(health_from("127.0.0.1", addr).await, 200);
    assert!(closed_within(&mut stalled, Duration::from_secs(3)).await);
    assert!(closed_within(&mut idle, Duration::from_secs(3)).await);
    assert_eq!(health_from("127.0.0.1", addr).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_a_limit_make_room_or_are_refused_and_others_are_answered() {
    let s = Setup::default();
    let limits = Limits {
        max_connections: 4,
        max_per_ip: 2,
        header_timeout: Duration::from_secs(30),
    };
    let addr = listen_with(&s, limits).await;
    // Five idle connections from one address: each past the second closes its oldest.
    let mut hog = Vec::new();
    for _ in 0..5 {
        hog.push(connect_from("127.0.0.2", addr).await);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    let mut evicted = 0;
    for c in &mut hog {
        evicted += usize::from(closed_within(c, Duration::from_millis(300)).await);
    }
    assert_eq!(evicted, 3);
    // Another address is answered.
    assert_eq!(health_from("127.0.0.1", addr).await, 200);
    drop(hog);
    tokio::time::sleep(Duration::from_millis(100)).await;

    // Four busy connections (a request head sent, its body still awaited), from four
    // addresses: the limit in all. A fifth is refused at once, 503 with Retry-After...
    let mut busy = Vec::new();
    for i in 2..6 {
        let mut c = connect_from(&format!("127.0.0.{i}"), addr).await;
        c.write_all(
            b"POST /v1/propose HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
        busy.push(c);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut refused = connect_from("127.0.0.1", addr).await;
    refused
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(5), refused.read_to_string(&mut out))
        .await
        .unwrap()
        .unwrap();
    assert!(out.starts_with("HTTP/1.1 503"), "{out}");
    assert!(out.contains("retry-after: 1"), "{out}");
    assert!(out.contains("TOO_MANY_CONNECTIONS"), "{out}");
    // ...and once one busy client is gone, others are answered again.
    drop(busy.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(health_from("127.0.0.1", addr).await, 200);
}

/// An MCP session opened with `token`, or the refusal's text.
async fn session(
    addr: SocketAddr,
    token: &str,
) -> Result<rmcp::service::RunningService<rmcp::RoleClient, ()>, String> {
    use rmcp::{
        ServiceExt,
        transport::{
            StreamableHttpClientTransport,
            streamable_http_client::StreamableHttpClientTransportConfig,
        },
    };
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .map_err(|e| e.to_string())
}

/// An MCP `initialize` over HTTP as the holder of `token`: the status and the session id.
async fn initialize(
    http: &reqwest::Client,
    addr: SocketAddr,
    token: &str,
) -> (u16, Option<String>) {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": { "name": "edge-test", "version": "1" } },
    });
    let r = http
        .post(format!("http://{addr}/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap();
    let id = r
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (r.status().as_u16(), id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_sessions_are_capped_per_token_and_expire_when_idle() {
    let config = ServiceConfig {
        mcp_sessions_per_token: 2,
        mcp_session_idle_secs: 1,
        ..ServiceConfig::default()
    };
    let s = Setup::new(vec![grant("alice", ALL), grant("bob", ALL)], config);
    let addr = listen(&s).await;
    let http = reqwest::Client::new();
    let (status, first) = initialize(&http, addr, "alice").await;
    assert_eq!(status, 200);
    let first = first.expect("a session id");
    assert_eq!(initialize(&http, addr, "alice").await.0, 200);
    // A third session of one token: refused, with when to retry.
    assert_eq!(initialize(&http, addr, "alice").await, (429, None));
    // Another token is served, through the SDK's client too.
    let bob = session(addr, "bob").await.unwrap();
    assert!(bob.list_all_tools().await.is_ok());
    // Idle past its limit, a session is gone (404, as MCP has a client open a new one).
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let r = http
        .post(format!("http://{addr}/mcp"))
        .bearer_auth("alice")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &first)
        .json(&serde_json::json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert!(r.text().await.unwrap().contains("SESSION_EXPIRED"));
    // The idle ones no longer count: a new session opens.
    assert_eq!(initialize(&http, addr, "alice").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_429_and_503_says_when_to_retry() {
    let mut limited = grant("limited", &[Scope::Read]);
    limited.rate_per_minute = 1;
    let mut ops = grant("ops", &[Scope::Halt, Scope::Read]);
    ops.caller_type = pace_service::audit::CallerType::Human;
    let s = Setup::new(
        vec![grant("alice", ALL), limited, ops],
        ServiceConfig::default(),
    );
    let addr = listen(&s).await;
    let get = |token: &'static str, path: &'static str| async move {
        let mut c = TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        );
        c.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).await.unwrap();
        out
    };
    let post = |token: &'static str, path: &'static str, body: String| async move {
        let mut c = TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        c.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).await.unwrap();
        out
    };
    assert!(
        get("limited", "/v1/history")
            .await
            .starts_with("HTTP/1.1 200")
    );
    let limited = get("limited", "/v1/history").await;
    assert!(limited.starts_with("HTTP/1.1 429"), "{limited}");
    let secs: u64 = limited
        .lines()
        .find_map(|l| l.strip_prefix("retry-after: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("a Retry-After header");
    assert!((1..=60).contains(&secs), "{secs}");
    // The kill switch: every confirm 503 HALTED, with when to retry.
    let halted = post("ops", "/v1/halt", r#"{"halted": true}"#.to_owned()).await;
    assert!(halted.starts_with("HTTP/1.1 200"), "{halted}");
    let intent = serde_json::json!({ "intent": s.swap, "execute": true }).to_string();
    let refused = post("alice", "/v1/propose", intent).await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("retry-after: 30"), "{refused}");
    assert!(refused.contains("\"retry_after_secs\":30"), "{refused}");
}
