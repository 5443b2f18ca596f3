//! `pace serve --rpc` as a process against a real anvil holding the world `pace world --rpc
//! URL --deploy` put there: propose and confirm over HTTP, the outcome from the receipt with
//! its hash; and the refusals of a misconfigured start.

use crate::{example, pace, scratch, serve::request, stderr};
use pace_node::Anvil;
use std::{
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
};

const DEV_VERIFIER_KEY: &str = "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";

/// Starts `pace serve --rpc url` (a SQLite store in `dir`, no human approval, the dev keys)
/// with `extra` arguments; returns the process, its API token and its address.
pub(crate) fn start(url: &str, dir: &std::path::Path, extra: &[&str]) -> (Child, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args([
            "serve",
            "--rpc",
            url,
            "--listen",
            "127.0.0.1:0",
            "--approval-threshold-wei",
            "none",
            "--store",
        ])
        .arg(dir.join("pace.sqlite"))
        .args(extra)
        .env("PACE_VERIFIER_KEY", DEV_VERIFIER_KEY)
        .env("PACE_RELAYER_KEY", Anvil::dev_key(2).to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut token, mut addr) = (None, None);
    while addr.is_none() {
        let line = lines.next().expect("pace serve exited early").unwrap();
        assert!(!line.contains(DEV_VERIFIER_KEY), "a key was printed");
        if line.contains("API token for this run (") {
            token = line.rsplit("): ").next().map(str::to_owned);
        }
        if let Some(a) = line.split("listening on http://").nth(1) {
            addr = Some(a.split_whitespace().next().unwrap().to_owned());
        }
    }
    (child, token.unwrap(), addr.unwrap())
}

#[test]
fn serve_rpc_confirms_on_the_node_and_reports_the_receipt() {
    // The node's clock starts at the world's, so the example swap's deadline still lies ahead.
    let signer = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY).unwrap();
    let world = pace_world::World::new(signer.address()).unwrap();
    let anvil = Anvil::builder()
        .arg("--timestamp")
        .arg((world.evm.timestamp() - 100).to_string())
        .spawn()
        .unwrap();
    let out = pace(["world", "--rpc", anvil.url(), "--deploy"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let dir = scratch("serve-rpc");
    let (mut child, token, addr) = start(anvil.url(), &dir, &[]);

    let body = std::fs::read_to_string(example("world-swap.propose.json")).unwrap();
    let (st, resp) = request(&addr, "POST", "/v1/propose", &token, &body);
    assert_eq!(st, 200, "{resp}");
    let v: serde_json::Value = serde_json::from_str(&resp).unwrap();
    assert_eq!(v["preview"]["approved"], true, "{resp}");
    let id = v["preview"]["proposal_id"].as_str().unwrap().to_owned();
    let confirm = serde_json::json!({ "proposal_id": id, "confirm": true }).to_string();
    let (st, resp) = request(&addr, "POST", "/v1/confirm", &token, &confirm);
    assert_eq!(st, 200, "{resp}");
    let done: serde_json::Value = serde_json::from_str(&resp).unwrap();
    assert_eq!(done["state"], "executed", "{resp}");
    let (st, resp) = request(&addr, "GET", &format!("/v1/status/{id}"), &token, "");
    assert_eq!(st, 200, "{resp}");
    let status: serde_json::Value = serde_json::from_str(&resp).unwrap();
    assert_eq!(status["tx_hashes"].as_array().unwrap().len(), 1, "{resp}");
    assert_eq!(status["tx_hashes"][0], done["outcome"]["tx_hash"], "{resp}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn serve_rpc_refuses_to_start_without_a_store_or_keys() {
    let store = scratch("serve-rpc-refusals").join("pace.sqlite");
    let store = store.to_str().unwrap();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pace"));
        cmd.arg("serve")
            .args(args)
            .env_remove("PACE_VERIFIER_KEY")
            .env_remove("PACE_RELAYER_KEY");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        (out.status.code(), stderr(&out))
    };
    let url = "http://127.0.0.1:9";
    let (code, err) = run(&["--rpc", url], &[("PACE_VERIFIER_KEY", DEV_VERIFIER_KEY)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--rpc needs --store"), "{err}");
    let (code, err) = run(&["--rpc", url, "--store", store], &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs the verifier key"), "{err}");
    let (code, err) = run(
        &["--rpc", url, "--store", store],
        &[("PACE_VERIFIER_KEY", DEV_VERIFIER_KEY)],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("relayer key"), "{err}");
    let (code, err) = run(
        &["--rpc", url, "--store", store],
        &[
            ("PACE_VERIFIER_KEY", DEV_VERIFIER_KEY),
            ("PACE_RELAYER_KEY", "0xnot-a-key-SECRET"),
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("PACE_RELAYER_KEY") && !err.contains("SECRET"),
        "{err}"
    );
    let (code, err) = run(&["--world", "--rpc", url], &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}
