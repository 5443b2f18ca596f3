//! The HTTP API and an MCP client session (rmcp over streamable HTTP) against a real listener
//! on 127.0.0.1.

use crate::common::Setup;
use pace_service::http::{check_bind, serve};
use rmcp::{
    ServiceExt,
    model::CallToolRequestParams,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::{Value, json};
use std::net::SocketAddr;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::oneshot,
};

/// One HTTP/1.1 request; returns the status and the body.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).await.unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap();
    (status, body)
}

fn parse(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

async fn start(s: &Setup) -> (SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let service = s.service.clone();
    let task = tokio::spawn(async move {
        serve(service, listener, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    (addr, stop, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_api_previews_confirms_strictly_and_replays() {
    let s = Setup::default();
    let (addr, stop, task) = start(&s).await;
    let intent = serde_json::to_value(&s.swap).unwrap();
    let propose = json!({ "intent": intent }).to_string();

    let (st, body) = request(addr, "GET", "/health", None, "").await;
    assert_eq!((st, parse(&body)["status"].as_str()), (200, Some("ok")));
    let (st, body) = request(addr, "POST", "/v1/propose", None, &propose).await;
    assert_eq!(
        (st, parse(&body)["error"]["code"].as_str()),
        (401, Some("UNAUTHORIZED"))
    );
    let (st, body) = request(
        addr,
        "POST",
        "/v1/propose",
        Some("alice"),
        "{\"intent\": 1}",
    )
    .await;
    assert_eq!(
        (st, parse(&body)["error"]["code"].as_str()),
        (400, Some("BAD_REQUEST"))
    );

    let (st, body) = request(addr, "POST", "/v1/propose", Some("alice"), &propose).await;
    assert_eq!(st, 200, "{body}");
    let preview = &parse(&body)["preview"];
    let id = preview["proposal_id"].as_str().unwrap().to_owned();
    assert_eq!(preview["approved"], json!(true));
    let weth = preview["deltas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["symbol"] == json!("WETH"))
        .unwrap();
    assert_eq!(
        (weth["delta"].as_str(), weth["human"].as_str()),
        (Some("-1000000000000000000"), Some("-1"))
    );

    // The string "false" is not a boolean: refused, nothing signed.
    for bad in ["\"false\"", "\"true\"", "1"] {
        let body = format!("{{\"proposal_id\": \"{id}\", \"confirm\": {bad}}}");
        let (st, resp) = request(addr, "POST", "/v1/confirm", Some("alice"), &body).await;
        assert_eq!(
            (st, parse(&resp)["error"]["code"].as_str()),
            (400, Some("BAD_REQUEST")),
            "{bad}"
        );
    }
    let (_, status) = request(addr, "GET", &format!("/v1/status/{id}"), Some("alice"), "").await;
    assert_eq!(parse(&status)["state"], json!("proposed"));

    let confirm = json!({ "proposal_id": id, "confirm": true }).to_string();
    let (st, first) = request(addr, "POST", "/v1/confirm", Some("alice"), &confirm).await;
    assert_eq!(
        (st, parse(&first)["state"].as_str()),
        (200, Some("executed")),
        "{first}"
    );
    // A duplicate delivery replays the recorded response instead of failing or re-running.
    let (st, again) = request(addr, "POST", "/v1/confirm", Some("alice"), &confirm).await;
    assert_eq!((st, again), (200, first));

    let (_, status) = request(addr, "GET", &format!("/v1/status/{id}"), Some("alice"), "").await;
    assert_eq!(parse(&status)["state"], json!("executed"));
    let (_, history) = request(addr, "GET", "/v1/history?limit=5", Some("alice"), "").await;
    assert_eq!(parse(&history).as_array().unwrap().len(), 1);
    let (_, audit) = request(addr, "GET", "/v1/audit?from=1", Some("alice"), "").await;
    let kinds: Vec<_> = parse(&audit)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["entry"]["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["propose", "confirm", "sign", "outcome"], "{audit}");
    let (st, _) = request(addr, "GET", "/metrics", None, "").await;
    assert_eq!(st, 401, "the metrics need a read token");
    let (st, metrics) = request(addr, "GET", "/metrics", Some("alice"), "").await;
    assert_eq!(st, 200);
    assert!(
        metrics.contains("pace_submissions_total{state=\"executed\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("pace_idempotent_replays_total{source=\"recorded\"} 1"),
        "{metrics}"
    );

    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_client_session_over_streamable_http() {
    let s = Setup::default();
    let (addr, stop, task) = start(&s).await;
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header("alice");
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();

    let mut tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    tools.sort();
    for name in ["confirm", "history", "pending", "propose", "status"] {
        assert!(tools.iter().any(|t| t == name), "{name}: {tools:?}");
    }

    let args = json!({ "intent": serde_json::to_value(&s.swap).unwrap() });
    let proposed = client
        .call_tool(
            CallToolRequestParams::new("propose").with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(proposed.is_error, Some(true), "{proposed:?}");
    let preview = &proposed.structured_content.unwrap()["preview"];
    let id = preview["proposal_id"].as_str().unwrap().to_owned();
    assert_eq!(preview["approved"], json!(true));

    // confirm: "false" is refused before the tool runs.
    let bad = json!({ "proposal_id": id, "confirm": "false" });
    let refused = client
        .call_tool(
            CallToolRequestParams::new("confirm").with_arguments(bad.as_object().unwrap().clone()),
        )
        .await;
    assert!(
        refused.is_err() || refused.as_ref().unwrap().is_error == Some(true),
        "{refused:?}"
    );
    assert_eq!(s.next_sequence(0), 0);

    let ok = json!({ "proposal_id": id, "confirm": true });
    let done = client
        .call_tool(
            CallToolRequestParams::new("confirm").with_arguments(ok.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(done.structured_content.unwrap()["state"], json!("executed"));

    let status = json!({ "proposal_id": id });
    let st = client
        .call_tool(
            CallToolRequestParams::new("status")
                .with_arguments(status.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(st.structured_content.unwrap()["state"], json!("executed"));
    client.cancel().await.unwrap();

    // Without a token, or with an unknown one, no session opens: 401 before any tool.
    for config in [
        StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp")),
        StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
            .auth_header("mallory"),
    ] {
        let refused = ().serve(StreamableHttpClientTransport::from_config(config)).await;
        assert!(refused.is_err(), "a session opened without a valid token");
    }
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let (st, body) = request(addr, "POST", "/mcp", None, &init).await;
    assert_eq!(
        (st, parse(&body)["error"]["code"].as_str()),
        (401, Some("UNAUTHORIZED"))
    );

    stop.send(()).unwrap();
    task.await.unwrap();
}

#[test]
fn non_loopback_listeners_are_refused() {
    assert!(check_bind(&"127.0.0.1:8545".parse().unwrap()).is_ok());
    assert!(check_bind(&"[::1]:8545".parse().unwrap()).is_ok());
    let err = check_bind(&"0.0.0.0:8545".parse().unwrap()).unwrap_err();
    assert!(err.to_string().contains("loopback"), "{err}");
}

/// More concurrent requests than the embedded world admits at once: they wait their turn
/// (counted) and every one is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_past_the_embedded_worlds_slots_wait_their_turn_and_are_all_answered() {
    let s = Setup::default();
    let (addr, stop, task) = start(&s).await;
    let slots = 2 * std::thread::available_parallelism().map_or(1, usize::from);
    let n = 4 * slots + 8;
    let sent: Vec<_> = (0..n)
        .map(|i| {
            // Distinct requests (one identical to another in flight is `IN_PROGRESS`).
            let body = json!({ "intent": s.swap, "idempotency_key": format!("k-{i}") });
            let body = body.to_string();
            tokio::spawn(
                async move { request(addr, "POST", "/v1/propose", Some("alice"), &body).await },
            )
        })
        .collect();
    let mut ids = std::collections::BTreeSet::new();
    for answer in sent {
        let (status, body) = answer.await.unwrap();
        assert_eq!(status, 200, "{body}");
        ids.insert(
            parse(&body)["preview"]["proposal_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert_eq!(ids.len(), n, "one proposal per request");
    assert!(
        s.service.metrics().get("admission_waits", "") >= 1,
        "{n} requests at once past {slots} slots: some waited"
    );
    stop.send(()).unwrap();
    task.await.unwrap();
}
