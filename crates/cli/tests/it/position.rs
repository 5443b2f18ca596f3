//! What `pace run` reports of a transaction is measured at the transaction's own position in
//! its block: a third party's transaction earlier in the same block is not the PDR's balance
//! change, and a revert because a copier landed the same PDR first is named as such.

use super::run::{Node, node, write_inputs};
use super::*;
use alloy::providers::Provider;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::MockERC20;
use pace_node::{Anvil, NodeClient, Tx};
use std::time::{Duration, Instant};

/// `pace run` of `intent` under `policy` on `n`, started and left running.
fn spawn_run(n: &Node, intent: &Path, policy: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["run", "--rpc", n.anvil.url(), "--intent"])
        .arg(intent)
        .arg("--policy")
        .arg(policy)
        .env("PACE_VERIFIER_KEY", n.verifier_key.to_string())
        .env("PACE_RELAYER_KEY", n.relayer_key.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the node holds `count` pending transactions.
async fn pending(client: &NodeClient, count: u64) {
    let started = Instant::now();
    loop {
        let status: serde_json::Value = client
            .provider()
            .raw_request("txpool_status".into(), ())
            .await
            .unwrap();
        let now = u64::from_str_radix(
            status["pending"].as_str().unwrap().trim_start_matches("0x"),
            16,
        )
        .unwrap();
        if now >= count {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{now} pending");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn mine(client: &NodeClient) {
    let _: String = client
        .provider()
        .raw_request("evm_mine".into(), ())
        .await
        .unwrap();
}

/// Mining stopped: transactions wait in the pool until [`mine`].
async fn stop_mining(client: &NodeClient) {
    let _: serde_json::Value = client
        .provider()
        .raw_request("evm_setAutomine".into(), (false,))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_third_partys_earlier_transaction_in_the_block_is_not_the_pdrs_balance_change() {
    let n = node().await;
    let dir = scratch("position_rebase");
    let (intent, policy) = write_inputs(&dir, &n, n.anvil.chain_id(), 40);
    let stranger = NodeClient::connect(n.anvil.url(), Anvil::dev_signer(0))
        .await
        .unwrap();
    stop_mining(&stranger).await;
    // A third party credits the account 500 first in the block (a high tip puts it first).
    let mint = MockERC20::mintCall {
        to: n.account,
        amount: U256::from(500u64),
    };
    let credit = Tx::call(n.token, U256::ZERO, mint.abi_encode().into())
        .with_gas_limit(100_000)
        .with_fees(200_000_000_000, 100_000_000_000);
    stranger.submit(credit).await.unwrap();
    let run = spawn_run(&n, &intent, &policy);
    pending(&stranger, 2).await;
    mine(&stranger).await;
    let out = tokio::task::block_in_place(|| run.wait_with_output().unwrap());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");
    let token = format!("{:#x}", n.token);
    let changes = &doc["execution"]["balance_changes"];
    assert_eq!(
        changes.as_array().unwrap().len(),
        1,
        "{changes:#} {}",
        stderr(&out)
    );
    assert_eq!(changes[0]["token"].as_str().unwrap().to_lowercase(), token);
    assert_eq!(
        changes[0]["delta"], "-40",
        "the credit before it is not the PDR's"
    );
    let held = stranger
        .call_sol(
            n.token,
            &pace_contracts::bindings::IERC20::balanceOfCall { account: n.account },
        )
        .await
        .unwrap();
    assert_eq!(
        held,
        U256::from(1_000u64 + 500 - 40),
        "both landed in the block"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdr_a_copier_landed_first_reverts_as_the_nonce_already_used() {
    let n = node().await;
    let dir = scratch("position_copier");
    let (intent, policy) = write_inputs(&dir, &n, n.anvil.chain_id(), 40);
    let copier = NodeClient::connect(n.anvil.url(), Anvil::dev_signer(0))
        .await
        .unwrap();
    stop_mining(&copier).await;
    let run = spawn_run(&n, &intent, &policy);
    pending(&copier, 1).await;
    // The copier sends the same signed PDR from its own key with a higher tip.
    let pool: serde_json::Value = copier
        .provider()
        .raw_request("txpool_content".into(), ())
        .await
        .unwrap();
    let relayer = format!("{:#x}", Anvil::dev_address(2));
    let theirs = pool["pending"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(from, _)| from.to_lowercase() == relayer)
        .map(|(_, txs)| txs.as_object().unwrap().values().next().unwrap().clone())
        .expect("the relayer's transaction is pending");
    let input: alloy_primitives::Bytes = theirs["input"].as_str().unwrap().parse().unwrap();
    let to: Address = theirs["to"].as_str().unwrap().parse().unwrap();
    assert_eq!(to, n.account);
    let copy = Tx::call(to, U256::ZERO, input)
        .with_gas_limit(1_000_000)
        .with_fees(200_000_000_000, 100_000_000_000);
    copier.submit(copy).await.unwrap();
    pending(&copier, 2).await;
    mine(&copier).await;
    let out = tokio::task::block_in_place(|| run.wait_with_output().unwrap());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let execution = &doc["execution"];
    assert_eq!(execution["status"], "reverted", "{doc:#}");
    assert!(
        execution["error"]
            .as_str()
            .unwrap()
            .starts_with("PaceAccountInvalidNonce(key: 0, expected: 1, got: 0)"),
        "{execution:#}"
    );
    assert!(
        execution["explanation"]
            .as_str()
            .unwrap()
            .contains("already used"),
        "{execution:#}"
    );
}
