//! The HTTP JSON API, the approval page and the MCP streamable-HTTP endpoint on one listener.
//!
//! `POST /v1/propose`, `POST /v1/confirm` (JSON bodies, see [`crate::api`]; an
//! `Idempotency-Key` header makes retries safe, a replayed answer carries
//! `Idempotent-Replayed: true`), `GET /v1/status/{id}`, `GET /v1/history?limit=N`,
//! `GET /v1/pending?limit=N`, `GET /v1/policy|budgets|balances?account=` (the reads of
//! [`crate::reads`]), `POST /v1/quote` ([`crate::quote`]), `POST /v1/encode/{tool}`
//! ([`crate::encode`]),
//! `GET /v1/audit?from=&limit=`, `GET|POST /v1/halt` (the kill
//! switch), `GET|POST /approve/{id}` (the approval page, for humans), `GET /health`
//! (liveness), `GET /ready` (the chain answers), `GET /metrics` (Prometheus text, a `read`
//! token unless public), the RFC 9728 metadata at
//! `/.well-known/oauth-protected-resource[/mcp]` and `/mcp` (MCP). Every `/v1` call and every
//! `/mcp` request needs `Authorization: Bearer <API token>` (the scheme in any case); without
//! one the answer is 401 with `WWW-Authenticate: Bearer resource_metadata="…"`. Errors are
//! JSON on every route ([`crate::edge`]). In clear text the listener binds loopback only
//! ([`check_bind`]); anywhere else it must serve TLS ([`crate::tls`]).

use crate::{Error, Result, Service, api::Operation, error_response, mcp::McpServer};
use axum::{
    Form, Router,
    body::Bytes,
    extract::{Path, Query, Request, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
    routing::{get, post},
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use std::{collections::HashMap, net::SocketAddr, sync::Arc, time::Duration};

/// The names MCP requests may carry in their `Host` header besides configured ones: the
/// loopback names.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Who may reach `/mcp`: the `Host` names it answers to (DNS-rebinding protection) and the
/// browser origins it accepts. A request without an `Origin` header passes; one with an
/// `Origin` passes only if that origin is listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpAccess {
    /// Allowed `Host` names (or `host:port`).
    pub allowed_hosts: Vec<String>,
    /// Allowed origins (`https://app.example:443`, `:*` for any port).
    pub allowed_origins: Vec<String>,
}

impl Default for McpAccess {
    /// The loopback names, no origin.
    fn default() -> Self {
        Self {
            allowed_hosts: LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
            allowed_origins: Vec::new(),
        }
    }
}

impl McpAccess {
    /// The loopback names and `names` (a certificate's DNS names, say).
    pub fn with_names(names: impl IntoIterator<Item = String>) -> Self {
        let mut access = Self::default();
        for n in names {
            if !access.allowed_hosts.contains(&n) {
                access.allowed_hosts.push(n);
            }
        }
        access
    }
}

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

/// The bearer token of a request (`Authorization: Bearer …`, the scheme in any case).
pub(crate) fn bearer(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The routes, MCP included, with MCP reachable on the loopback names only.
pub fn router(service: Arc<Service>) -> Router {
    router_with(service, &McpAccess::default())
}

/// The routes, MCP reachable as `access` says.
pub fn router_with(service: Arc<Service>, access: &McpAccess) -> Router {
    let mcp_service = service.clone();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(access.allowed_hosts.clone())
        .with_allowed_origins(access.allowed_origins.clone())
        .enforce_origin_validation();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(Duration::from_secs(
        service.config.mcp_session_idle_secs.max(1),
    ));
    let sessions = Arc::new(sessions);
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(mcp_service.clone(), None)),
        sessions.clone(),
        config,
    );
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(
            (service.clone(), sessions),
            mcp_sessions,
        ))
        .layer(axum::middleware::from_fn_with_state(
            service.clone(),
            require_token,
        ));
    let well_known = crate::edge::RESOURCE_METADATA_PATH;
    approval_routes()
        .route("/ready", get(crate::edge::ready))
        .route("/metrics", get(crate::edge::metrics))
        .route(well_known, get(crate::edge::resource_metadata))
        .route(
            &format!("{well_known}/mcp"),
            get(crate::edge::resource_metadata),
        )
        .route("/v1/propose", post(propose))
        .route("/v1/confirm", post(confirm))
        .route("/v1/status/{id}", get(status))
        .route("/v1/history", get(history))
        .route("/v1/pending", get(pending))
        .route("/v1/audit", get(audit))
        .route("/v1/halt", get(halt_status).post(halt))
        .route("/v1/policy", get(read_policy))
        .route("/v1/budgets", get(read_budgets))
        .route("/v1/balances", get(read_balances))
        .route("/v1/encode/{tool}", post(encode))
        .route("/v1/quote", post(quote))
        .merge(mcp)
        .fallback(crate::edge::not_found)
        .layer(axum::middleware::from_fn(crate::edge::limit_body))
        .layer(axum::extract::DefaultBodyLimit::max(
            crate::edge::BODY_LIMIT,
        ))
        .layer(axum::middleware::from_fn_with_state(
            service.clone(),
            crate::edge::uniform_errors,
        ))
        .with_state(service)
}

/// The approval page and `/health` alone: what `pace serve --stdio` serves to the human on a
/// loopback listener of its own.
pub fn approval_router(service: Arc<Service>) -> Router {
    approval_routes()
        .fallback(crate::edge::not_found)
        .layer(axum::middleware::from_fn(crate::edge::limit_body))
        .layer(axum::extract::DefaultBodyLimit::max(
            crate::edge::BODY_LIMIT,
        ))
        .layer(axum::middleware::from_fn_with_state(
            service.clone(),
            crate::edge::uniform_errors,
        ))
        .with_state(service)
}

fn approval_routes() -> Router<Arc<Service>> {
    Router::new()
        .route("/health", get(crate::edge::health))
        .route("/approve/{id}", get(approval_page).post(approval_post))
}

/// Serves `service` on `listener` until `shutdown` completes.
pub async fn serve(
    service: Arc<Service>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    serve_router(router(service), listener, shutdown).await
}

/// Serves `routes` on the loopback `listener` until `shutdown` completes, under the default
/// [`crate::listener::Limits`].
pub async fn serve_router(
    routes: Router,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    serve_router_with(
        routes,
        listener,
        crate::listener::Limits::default(),
        shutdown,
    )
    .await
}

/// [`serve_router`] under `limits`.
pub async fn serve_router_with(
    routes: Router,
    listener: tokio::net::TcpListener,
    limits: crate::listener::Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let addr = listener
        .local_addr()
        .map_err(|e| Error::Config(e.to_string()))?;
    check_bind(&addr)?;
    crate::listener::serve(routes, listener, None, limits, shutdown).await
}

/// Refuses an MCP request without a valid token (401): a session is opened, and every
/// message sent, only with one. The tools authenticate each call again (scopes, rate).
async fn require_token(State(s): State<Arc<Service>>, request: Request, next: Next) -> Response {
    if let Err(e) = s.tokens().lookup(bearer(request.headers())) {
        s.refused_at_the_door(None, &e);
        return crate::edge::unauthorized(&s, request.headers(), request.uri().path());
    }
    next.run(request).await
}

/// MCP sessions, recorded in the store so that the limits hold across instances: a token
/// opens at most [`crate::ServiceConfig::mcp_sessions_per_token`] sessions (one more is
/// refused `429 TOO_MANY_SESSIONS` with `Retry-After`, and closed), and a session idle for
/// [`crate::ServiceConfig::mcp_session_idle_secs`] is expired (`404 SESSION_EXPIRED`: the
/// client opens a new one, as MCP asks of it). A session's stream lives on the instance that
/// opened it: behind a load balancer, `/mcp` is routed by its `Mcp-Session-Id`.
async fn mcp_sessions(
    State((s, sessions)): State<(Arc<Service>, Arc<LocalSessionManager>)>,
    request: Request,
    next: Next,
) -> Response {
    use rmcp::transport::streamable_http_server::session::SessionManager;
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let grant = s
        .tokens()
        .lookup(bearer(request.headers()))
        .map(|c| c.id)
        .unwrap_or_default();
    let (cap, idle) = (
        s.config.mcp_sessions_per_token,
        s.config.mcp_session_idle_secs,
    );
    let closing = request.method() == http::Method::DELETE;
    let store = s.store().clone();
    let now = s.now();
    if let Some(id) = session.clone() {
        let touched =
            tokio::task::spawn_blocking(move || store.touch_session(&id, now, idle)).await;
        match touched {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => {
                if let Some(id) = &session {
                    let _ = sessions.close_session(&Arc::from(id.as_str())).await;
                }
                return crate::edge::error(
                    StatusCode::NOT_FOUND,
                    "SESSION_EXPIRED",
                    "this MCP session expired (idle) or was closed: open a new one",
                );
            }
            Ok(Err(e)) => return json(e.http_status(), e.to_json().to_string()),
            Err(e) => {
                let e = Error::Store(format!("handler failed: {e}"));
                return json(e.http_status(), e.to_json().to_string());
            }
        }
    }
    let response = next.run(request).await;
    if closing && let Some(id) = session {
        let store = s.store().clone();
        let _ = tokio::task::spawn_blocking(move || store.close_session(&id)).await;
        return response;
    }
    let opened = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .filter(|_| session.is_none())
        .map(str::to_owned);
    if let Some(id) = opened {
        let store = s.store().clone();
        let instance = s.instance().id.clone();
        let recorded_id = id.clone();
        let recorded = tokio::task::spawn_blocking(move || {
            store.open_session(&recorded_id, &grant, &instance, now, cap, idle)
        })
        .await;
        let refusal = match recorded {
            Ok(Ok(true)) => return response,
            Ok(Ok(false)) => crate::edge::error(
                StatusCode::TOO_MANY_REQUESTS,
                "TOO_MANY_SESSIONS",
                &format!(
                    "this token holds {cap} open MCP sessions, its limit: close one (DELETE \
                     /mcp) or wait until one is idle for {idle} s"
                ),
            ),
            Ok(Err(e)) => json(e.http_status(), e.to_json().to_string()),
            Err(e) => {
                let e = Error::Store(format!("handler failed: {e}"));
                json(e.http_status(), e.to_json().to_string())
            }
        };
        let _ = sessions.close_session(&Arc::from(id.as_str())).await;
        return refusal;
    }
    response
}

fn json(status: u16, body: String) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The request's `Idempotency-Key` header, if it has a readable one.
fn idempotency_key(headers: &HeaderMap) -> std::result::Result<Option<String>, Box<Response>> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(v) => v.to_str().map(|k| Some(k.to_owned())).map_err(|_| {
            let (st, b) = error_response(&Error::BadRequest(
                "idempotency key: 1 to 255 visible ASCII characters".into(),
            ));
            Box::new(json(st, b))
        }),
    }
}

/// Authenticates, then runs `op` on a blocking thread (simulation is CPU-bound).
async fn run(service: Arc<Service>, headers: HeaderMap, op: Operation, body: Vec<u8>) -> Response {
    let secret = bearer(&headers).map(str::to_owned);
    let key = match idempotency_key(&headers) {
        Ok(k) => k,
        Err(response) => return *response,
    };
    // Held until the handler's answer is in (see `Service::admission`).
    let _admitted = match &service.admission {
        Some(gate) => match gate.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                service.metrics.inc("admission_waits", "");
                gate.clone().acquire_owned().await.ok()
            }
        },
        None => None,
    };
    let out = tokio::task::spawn_blocking(move || match service.authenticate(secret.as_deref()) {
        Ok(caller) => service.answer(&caller, op, &body, key.as_deref()),
        Err(e) => crate::api::Answer {
            status: e.http_status(),
            body: e.to_json().to_string(),
            replayed: false,
        },
    })
    .await
    .unwrap_or_else(|e| {
        let (status, body) = error_response(&Error::Store(format!("handler failed: {e}")));
        crate::api::Answer {
            status,
            body,
            replayed: false,
        }
    });
    let mut response = json(out.status, out.body);
    if out.replayed {
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    response
}

async fn propose(State(s): State<Arc<Service>>, headers: HeaderMap, body: Bytes) -> Response {
    run(s, headers, Operation::Propose, body.to_vec()).await
}

async fn confirm(State(s): State<Arc<Service>>, headers: HeaderMap, body: Bytes) -> Response {
    run(s, headers, Operation::Confirm, body.to_vec()).await
}

async fn halt(State(s): State<Arc<Service>>, headers: HeaderMap, body: Bytes) -> Response {
    run(s, headers, Operation::Halt, body.to_vec()).await
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

/// The `limit` query parameter as a request body.
fn limit_body(q: &HashMap<String, String>) -> std::result::Result<Vec<u8>, Box<Response>> {
    let limit = match q.get("limit").map(|l| l.parse::<u64>()) {
        None => None,
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => {
            let (st, b) = error_response(&Error::BadRequest(format!("limit: {e}")));
            return Err(Box::new(json(st, b)));
        }
    };
    Ok(serde_json::json!({ "limit": limit })
        .to_string()
        .into_bytes())
}

async fn history(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    match limit_body(&q) {
        Ok(body) => run(s, headers, Operation::History, body).await,
        Err(r) => *r,
    }
}

async fn pending(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    match limit_body(&q) {
        Ok(body) => run(s, headers, Operation::Pending, body).await,
        Err(r) => *r,
    }
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

/// A read of `/v1/policy`, `/v1/budgets` or `/v1/balances` (`?account=0x…` optional).
async fn read(
    s: Arc<Service>,
    headers: HeaderMap,
    q: HashMap<String, String>,
    f: fn(
        &Service,
        &crate::auth::Caller,
        Option<alloy_primitives::Address>,
    ) -> Result<serde_json::Value>,
) -> Response {
    let account = match q.get("account").map(|a| a.parse()) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(e)) => {
            let (st, b) = error_response(&Error::BadRequest(format!("account: {e}")));
            return json(st, b);
        }
    };
    let secret = bearer(&headers).map(str::to_owned);
    let out = tokio::task::spawn_blocking(move || {
        let caller = s.authenticate(secret.as_deref())?;
        f(&s, &caller, account)
    })
    .await
    .unwrap_or_else(|e| Err(Error::Store(format!("handler failed: {e}"))));
    match out {
        Ok(v) => json(200, v.to_string()),
        Err(e) => {
            let (st, b) = error_response(&e);
            json(st, b)
        }
    }
}

async fn read_policy(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    read(s, headers, q, Service::policy_view).await
}

async fn read_budgets(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    read(s, headers, q, Service::budgets).await
}

async fn read_balances(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    read(s, headers, q, Service::balances).await
}

/// `POST /v1/encode/{tool}` (`erc20_transfer`, `erc20_approve`, `swap`, `wrap`, `unwrap`): the
/// tool's arguments in, `{"intent": …}` out (a `/v1/propose` body as it is), nothing simulated
/// or signed.
async fn encode(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    Path(tool): Path<String>,
    body: Bytes,
) -> Response {
    let name = format!("encode_{tool}");
    let Some(tool) = crate::encode::TOOLS.iter().find(|t| **t == name).copied() else {
        let (st, b) = error_response(&Error::NotFound(format!("encoding tool {tool}")));
        return json(st, b);
    };
    tool_post(s, headers, tool, body, Service::encode).await
}

/// `POST /v1/quote`: the quote tool's arguments in, the quote out ([`crate::quote`]).
async fn quote(State(s): State<Arc<Service>>, headers: HeaderMap, body: Bytes) -> Response {
    tool_post(s, headers, "quote", body, |s, caller, _, args| {
        s.quote(caller, args)
    })
    .await
}

/// A `POST` of tool `tool`'s arguments, checked as the MCP tool checks them
/// ([`crate::args::read`]; a member left out is `null`), then answered by `f`.
async fn tool_post(
    s: Arc<Service>,
    headers: HeaderMap,
    tool: &'static str,
    body: Bytes,
    f: fn(&Service, &crate::auth::Caller, &str, serde_json::Value) -> Result<serde_json::Value>,
) -> Response {
    let secret = bearer(&headers).map(str::to_owned);
    let out = tokio::task::spawn_blocking(move || {
        let caller = s.authenticate(secret.as_deref())?;
        let args = serde_json::from_slice::<serde_json::Value>(&body)
            .map_err(|e| Error::BadRequest(e.to_string()))?;
        let args = crate::args::read(tool, args)?;
        f(&s, &caller, tool, args)
    })
    .await
    .unwrap_or_else(|e| Err(Error::Store(format!("handler failed: {e}"))));
    match out {
        Ok(v) => json(200, v.to_string()),
        Err(e) => {
            let (st, b) = error_response(&e);
            json(st, b)
        }
    }
}

async fn halt_status(State(s): State<Arc<Service>>, headers: HeaderMap) -> Response {
    let secret = bearer(&headers).map(str::to_owned);
    let out = tokio::task::spawn_blocking(move || {
        let caller = s.authenticate(secret.as_deref())?;
        if !caller.has(crate::auth::Scope::Halt) {
            s.require_audited(&caller, crate::auth::Scope::Read)?;
        }
        s.halt_status()
    })
    .await
    .unwrap_or_else(|e| Err(Error::Store(format!("handler failed: {e}"))));
    match out {
        Ok(h) => json(200, serde_json::to_string(&h).unwrap_or_default()),
        Err(e) => {
            let (st, b) = error_response(&e);
            json(st, b)
        }
    }
}

/// An approval page response with its protective headers.
fn html(status: u16, body: String) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (code, body).into_response();
    for (k, v) in crate::approval::PAGE_HEADERS {
        response
            .headers_mut()
            .insert(k, HeaderValue::from_static(v));
    }
    response
}

async fn approval_page(State(s): State<Arc<Service>>, Path(id): Path<String>) -> Response {
    let (status, body) = tokio::task::spawn_blocking(move || s.approval_page(&id))
        .await
        .unwrap_or_else(|e| (500, format!("handler failed: {e}")));
    html(status, body)
}

async fn approval_post(
    State(s): State<Arc<Service>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .map(str::to_owned);
    let (status, body) =
        tokio::task::spawn_blocking(move || s.approval_post(&id, origin.as_deref(), &form))
            .await
            .unwrap_or_else(|e| (500, format!("handler failed: {e}")));
    html(status, body)
}
