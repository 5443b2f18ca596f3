//! TLS for the listener, which `pace serve` requires before it listens anywhere but loopback:
//! API tokens and intents must not cross a network in clear text.
//!
//! The listener ([`crate::listener`]) completes each TLS handshake on the connection's own
//! task (bounded by [`HANDSHAKE_TIMEOUT`]), so a client that connects and never finishes its
//! handshake holds no other client up; the finished streams are served like plain ones, under
//! the same limits: the same routes, MCP included.

use crate::{Error, Result, Service, http::router};
use axum::Router;
use std::{path::Path, sync::Arc, time::Duration};
use tokio::net::TcpListener;
use tokio_rustls::{
    TlsAcceptor,
    rustls::{
        ServerConfig,
        pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
    },
};

/// How long a client has to finish its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

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
    serve_tls_router_with(
        routes,
        listener,
        acceptor,
        crate::listener::Limits::default(),
        shutdown,
    )
    .await
}

/// [`serve_tls_router`] under `limits`.
pub async fn serve_tls_router_with(
    routes: Router,
    listener: TcpListener,
    acceptor: TlsAcceptor,
    limits: crate::listener::Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    crate::listener::serve(routes, listener, Some(acceptor), limits, shutdown).await
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
