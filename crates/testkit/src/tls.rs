//! A TLS-terminating reverse proxy on 127.0.0.1 for testing `https://` clients against real
//! servers (the chat-completions stub, anvil): it accepts TLS with a certificate for
//! `localhost` and `127.0.0.1` issued by a CA generated on the spot, and pipes the plaintext
//! to a TCP upstream. Tests trust [`TlsProxy::ca_pem`] (or not, to see the refusal).
//!
//! The proxy runs on a tokio runtime of its own, stopped when the [`TlsProxy`] is dropped; it
//! may be started and dropped from sync or async tests alike.

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use std::{net::SocketAddr, path::Path, sync::Arc};
use tokio::{
    net::{TcpListener, TcpStream},
    runtime::Runtime,
};
use tokio_rustls::{
    TlsAcceptor,
    rustls::{
        ServerConfig,
        pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer},
    },
};

/// A running proxy.
#[derive(Debug)]
pub struct TlsProxy {
    /// Where it accepts TLS.
    pub addr: SocketAddr,
    ca_pem: String,
    runtime: Option<Runtime>,
}

impl TlsProxy {
    /// Listens on a free port of 127.0.0.1 and forwards every connection to `upstream`.
    pub fn start(upstream: SocketAddr) -> Self {
        let (ca_pem, config) = certificates();
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_io()
            .build()
            .expect("a tokio runtime");
        // Bound here, not in the runtime, so that tests running in a runtime of their own can
        // start a proxy too.
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        std_listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let addr = std_listener.local_addr().expect("local address");
        runtime.spawn(async move {
            let Ok(listener) = TcpListener::from_std(std_listener) else {
                return;
            };
            while let Ok((inbound, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    // A refused handshake (the client does not trust us) just ends here.
                    let Ok(mut tls) = acceptor.accept(inbound).await else {
                        return;
                    };
                    let Ok(mut plain) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
        Self {
            addr,
            ca_pem,
            runtime: Some(runtime),
        }
    }

    /// `https://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// The PEM of the CA that issued the proxy's certificate.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Writes [`Self::ca_pem`] to `path`.
    pub fn write_ca(&self, path: &Path) {
        std::fs::write(path, &self.ca_pem).expect("write the CA certificate");
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A fresh CA (its PEM) and a server configuration whose certificate it issued for
/// `localhost` and `127.0.0.1`.
fn certificates() -> (String, ServerConfig) {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "PACE test CA");
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key"))
        .expect("CA certificate");
    let leaf_key = KeyPair::generate().expect("server key");
    let leaf = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .expect("server parameters")
        .signed_by(&leaf_key, &ca)
        .expect("server certificate");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone(), ca.der().clone()], key)
        .expect("server TLS configuration");
    (ca.pem(), config)
}
