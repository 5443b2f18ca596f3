//! The listener's connections, with limits at the edge, the same in clear text and over TLS:
//!
//! - **A header-read timeout** ([`Limits::header_timeout`], 10 s by default): a connection that
//!   does not send a complete request head within it is closed. It covers a client that
//!   stalls after connecting (or after its TLS handshake, itself bounded by
//!   [`crate::tls::HANDSHAKE_TIMEOUT`]) and an idle keep-alive connection alike: the timer
//!   runs whenever the connection waits for a request.
//! - **A connection limit** ([`Limits::max_connections`]) and **a limit per client address**
//!   ([`Limits::max_per_ip`]). At a limit, a new connection makes room by closing the oldest
//!   one of the same scope that has no request in flight (one that has sent nothing first);
//!   when every connection is busy, it is answered `503 TOO_MANY_CONNECTIONS` with
//!   `Retry-After` (in clear text; a TLS connection is closed) and closed. A client holding
//!   connections open therefore never locks the others out.
//!
//! The request body has its own bound, in [`crate::edge`]. Sessions of MCP are capped per
//! token and expire when idle ([`crate::http`]).

use crate::{Error, Result};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::{
    collections::BTreeMap,
    net::{IpAddr, SocketAddr},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};
use tokio::{
    io::{AsyncRead, AsyncWrite, AsyncWriteExt},
    net::TcpListener,
    sync::Notify,
};
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// The limits of a listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one client address.
    pub max_per_ip: usize,
    /// How long a connection may wait to send a complete request head (idle included).
    pub header_timeout: Duration,
}

impl Default for Limits {
    /// 1,024 connections, 256 per address, 10 s for a request head.
    fn default() -> Self {
        Self {
            max_connections: 1_024,
            max_per_ip: 256,
            header_timeout: Duration::from_secs(10),
        }
    }
}

/// One open connection, as the registry sees it.
#[derive(Debug)]
struct Conn {
    ip: IpAddr,
    opened: Instant,
    requests: Arc<AtomicU64>,
    in_flight: Arc<AtomicU64>,
    close: Arc<Notify>,
}

impl Conn {
    /// Whether closing it loses no request: none in flight.
    fn idle(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
    }
}

/// The open connections.
#[derive(Debug, Default)]
struct Registry {
    next: u64,
    open: BTreeMap<u64, Conn>,
}

impl Registry {
    /// Admits a connection from `ip` under `limits`, closing an idle one to make room if it
    /// must; `None` when every connection in the way is busy.
    fn admit(&mut self, ip: IpAddr, limits: &Limits) -> Option<(u64, Handles)> {
        let from_ip = self.open.values().filter(|c| c.ip == ip).count();
        if from_ip >= limits.max_per_ip && !self.evict(|c| c.ip == ip) {
            return None;
        }
        if self.open.len() >= limits.max_connections && !self.evict(|_| true) {
            return None;
        }
        self.next += 1;
        let conn = Conn {
            ip,
            opened: Instant::now(),
            requests: Arc::default(),
            in_flight: Arc::default(),
            close: Arc::default(),
        };
        let handles = Handles {
            requests: conn.requests.clone(),
            in_flight: conn.in_flight.clone(),
            close: conn.close.clone(),
        };
        self.open.insert(self.next, conn);
        Some((self.next, handles))
    }

    /// Closes the oldest idle connection among those `scope` admits, one that has sent no
    /// request first; whether one was.
    fn evict(&mut self, scope: impl Fn(&Conn) -> bool) -> bool {
        let victim = self
            .open
            .iter()
            .filter(|(_, c)| scope(c) && c.idle())
            .min_by_key(|(_, c)| (c.requests.load(Ordering::SeqCst) > 0, c.opened))
            .map(|(id, _)| *id);
        match victim.and_then(|id| self.open.remove(&id)) {
            Some(c) => {
                c.close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Counts a request in flight on its connection for as long as it lives.
struct InFlight(Arc<AtomicU64>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The answer to a connection refused at the limit (clear text only).
fn refused() -> Vec<u8> {
    let body = serde_json::json!({ "error": {
        "code": "TOO_MANY_CONNECTIONS",
        "message": "too many connections are open, each with a request in flight; retry shortly",
        "retry_after_secs": 1,
    }})
    .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Serves `routes` on `listener` (over TLS with `tls`) under `limits` until `shutdown`
/// completes: then no connection is accepted, the open ones finish their requests in flight
/// and close.
pub async fn serve(
    routes: Router,
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let addr = listener
        .local_addr()
        .map_err(|e| Error::Config(e.to_string()))?;
    let registry = Arc::new(Mutex::new(Registry::default()));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (tcp, peer): (tokio::net::TcpStream, SocketAddr) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                // Out of file descriptors and the like: wait, as axum's own listener does.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let admitted = registry
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .admit(peer.ip(), &limits);
        let Some((id, conn)) = admitted else {
            if tls.is_none() {
                tokio::spawn(async move {
                    let mut tcp = tcp;
                    let _ = tokio::time::timeout(Duration::from_secs(1), tcp.write_all(&refused()))
                        .await;
                    let _ = tcp.shutdown().await;
                });
            }
            continue;
        };
        let (routes, tls, registry, stopping) = (
            routes.clone(),
            tls.clone(),
            registry.clone(),
            stopping.clone(),
        );
        tokio::spawn(async move {
            match tls {
                Some(acceptor) => {
                    let handshake =
                        tokio::time::timeout(crate::tls::HANDSHAKE_TIMEOUT, acceptor.accept(tcp));
                    if let Ok(Ok(stream)) = handshake.await {
                        serve_conn(stream, routes, conn, &limits, stopping).await;
                    }
                }
                None => serve_conn(tcp, routes, conn, &limits, stopping).await,
            }
            registry
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .open
                .remove(&id);
        });
    }
    let _ = stop.send(true);
    // The open connections finish what is in flight (the caller bounds the wait).
    loop {
        let open = registry
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .open
            .len();
        if open == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = addr;
    Ok(())
}

/// A connection's counters and its close signal.
struct Handles {
    requests: Arc<AtomicU64>,
    in_flight: Arc<AtomicU64>,
    close: Arc<Notify>,
}

/// Serves one connection: HTTP/1 with the header-read timeout, closed early when evicted,
/// shut down gracefully when the listener stops.
async fn serve_conn<S>(
    io: S,
    routes: Router,
    conn: Handles,
    limits: &Limits,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (requests, in_flight) = (conn.requests.clone(), conn.in_flight.clone());
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        requests.fetch_add(1, Ordering::SeqCst);
        in_flight.fetch_add(1, Ordering::SeqCst);
        let held = InFlight(in_flight.clone());
        let routes = routes.clone();
        async move {
            let response = routes.oneshot(request.map(axum::body::Body::new)).await;
            drop(held);
            response
        }
    });
    let http = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(TokioIo::new(io), service);
    let mut http = std::pin::pin!(http);
    let mut graceful = false;
    loop {
        tokio::select! {
            _ = http.as_mut() => return,
            () = conn.close.notified() => return,
            changed = stopping.changed(), if !graceful => {
                if changed.is_err() || *stopping.borrow() {
                    graceful = true;
                    http.as_mut().graceful_shutdown();
                }
            }
        }
    }
}
