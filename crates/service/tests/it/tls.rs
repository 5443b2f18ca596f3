//! The listener over TLS: a client that trusts the certificate reaches the API (MCP's route
//! included); one that does not, or that speaks plain HTTP, gets nothing; a bad certificate or
//! key file is a clear error at start-up.

use crate::common::{ALL, Setup, grant};
use pace_service::{ServiceConfig, tls};
use rcgen::{CertificateParams, KeyPair};
use std::{net::SocketAddr, path::PathBuf};
use tokio::{net::TcpListener, sync::oneshot};

/// A self-signed certificate for `localhost` and `127.0.0.1`, written as PEM files in a fresh
/// directory: (certificate PEM, its path, the key's path).
fn self_signed(dir: &std::path::Path) -> (String, PathBuf, PathBuf) {
    let params =
        CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    (cert.pem(), cert_path, key_path)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pace-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn start_tls(
    s: &Setup,
    cert: &std::path::Path,
    key: &std::path::Path,
) -> (SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let acceptor = tls::acceptor(cert, key).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let service = s.service.clone();
    let task = tokio::spawn(async move {
        tls::serve_tls(service, listener, acceptor, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    (addr, stop, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_is_served_over_tls_to_a_client_that_trusts_the_certificate_only() {
    let dir = temp_dir("serve");
    let (cert_pem, cert, key) = self_signed(&dir);
    let s = Setup::new(vec![grant("agent", ALL)], ServiceConfig::default());
    let (addr, stop, task) = start_tls(&s, &cert, &key).await;

    let trusting = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(3))
        .tls_certs_only([reqwest::Certificate::from_pem(cert_pem.as_bytes()).unwrap()])
        .build()
        .unwrap();
    let health = trusting
        .get(format!("https://127.0.0.1:{}/health", addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let body: serde_json::Value = health.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    // An authenticated call over the same TLS listener.
    let history = trusting
        .get(format!("https://127.0.0.1:{}/v1/history", addr.port()))
        .bearer_auth("agent")
        .send()
        .await
        .unwrap();
    assert_eq!(history.status(), 200);

    // A client that does not trust the certificate gets no answer at all.
    let other_dir = temp_dir("other");
    let (other_pem, _, _) = self_signed(&other_dir);
    let stranger = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(other_pem.as_bytes()).unwrap()])
        .build()
        .unwrap();
    let refused = stranger
        .get(format!("https://127.0.0.1:{}/health", addr.port()))
        .send()
        .await;
    assert!(refused.is_err(), "{refused:?}");
    // Plain HTTP to the TLS port gets no HTTP answer either.
    let plain = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/health", addr.port()))
        .send()
        .await;
    assert!(plain.is_err() || !plain.unwrap().status().is_success());

    // A client that connects and never handshakes holds no one else up.
    let _idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    let again = trusting
        .get(format!("https://127.0.0.1:{}/health", addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);

    stop.send(()).unwrap();
    task.await.unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(other_dir).unwrap();
}

/// The error `tls::acceptor` gives for these files.
fn refusal(cert: &std::path::Path, key: &std::path::Path) -> String {
    match tls::acceptor(cert, key) {
        Ok(_) => panic!("{} and {} were accepted", cert.display(), key.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_certificate_names_are_the_hosts_mcp_answers_to_by_default() {
    let dir = temp_dir("names");
    let params = CertificateParams::new(vec![
        "pace.example.test".to_owned(),
        "api.example.test".to_owned(),
        "127.0.0.1".to_owned(),
    ])
    .unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = dir.join("cert.pem");
    std::fs::write(&cert, params.self_signed(&key).unwrap().pem()).unwrap();
    // The IP address is no DNS name.
    let names = tls::dns_names(&cert).unwrap();
    assert_eq!(names, ["pace.example.test", "api.example.test"]);
    let access = pace_service::http::McpAccess::with_names(names);
    assert_eq!(
        access.allowed_hosts,
        [
            "localhost",
            "127.0.0.1",
            "::1",
            "pace.example.test",
            "api.example.test"
        ]
    );
    assert!(access.allowed_origins.is_empty());
    let err = tls::dns_names(&dir.join("missing.pem")).unwrap_err();
    assert!(err.to_string().contains("missing.pem"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn unreadable_or_mismatched_tls_files_are_named_in_the_error() {
    let dir = temp_dir("files");
    let (_, cert, key) = self_signed(&dir);
    let missing = dir.join("missing.pem");
    let err = refusal(&missing, &key);
    assert!(err.contains("missing.pem"), "{err}");
    // A key file given as the certificate holds no certificate.
    let err = refusal(&key, &key);
    assert!(err.contains("no certificate"), "{err}");
    // The certificate given as the key holds no key.
    let err = refusal(&cert, &cert);
    assert!(err.contains("TLS key"), "{err}");
    // A key that is not the certificate's.
    let other = dir.join("other.pem");
    std::fs::write(&other, KeyPair::generate().unwrap().serialize_pem()).unwrap();
    let err = refusal(&cert, &other);
    assert!(err.contains("other.pem"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
