//! The HTTP JSON API and the MCP streamable-HTTP endpoint on one listener.
//!
//! `POST /v1/propose`, `POST /v1/confirm` (JSON bodies, see [`crate::api`]),
//! `GET /v1/status/{id}`, `GET /v1/history?limit=N`, `GET /v1/audit?from=&limit=`,
//! `GET /health`, `GET /metrics` (Prometheus text) and `/mcp` (MCP). Every `/v1` call needs
//! `Authorization: Bearer <API token>`. In clear text the listener binds loopback only
//! ([`check_bind`]); anywhere else it must serve TLS ([`crate::tls`]).

use crate::{Error, Result, Service, api::Operation, error_response, mcp::McpServer};
use axum::{
    Router,
    body::Bytes,
    extract::{Path, Query, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use std::{collections::HashMap, net::SocketAddr, sync::Arc};

/// Refuses a clear-text listener that is not on a loopback address: API tokens must not cross
/// a network unencrypted (serve TLS with [`crate::tls::serve_tls`] instead).
pub fn check_bind(addr: &SocketAddr) -> Result<()> {
    if addr.ip().is_loopback() {
        Ok(())
    } else {
        Err(Error::Config(format!(
            "refusing to listen on {addr} without TLS: give --tls-cert and --tls-key, or bind \
             a loopback address (e.g. 127.0.0.1:{})",
            addr.port()
        )))
    }
}

/// The bearer token of a request.
pub(crate) fn bearer(headers: &http::HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// The routes, MCP included.
pub fn router(service: Arc<Service>) -> Router {
    let mcp_service = service.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(mcp_service.clone(), None)),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    Router::new()
        .route("/health", get(health))
        .route("/metrics", get(metrics))
        .route("/v1/propose", post(propose))
        .route("/v1/confirm", post(confirm))
        .route("/v1/status/{id}", get(status))
        .route("/v1/history", get(history))
        .route("/v1/audit", get(audit))
        .nest_service("/mcp", mcp)
        .with_state(service)
}

/// Serves `service` on `listener` until `shutdown` completes.
pub async fn serve(
    service: Arc<Service>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let addr = listener
        .local_addr()
        .map_err(|e| Error::Config(e.to_string()))?;
    check_bind(&addr)?;
    axum::serve(listener, router(service))
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| Error::Config(format!("listener {addr}: {e}")))
}

fn json(status: u16, body: String) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Authenticates, then runs `op` on a blocking thread (simulation is CPU-bound).
async fn run(service: Arc<Service>, headers: HeaderMap, op: Operation, body: Vec<u8>) -> Response {
    let secret = bearer(&headers).map(str::to_owned);
    let out = tokio::task::spawn_blocking(move || match service.authenticate(secret.as_deref()) {
        Ok(caller) => service.handle(&caller, op, &body),
        Err(e) => error_response(&e),
    })
    .await
    .unwrap_or_else(|e| error_response(&Error::Store(format!("handler failed: {e}"))));
    json(out.0, out.1)
}

async fn propose(State(s): State<Arc<Service>>, headers: HeaderMap, body: Bytes) -> Response {
    run(s, headers, Operation::Propose, body.to_vec()).await
}

async fn confirm(State(s): State<Arc<Service>>, headers: HeaderMap, body: Bytes) -> Response {
    run(s, headers, Operation::Confirm, body.to_vec()).await
}

async fn status(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let body = serde_json::json!({ "proposal_id": id })
        .to_string()
        .into_bytes();
    run(s, headers, Operation::Status, body).await
}

async fn history(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let limit = match q.get("limit").map(|l| l.parse::<u64>()) {
        None => None,
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => {
            let (st, b) = error_response(&Error::BadRequest(format!("limit: {e}")));
            return json(st, b);
        }
    };
    let body = serde_json::json!({ "limit": limit })
        .to_string()
        .into_bytes();
    run(s, headers, Operation::History, body).await
}

async fn audit(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let num = |k: &str, d: u64| q.get(k).map_or(Ok(d), |v| v.parse::<u64>());
    let (Ok(from), Ok(limit)) = (num("from", 1), num("limit", 100)) else {
        let (st, b) = error_response(&Error::BadRequest("from and limit are integers".into()));
        return json(st, b);
    };
    let secret = bearer(&headers).map(str::to_owned);
    let out = tokio::task::spawn_blocking(move || {
        let caller = s.authenticate(secret.as_deref())?;
        s.audit_log(&caller, from, limit)
    })
    .await
    .unwrap_or_else(|e| Err(Error::Store(format!("handler failed: {e}"))));
    match out {
        Ok(records) => json(200, serde_json::to_string(&records).unwrap_or_default()),
        Err(e) => {
            let (st, b) = error_response(&e);
            json(st, b)
        }
    }
}

async fn health(State(s): State<Arc<Service>>) -> Response {
    let body = serde_json::json!({
        "status": "ok",
        "verifier": s.verifier(),
        "block": s.state().chain.block_number().ok(),
    });
    json(200, body.to_string())
}

async fn metrics(State(s): State<Arc<Service>>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        s.metrics().render(),
    )
        .into_response()
}
