//! JSON-RPC over `https://`: a real anvil behind a loopback TLS proxy whose CA is generated per
//! test. The binary trusts it through `SSL_CERT_FILE` (read by rustls-platform-verifier on
//! Linux) and refuses it, with the reason, when it does not.

use crate::{
    run::{PAYEE, node, write_inputs},
    scratch, stderr, stdout,
};
use alloy_primitives::U256;
use pace_contracts::bindings::IERC20;
use pace_node::{Anvil, NodeClient};
use pace_testkit::tls::TlsProxy;
use std::{
    path::Path,
    process::{Command, Output},
};

fn pace_run(url: &str, ca: Option<&Path>, n: &crate::run::Node, dir: &Path, amount: u64) -> Output {
    let (intent, policy) = write_inputs(dir, n, n.anvil.chain_id(), amount);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pace"));
    cmd.args(["run", "--rpc", url, "--intent"])
        .arg(intent)
        .arg("--policy")
        .arg(policy)
        .env("PACE_VERIFIER_KEY", n.verifier_key.to_string())
        .env("PACE_RELAYER_KEY", n.relayer_key.to_string())
        .env_remove("SSL_CERT_DIR");
    match ca {
        Some(ca) => cmd.env("SSL_CERT_FILE", ca),
        None => cmd.env_remove("SSL_CERT_FILE"),
    };
    cmd.output().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pace_run_over_https_forks_signs_and_submits_through_a_trusted_proxy_only() {
    let n = node().await;
    let upstream = n.anvil.url().trim_start_matches("http://").parse().unwrap();
    let proxy = TlsProxy::start(upstream);
    let dir = scratch("pace_run_https");
    let ca = dir.join("ca.pem");
    proxy.write_ca(&ca);
    let url = proxy.url();

    // Untrusted: the fork's first request is refused, with the reason; nothing is submitted.
    let out = tokio::task::block_in_place(|| pace_run(&url, None, &n, &dir, 40));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&url), "{err}");
    assert!(err.contains("certificate"), "{err}");
    // A CA that did not issue the proxy's certificate does not help either.
    let other = TlsProxy::start(upstream);
    let other_ca = dir.join("other.pem");
    other.write_ca(&other_ca);
    let out = tokio::task::block_in_place(|| pace_run(&url, Some(&other_ca), &n, &dir, 40));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("certificate"), "{}", stderr(&out));

    // Trusted: fork, verify, sign, submit and wait for the receipt, all over TLS.
    let out = tokio::task::block_in_place(|| pace_run(&url, Some(&ca), &n, &dir, 40));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");

    // Only the trusted run moved tokens: read directly from anvil.
    let reader = NodeClient::connect(n.anvil.url(), Anvil::dev_signer(0))
        .await
        .unwrap();
    let paid = reader
        .call_sol(n.token, &IERC20::balanceOfCall { account: PAYEE })
        .await
        .unwrap();
    assert_eq!(paid, U256::from(40u64));
}
