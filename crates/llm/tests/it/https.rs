//! `https://` endpoints: the stub behind a loopback TLS proxy whose CA is generated per test.

use crate::{KEY, config};
use pace_llm::{Error, LlmAgent, ModelDecision, TaskContext};
use pace_testkit::{
    llm_stub::{Reply, Stub, chat},
    tls::TlsProxy,
};
use std::path::PathBuf;

fn ca_file(proxy: &TlsProxy, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pace-llm-https");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    proxy.write_ca(&path);
    path
}

#[test]
fn a_trusted_https_endpoint_answers() {
    let answer = r#"{"decision": "reject", "reason": "not asked for"}"#;
    let stub = Stub::serve(vec![Reply::Ok(chat(answer)), Reply::Chunked(chat(answer))]);
    let proxy = TlsProxy::start(stub.addr);
    let mut cfg = config(format!("{}/v1", proxy.url()));
    cfg.ca_cert = Some(ca_file(&proxy, "trusted.pem"));
    let agent = LlmAgent::new(cfg).unwrap();
    for _ in 0..2 {
        let proposal = agent.propose("t", &TaskContext::default()).unwrap();
        assert_eq!(proposal.decision, ModelDecision::Reject);
        assert_eq!(proposal.content, answer);
    }
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[test]
fn an_untrusted_certificate_is_refused_before_anything_is_sent() {
    let stub = Stub::serve(vec![Reply::Ok(chat("{}"))]);
    let proxy = TlsProxy::start(stub.addr);
    // Neither the platform's roots nor another test CA vouch for the proxy.
    let other = TlsProxy::start(stub.addr);
    for ca_cert in [None, Some(ca_file(&other, "other.pem"))] {
        let mut cfg = config(proxy.url());
        cfg.ca_cert = ca_cert;
        let e = LlmAgent::new(cfg)
            .unwrap()
            .propose("t", &TaskContext::default())
            .unwrap_err();
        assert!(matches!(e, Error::Tls { .. }), "{e}");
        let text = e.to_string();
        assert!(text.contains(&proxy.addr.to_string()), "{text}");
        assert!(text.contains("certificate"), "{text}");
    }
    // The key never left: the stub saw no request.
    assert!(stub.requests().is_empty());
}

#[test]
fn plain_http_to_a_tls_port_is_an_error_not_a_hang() {
    let stub = Stub::serve(vec![]);
    let proxy = TlsProxy::start(stub.addr);
    let e = LlmAgent::new(config(format!("http://{}", proxy.addr)))
        .unwrap()
        .propose("t", &TaskContext::default())
        .unwrap_err();
    assert!(
        matches!(e, Error::Http(_) | Error::Timeout { .. } | Error::Io { .. }),
        "{e}"
    );
}
