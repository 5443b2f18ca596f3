//! TLS for the listener, which `pace serve` requires before it listens anywhere but loopback:
//! API tokens and intents must not cross a network in clear text.
//!
//! [`TlsListener`] accepts TCP connections and completes each TLS handshake on a task of its
//! own (bounded by [`HANDSHAKE_TIMEOUT`]), so a client that connects and never finishes its
//! handshake holds no other client up. The finished streams feed `axum::serve` like plain
//! ones: the same routes, MCP included.

use crate::{Error, Result, Service, http::router};
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
    let listener =
        TlsListener::new(listener, acceptor).map_err(|e| Error::Config(e.to_string()))?;
    let addr = listener.addr;
    axum::serve(listener, router(service))
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| Error::Config(format!("TLS listener {addr}: {e}")))
}
