//! TLS for the listener, which `pace serve` requires before it listens anywhere but loopback:
//! API tokens and intents must not cross a network in clear text.
//!
//! [`TlsListener`] accepts TCP connections and completes each TLS handshake on a task of its
//! own (bounded by [`HANDSHAKE_TIMEOUT`]), so a client that connects and never finishes its
//! handshake holds no other client up. The finished streams feed `axum::serve` like plain
//! ones: the same routes, MCP included.

use crate::{Error, Result, Service, http::router};
use axum::Router;
use std::{io, net::SocketAddr, path::Path, sync::Arc, time::Duration};
use tokio::{net::TcpListener, sync::mpsc};
use tokio_rustls::{
    TlsAcceptor,
    rustls::{
        ServerConfig,
        pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
    },
    server::TlsStream,
};

/// How long a client has to finish its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshakes finished but not yet taken by the server.
const BACKLOG: usize = 64;

/// A TLS acceptor for the certificate chain in `cert_pem` (PEM, leaf first) and the private
/// key in `key_pem` (PEM: PKCS#8, PKCS#1 or SEC1). The error names the file at fault.
pub fn acceptor(cert_pem: &Path, key_pem: &Path) -> Result<TlsAcceptor> {
    let certs = CertificateDer::pem_file_iter(cert_pem)
        .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| Error::Config(format!("TLS certificate {}: {e}", cert_pem.display())))?;
    if certs.is_empty() {
        return Err(Error::Config(format!(
            "TLS certificate {}: no certificate in the file",
            cert_pem.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_file(key_pem)
        .map_err(|e| Error::Config(format!("TLS key {}: {e}", key_pem.display())))?;
    let config = ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .and_then(|b| b.with_no_client_auth().with_single_cert(certs, key))
    .map_err(|e| {
        Error::Config(format!(
            "TLS certificate {} and key {}: {e}",
            cert_pem.display(),
            key_pem.display()
        ))
    })?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A listener whose connections are TLS streams (see the module docs).
pub struct TlsListener {
    addr: SocketAddr,
    ready: mpsc::Receiver<(TlsStream<tokio::net::TcpStream>, SocketAddr)>,
    acceptor_task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for TlsListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsListener")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl TlsListener {
    /// TLS on `listener` with `acceptor`. Must be called within a tokio runtime.
    pub fn new(listener: TcpListener, acceptor: TlsAcceptor) -> io::Result<Self> {
        let addr = listener.local_addr()?;
        let (tx, ready) = mpsc::channel(BACKLOG);
        let acceptor_task = tokio::spawn(async move {
            loop {
                let (tcp, peer) = match listener.accept().await {
                    Ok(conn) => conn,
                    // Out of file descriptors and the like: wait, as axum's own listener does.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    // A failed or slow handshake drops this connection only.
                    if let Ok(Ok(tls)) =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await
                    {
                        let _ = tx.send((tls, peer)).await;
                    }
                });
            }
        });
        Ok(Self {
            addr,
            ready,
            acceptor_task,
        })
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.acceptor_task.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(conn) => conn,
            // The accepting task never ends while the listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.addr)
    }
}

/// Serves `service` over TLS on `listener`, on any address, until `shutdown` completes.
pub async fn serve_tls(
    service: Arc<Service>,
    listener: TcpListener,
    acceptor: TlsAcceptor,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    serve_tls_router(router(service), listener, acceptor, shutdown).await
}

/// Serves `routes` over TLS on `listener`, on any address, until `shutdown` completes.
pub async fn serve_tls_router(
    routes: Router,
    listener: TcpListener,
    acceptor: TlsAcceptor,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let listener =
        TlsListener::new(listener, acceptor).map_err(|e| Error::Config(e.to_string()))?;
    let addr = listener.addr;
    axum::serve(listener, routes)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| Error::Config(format!("TLS listener {addr}: {e}")))
}

/// The DNS names of the leaf certificate in `cert_pem` (its subject alternative names of
/// type dNSName): the host names `/mcp` answers to by default. The error names the file.
pub fn dns_names(cert_pem: &Path) -> Result<Vec<String>> {
    let bad = |why: &str| Error::Config(format!("TLS certificate {}: {why}", cert_pem.display()));
    let leaf = CertificateDer::pem_file_iter(cert_pem)
        .map_err(|e| bad(&e.to_string()))?
        .next()
        .ok_or_else(|| bad("no certificate in the file"))?
        .map_err(|e| bad(&e.to_string()))?;
    san_dns_names(leaf.as_ref()).ok_or_else(|| bad("cannot read its subject alternative names"))
}

/// One DER element: (tag, contents, rest).
fn der(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, mut rest) = rest.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let (bytes, after) = rest.split_at(n);
        rest = after;
        bytes
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b))
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// The dNSName entries of the subjectAltName extension of a DER certificate (empty when it
/// has none); `None` when the certificate does not parse.
fn san_dns_names(cert: &[u8]) -> Option<Vec<String>> {
    const SAN: &[u8] = &[0x55, 0x1d, 0x11]; // 2.5.29.17
    let (_, cert, _) = der(cert)?;
    let (_, mut tbs, _) = der(cert)?;
    let mut names = Vec::new();
    while !tbs.is_empty() {
        let (tag, body, rest) = der(tbs)?;
        tbs = rest;
        // [3] EXPLICIT Extensions
        if tag != 0xa3 {
            continue;
        }
        let (_, mut exts, _) = der(body)?;
        while !exts.is_empty() {
            let (_, ext, rest) = der(exts)?;
            exts = rest;
            let (_, oid, mut fields) = der(ext)?;
            if oid != SAN {
                continue;
            }
            // critical BOOLEAN DEFAULT FALSE, then the OCTET STRING.
            let (mut tag, mut value, after) = der(fields)?;
            if tag == 0x01 {
                fields = after;
                (tag, value, _) = der(fields)?;
            }
            if tag != 0x04 {
                return None;
            }
            let (_, mut general, _) = der(value)?;
            while !general.is_empty() {
                let (tag, name, rest) = der(general)?;
                general = rest;
                if tag == 0x82 {
                    names.push(String::from_utf8(name.to_vec()).ok()?);
                }
            }
        }
    }
    Some(names)
}
