//! The listener's edge, the same for `/v1` and `/mcp`: one body limit, JSON error bodies for
//! every refusal the routes themselves do not answer (404, 405, 413, 415 and the MCP
//! transport's own), the 401 challenge with its RFC 9728 protected-resource metadata, and the
//! operator's endpoints `/ready` and `/metrics`.
//!
//! Every error body is `{"error": {"code", "message"}}`, as the service's own errors are
//! ([`crate::Error::to_json`]); the approval page, for humans, keeps its HTML.

use crate::{Error, Service, auth::Scope};
use axum::{
    body::Body,
    extract::{Request, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use std::{sync::Arc, time::Duration};

/// The largest request body any route takes (1 MiB): an intent with many calls fits many
/// times over.
pub const BODY_LIMIT: usize = 1 << 20;

/// How long a request body may take to arrive once its head has.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Where the protected-resource metadata of RFC 9728 is served (and, for `/mcp`, with the
/// resource's path appended).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// How long `/ready` waits for the chain before it reports it unreachable.
const READY_TIMEOUT: Duration = Duration::from_secs(5);

/// A JSON error response: `{"error": {"code", "message"}}`.
pub(crate) fn error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = serde_json::json!({ "error": { "code": code, "message": message } });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The stable code of an HTTP status the routes did not answer themselves.
fn code_of(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "BAD_REQUEST",
        401 => "UNAUTHORIZED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        405 => "METHOD_NOT_ALLOWED",
        406 => "NOT_ACCEPTABLE",
        408 => "REQUEST_TIMEOUT",
        409 => "CONFLICT",
        413 => "PAYLOAD_TOO_LARGE",
        415 => "UNSUPPORTED_MEDIA_TYPE",
        422 => "UNPROCESSABLE",
        429 => "RATE_LIMITED",
        500..=599 => "INTERNAL",
        _ => "HTTP_ERROR",
    }
}

/// The service's base address for links (`https://host:port`): the configured public URL, or
/// the request's `Host` over clear text.
fn base(service: &Service, headers: &HeaderMap) -> String {
    let configured = service
        .approval_base
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    configured.unwrap_or_else(|| {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("127.0.0.1");
        format!("http://{host}")
    })
}

/// The 401 answer: the `UNAUTHORIZED` error with `WWW-Authenticate: Bearer
/// resource_metadata="…"` naming the metadata document of the resource at `path`.
pub(crate) fn unauthorized(service: &Service, headers: &HeaderMap, path: &str) -> Response {
    let e = Error::Unauthorized;
    let mut response = (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "application/json")],
        e.to_json().to_string(),
    )
        .into_response();
    let resource = if path.starts_with("/mcp") { "/mcp" } else { "" };
    let challenge = format!(
        "Bearer resource_metadata=\"{}{RESOURCE_METADATA_PATH}{resource}\"",
        base(service, headers)
    );
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    response
}

/// The protected-resource metadata (RFC 9728) of `/mcp` (or of the whole service, at the
/// bare path): the resource, that tokens go in the `Authorization` header, and the scopes.
/// Tokens are issued by `pace token`, not by an authorization server: none is named.
pub(crate) async fn resource_metadata(State(s): State<Arc<Service>>, request: Request) -> Response {
    let mcp = request.uri().path().ends_with("/mcp");
    let base = base(&s, request.headers());
    let resource = if mcp { format!("{base}/mcp") } else { base };
    let doc = serde_json::json!({
        "resource": resource,
        "authorization_servers": [],
        "bearer_methods_supported": ["header"],
        "scopes_supported": Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "resource_name": "PACE transaction guard",
    });
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        doc.to_string(),
    )
        .into_response()
}

/// Refuses a body over [`BODY_LIMIT`] (413) and a `POST` to `/v1` whose declared type is not
/// JSON (415), before any route reads it.
pub(crate) async fn limit_body(request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
        return too_large();
    }
    if request.method() == http::Method::POST && request.uri().path().starts_with("/v1/") {
        let kind = request
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap_or("?").to_ascii_lowercase());
        if let Some(kind) = kind
            && !kind.starts_with("application/json")
        {
            return error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "UNSUPPORTED_MEDIA_TYPE",
                &format!("the body must be JSON (Content-Type: application/json), not {kind}"),
            );
        }
    }
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(_)) => too_large(),
        Err(_) => error(
            StatusCode::REQUEST_TIMEOUT,
            "REQUEST_TIMEOUT",
            &format!(
                "the request body did not arrive within {} s",
                BODY_TIMEOUT.as_secs()
            ),
        ),
    }
}

fn too_large() -> Response {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
        &format!("the request body is over {BODY_LIMIT} bytes"),
    )
}

/// Turns an error answer that is not JSON (the router's 404 and 405, an extractor's 400 or
/// 415, the MCP transport's own refusals) into the JSON error of its status, keeping its
/// headers and its text as the message. The approval page's HTML stays as it is.
/// A 401 without a challenge gets the one of [`unauthorized`].
pub(crate) async fn uniform_errors(
    State(s): State<Arc<Service>>,
    request: Request,
    next: Next,
) -> Response {
    let approval = request.uri().path().starts_with("/approve/");
    let path = request.uri().path().to_owned();
    let headers = request.headers().clone();
    let mut response = next.run(request).await;
    if response.status() == StatusCode::UNAUTHORIZED
        && !response.headers().contains_key(header::WWW_AUTHENTICATE)
        && let Some(v) = unauthorized(&s, &headers, &path)
            .headers()
            .get(header::WWW_AUTHENTICATE)
    {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, v.clone());
    }
    let status = response.status();
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if matches!(status.as_u16(), 429 | 503) && !response.headers().contains_key(header::RETRY_AFTER)
    {
        response = with_retry_after(response).await;
    }
    if status.as_u16() < 400 || json || approval {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_owned()
    } else {
        text
    };
    let fresh = error(status, code_of(status), &message);
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let (_, body) = fresh.into_parts();
    Response::from_parts(parts, body)
}

/// Seconds a refusal without its own hint asks a client to wait.
const DEFAULT_RETRY_AFTER: u64 = 5;

/// `response` (a 429 or a 503) with `Retry-After`: the seconds its JSON error names
/// (`retry_after_secs`, see [`crate::Error::retry_after`]), or [`DEFAULT_RETRY_AFTER`].
async fn with_retry_after(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    let secs = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v["error"]["retry_after_secs"].as_u64())
        .unwrap_or(DEFAULT_RETRY_AFTER);
    parts
        .headers
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    Response::from_parts(parts, Body::from(bytes))
}

/// The answer for a path no route serves.
pub(crate) async fn not_found(request: Request) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        &format!("no route {}", request.uri().path()),
    )
}

/// `/health`: liveness only (the process answers); it reads nothing from the chain.
pub(crate) async fn health(State(s): State<Arc<Service>>) -> Response {
    let body = serde_json::json!({ "status": "ok", "verifier": s.verifier() });
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `/ready`: 200 with the latest block while the store and the chain answer; 503
/// (`NOT_READY`) while either cannot be read within 5 s, or while the service is shutting
/// down.
pub(crate) async fn ready(State(s): State<Arc<Service>>) -> Response {
    if s.draining() {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "NOT_READY",
            "shutting down",
        );
    }
    // The store first: an instance that cannot reach it decides nothing.
    let store = s.store().clone();
    let reached = tokio::task::spawn_blocking(move || store.schema_version());
    match tokio::time::timeout(READY_TIMEOUT, reached).await {
        Ok(Ok(Ok(_))) => {}
        Ok(Ok(Err(e))) => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "NOT_READY",
                &format!("the store cannot be reached: {e}"),
            );
        }
        _ => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "NOT_READY",
                "the store did not answer within 5 s",
            );
        }
    }
    let read = tokio::task::spawn_blocking(move || s.ready());
    match tokio::time::timeout(READY_TIMEOUT, read).await {
        Ok(Ok(Ok(block))) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            serde_json::json!({ "status": "ready", "block": block }).to_string(),
        )
            .into_response(),
        Ok(Ok(Err(e))) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "NOT_READY",
            &format!("the chain cannot be read: {e}"),
        ),
        Ok(Err(e)) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "NOT_READY",
            &format!("the chain read failed: {e}"),
        ),
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "NOT_READY",
            "the chain did not answer within 5 s",
        ),
    }
}

/// `/metrics`: the Prometheus text, for a token with the `read` scope (or anyone with
/// [`Service::set_metrics_public`]).
pub(crate) async fn metrics(State(s): State<Arc<Service>>, headers: HeaderMap) -> Response {
    if !s.metrics_public() {
        let secret = crate::http::bearer(&headers).map(str::to_owned);
        let s2 = s.clone();
        let checked = tokio::task::spawn_blocking(move || {
            let caller = s2.authenticate(secret.as_deref())?;
            s2.require_audited(&caller, Scope::Read)
        })
        .await
        .unwrap_or_else(|e| Err(Error::Store(format!("handler failed: {e}"))));
        match checked {
            Ok(()) => {}
            Err(Error::Unauthorized) => return unauthorized(&s, &headers, "/metrics"),
            Err(e) => {
                let code = StatusCode::from_u16(e.http_status())
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                return (
                    code,
                    [(header::CONTENT_TYPE, "application/json")],
                    e.to_json().to_string(),
                )
                    .into_response();
            }
        }
    }
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        s.metrics_text(),
    )
        .into_response()
}
