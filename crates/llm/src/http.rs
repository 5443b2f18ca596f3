//! The HTTP(S) side: one POST per trial through reqwest's blocking client over rustls.
//!
//! TLS certificates are checked against the platform's roots (on Linux the system store, or
//! `$SSL_CERT_FILE` / `$SSL_CERT_DIR` when set) plus an optional extra root from
//! [`LlmConfig::ca_cert`](crate::LlmConfig::ca_cert).

use crate::error::{Error, Result};
use reqwest::{
    Url,
    blocking::{Client, Response},
};
use std::{io::Read, path::Path, time::Duration};

/// Largest response accepted.
const MAX_RESPONSE: u64 = 16 << 20;

/// The chat-completions endpoint under `base_url` (`http://` or `https://`, with a host; an
/// optional path prefix, trailing slash or not).
pub(crate) fn endpoint(base_url: &str, suffix: &str) -> Result<Url> {
    let bad = |reason: String| Error::BaseUrl {
        url: base_url.to_owned(),
        reason,
    };
    let url = Url::parse(base_url).map_err(|e| bad(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(format!(
            "scheme {:?} is not supported; use http:// or https://",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("no host".into()));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("a base URL takes no query or fragment".into()));
    }
    let joined = format!("{}{suffix}", url.as_str().trim_end_matches('/'));
    Url::parse(&joined).map_err(|e| bad(e.to_string()))
}

/// `host:port` of `url`, for error messages.
pub(crate) fn addr(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// A client whose every request is bounded by `timeout`, trusting `ca_cert` (PEM, one or more
/// certificates) besides the platform's roots.
pub(crate) fn client(timeout: Duration, ca_cert: Option<&Path>) -> Result<Client> {
    let mut builder = Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        // One connection per trial, as servers that close after each answer expect.
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none());
    if let Some(path) = ca_cert {
        let bad = |reason: String| Error::CaCert {
            path: path.to_owned(),
            reason,
        };
        let pem = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| bad(chain(&e)))?;
        if certs.is_empty() {
            return Err(bad("no PEM certificate in the file".into()));
        }
        for cert in certs {
            builder = builder.add_root_certificate(cert);
        }
    }
    builder.build().map_err(|e| Error::Client(chain(&e)))
}

/// A response: status and body.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: String,
}

/// POSTs `body` (JSON) to `url` with `headers`.
pub(crate) fn post_json(
    client: &Client,
    url: &Url,
    headers: &[(&str, &str)],
    body: Vec<u8>,
    timeout: Duration,
) -> Result<Reply> {
    let mut request = client
        .post(url.clone())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .body(body);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().map_err(|e| classify(url, timeout, &e))?;
    read(url, timeout, response)
}

fn read(url: &Url, timeout: Duration, response: Response) -> Result<Reply> {
    let status = response.status().as_u16();
    let mut raw = Vec::new();
    let read = response
        .take(MAX_RESPONSE + 1)
        .read_to_end(&mut raw)
        .map_err(|source| {
            // reqwest's body reader reports its own errors (timeouts included) inside io::Error.
            match source
                .get_ref()
                .and_then(|e| e.downcast_ref::<reqwest::Error>())
            {
                Some(e) => classify(url, timeout, e),
                None => Error::Io {
                    addr: addr(url),
                    source,
                },
            }
        })?;
    if read as u64 > MAX_RESPONSE {
        return Err(Error::Http(format!(
            "response larger than {MAX_RESPONSE} bytes"
        )));
    }
    Ok(Reply {
        status,
        body: String::from_utf8_lossy(&raw).into_owned(),
    })
}

/// The [`Error`] for a failed exchange: a refused certificate, a timeout, no connection, or a
/// protocol failure, each with the underlying causes spelt out.
fn classify(url: &Url, timeout: Duration, e: &reqwest::Error) -> Error {
    if let Some(tls) = tls_cause(e) {
        return Error::Tls {
            addr: addr(url),
            reason: tls.to_string(),
        };
    }
    if e.is_timeout() {
        return Error::Timeout {
            addr: addr(url),
            timeout_ms: timeout.as_millis(),
        };
    }
    if e.is_connect() {
        return Error::Connect {
            addr: addr(url),
            reason: chain(e),
        };
    }
    Error::Http(chain(e))
}

/// The rustls error somewhere in `e`'s causes, if any (hyper wraps it in an `io::Error`, whose
/// `source` skips it, so the payload of each `io::Error` is looked at too).
fn tls_cause<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut next = Some(e);
    while let Some(err) = next {
        if let Some(tls) = err.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && let Some(inner) = io.get_ref()
            && let Some(tls) = tls_cause(inner)
        {
            return Some(tls);
        }
        next = err.source();
    }
    None
}

/// `e` and its causes, `: `-separated, without repeats.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        let url = |base: &str| endpoint(base, "/chat/completions").map(|u| u.to_string());
        assert_eq!(
            url("http://127.0.0.1:8080/v1/").unwrap(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert_eq!(
            url("https://api.example.com/v1").unwrap(),
            "https://api.example.com/v1/chat/completions"
        );
        assert_eq!(
            url("http://localhost").unwrap(),
            "http://localhost/chat/completions"
        );
        assert_eq!(
            url("http://[::1]:8000/v1").unwrap(),
            "http://[::1]:8000/v1/chat/completions"
        );
        for bad in [
            "ftp://x",
            "http://",
            "http://h:notaport",
            "localhost:8080",
            "http://h/v1?x=1",
            "file:///etc/passwd",
        ] {
            assert!(
                matches!(url(bad), Err(Error::BaseUrl { .. })),
                "{bad}: {:?}",
                url(bad)
            );
        }
        let u = endpoint("https://api.example.com/v1", "").unwrap();
        assert_eq!(addr(&u), "api.example.com:443");
        let u = endpoint("http://[::1]:8000", "").unwrap();
        assert_eq!(addr(&u), "[::1]:8000");
    }

    #[test]
    fn a_bad_ca_file_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("pace-llm-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.pem");
        let e = client(Duration::from_secs(1), Some(&missing)).unwrap_err();
        assert!(matches!(e, Error::CaCert { .. }), "{e}");
        assert!(e.to_string().contains("missing.pem"), "{e}");
        let junk = dir.join("junk.pem");
        std::fs::write(&junk, "not a certificate").unwrap();
        let e = client(Duration::from_secs(1), Some(&junk)).unwrap_err();
        assert!(matches!(e, Error::CaCert { .. }), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
