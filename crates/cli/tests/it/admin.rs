//! `pace admin` on a real anvil, on an account put there by `pace deploy`: set-verifier makes
//! the old verifier's PDRs fail on-chain, pause blocks PDR execution and unpause restores it,
//! revoke zeroes an allowance; cancel-nonces, set-budget and set-grant-filter change what the
//! account reports; a key that is not the owner's sends nothing.

use super::deploy::{deploy, json, pace_env};
use super::run::{Node, PAYEE, write_inputs};
use super::*;
use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{IERC20, MockERC20, PaceAccount};
use pace_node::{Anvil, NodeClient, Tx};

/// Anvil with a token and a PaceAccount deployed by `pace deploy` (owner dev 0, verifier
/// dev 1) holding 1,000 of the token.
async fn account() -> (Node, NodeClient) {
    let anvil = Anvil::spawn().unwrap();
    let owner = NodeClient::connect(anvil.url(), Anvil::dev_signer(0))
        .await
        .unwrap();
    let ctor = MockERC20::constructorCall {
        name_: "Dai".into(),
        symbol_: "DAI".into(),
        decimals_: 18,
    };
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("MockERC20")
        .unwrap()
        .deploy_code(&ctor.abi_encode());
    let token = owner.deploy(code).await.unwrap();
    let out = tokio::task::block_in_place(|| {
        deploy(
            anvil.url(),
            Anvil::dev_address(0),
            Anvil::dev_address(1),
            None,
        )
    });
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let account: Address = json(&out)["account"].as_str().unwrap().parse().unwrap();
    let mint = MockERC20::mintCall {
        to: account,
        amount: U256::from(1_000u64),
    };
    let minted = owner
        .execute(Tx::call(token, U256::ZERO, mint.abi_encode().into()))
        .await
        .unwrap();
    assert!(minted.is_executed());
    let node = Node {
        anvil,
        token,
        account,
        verifier_key: Anvil::dev_key(1),
        relayer_key: Anvil::dev_key(2),
    };
    (node, owner)
}

/// `pace admin <args>` signed with `key`, on `n`'s account.
fn admin(n: &Node, key: B256, action: &str, extra: &[&str]) -> Output {
    let account = n.account.to_string();
    let mut args = vec![
        "admin",
        action,
        "--rpc",
        n.anvil.url(),
        "--account",
        &account,
    ];
    args.extend_from_slice(extra);
    pace_env(&args, &[("PACE_OWNER_KEY", key.to_string())])
}

/// Asserts an executed admin transaction and returns its document.
fn executed(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(out),
        stderr(out)
    );
    let doc = json(out);
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");
    assert!(doc["tx_hash"].as_str().unwrap().starts_with("0x"));
    doc
}

/// `pace run` of a 40-token transfer to [`PAYEE`], its PDR signed with `verifier_key`.
fn run_transfer(n: &Node, verifier_key: B256, test: &str) -> (Option<i32>, serde_json::Value) {
    let dir = scratch(test);
    let (intent, policy) = write_inputs(&dir, n, n.anvil.chain_id(), 40);
    let out = Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["run", "--rpc", n.anvil.url(), "--intent"])
        .arg(intent)
        .arg("--policy")
        .arg(policy)
        .env("PACE_VERIFIER_KEY", verifier_key.to_string())
        .env("PACE_RELAYER_KEY", n.relayer_key.to_string())
        .output()
        .unwrap();
    (out.status.code(), json(&out))
}

async fn paid(client: &NodeClient, n: &Node) -> U256 {
    client
        .call_sol(n.token, &IERC20::balanceOfCall { account: PAYEE })
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_blocks_pdr_execution_and_unpause_restores_it() {
    let (n, client) = account().await;
    let owner_key = Anvil::dev_key(0);

    let doc = tokio::task::block_in_place(|| executed(&admin(&n, owner_key, "pause", &[])));
    assert_eq!(doc["state"]["paused"], true);
    assert!(
        client
            .call_sol(n.account, &PaceAccount::pausedCall {})
            .await
            .unwrap()
    );
    // The simulation runs the account's own checks: a paused account's PDR fails there, and
    // nothing is signed or sent (the relayer pays for no certain revert).
    let relayer = PrivateKeySigner::from_bytes(&n.relayer_key)
        .unwrap()
        .address();
    let nonce = client.nonce(relayer).await.unwrap();
    let (code, doc) =
        tokio::task::block_in_place(|| run_transfer(&n, n.verifier_key, "admin_paused"));
    assert_eq!(code, Some(1), "{doc:#}");
    assert_eq!(doc["decision"]["outcome"], "reject", "{doc:#}");
    assert!(doc["execution"].is_null(), "{doc:#}");
    assert!(
        doc["decision"]["violations"][0]["message"]
            .as_str()
            .unwrap()
            .contains("PaceAccountPaused"),
        "{doc:#}"
    );
    assert_eq!(paid(&client, &n).await, U256::ZERO);
    assert_eq!(
        client.nonce(relayer).await.unwrap(),
        nonce,
        "nothing was sent"
    );

    let doc = tokio::task::block_in_place(|| executed(&admin(&n, owner_key, "unpause", &[])));
    assert_eq!(doc["state"]["paused"], false);
    let (code, doc) =
        tokio::task::block_in_place(|| run_transfer(&n, n.verifier_key, "admin_unpaused"));
    assert_eq!(code, Some(0), "{doc:#}");
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");
    assert_eq!(paid(&client, &n).await, U256::from(40u64));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_set_verifier_the_old_verifiers_pdr_is_refused_before_sending() {
    let (n, client) = account().await;
    let new_key = B256::repeat_byte(0x77);
    let new_verifier = PrivateKeySigner::from_bytes(&new_key).unwrap().address();

    let out = tokio::task::block_in_place(|| {
        admin(
            &n,
            Anvil::dev_key(0),
            "set-verifier",
            &["--verifier", &new_verifier.to_string()],
        )
    });
    let doc = executed(&out);
    assert_eq!(
        doc["state"]["verifier"]
            .as_str()
            .unwrap()
            .parse::<Address>()
            .unwrap(),
        new_verifier
    );
    let on_chain = client
        .call_sol(n.account, &PaceAccount::verifierCall {})
        .await
        .unwrap();
    assert_eq!(on_chain, new_verifier);

    // The old key's PDR is signed, and its exact transaction, run on the simulated state
    // before sending, is refused by the account: nothing is sent.
    let relayer = PrivateKeySigner::from_bytes(&n.relayer_key)
        .unwrap()
        .address();
    let nonce = client.nonce(relayer).await.unwrap();
    let (code, doc) =
        tokio::task::block_in_place(|| run_transfer(&n, n.verifier_key, "admin_old_key"));
    assert_eq!(code, Some(1), "{doc:#}");
    assert!(doc["execution"].is_null(), "{doc:#}");
    assert!(
        doc["refused"]
            .as_str()
            .unwrap()
            .contains("PaceAccountInvalidSigner"),
        "{doc:#}"
    );
    assert_eq!(paid(&client, &n).await, U256::ZERO);
    assert_eq!(
        client.nonce(relayer).await.unwrap(),
        nonce,
        "nothing was sent"
    );

    let (code, doc) = tokio::task::block_in_place(|| run_transfer(&n, new_key, "admin_new_key"));
    assert_eq!(code, Some(0), "{doc:#}");
    assert_eq!(paid(&client, &n).await, U256::from(40u64));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoke_cancel_nonces_and_set_budget_and_a_stranger_sends_nothing() {
    let (n, client) = account().await;
    let owner_key = Anvil::dev_key(0);
    let spender = Address::repeat_byte(0xd0);

    // The owner's raw path grants an allowance; revoke takes it back.
    let approve = IERC20::approveCall {
        spender,
        value: U256::from(1_000u64),
    };
    let grant = PaceAccount::executeCall {
        target: n.token,
        value: U256::ZERO,
        data: approve.abi_encode().into(),
    };
    let granted = client
        .execute(Tx::call(n.account, U256::ZERO, grant.abi_encode().into()))
        .await
        .unwrap();
    assert!(granted.is_executed());
    let allowance = IERC20::allowanceCall {
        owner: n.account,
        spender,
    };
    assert_eq!(
        client.call_sol(n.token, &allowance).await.unwrap(),
        U256::from(1_000u64)
    );
    let pair = format!("{}:{spender}", n.token);
    let doc = tokio::task::block_in_place(|| {
        executed(&admin(&n, owner_key, "revoke", &["--allowance", &pair]))
    });
    assert_eq!(doc["state"]["allowances"][0]["allowance"], "0");
    assert_eq!(
        client.call_sol(n.token, &allowance).await.unwrap(),
        U256::ZERO
    );

    // The owner's raw call marked every token as reachable by a right; after the review, the
    // owner declares that only the token's allowance may remain, then none.
    let filter = PaceAccount::grantFilterCall {};
    assert_eq!(client.call_sol(n.account, &filter).await.unwrap(), 0xffff);
    let doc = tokio::task::block_in_place(|| {
        executed(&admin(
            &n,
            owner_key,
            "set-grant-filter",
            &["--granted", &n.token.to_string()],
        ))
    });
    let bit = pace_types::pdr::grant_bit(n.token);
    assert_eq!(doc["state"]["grant_filter"], format!("{bit:#06x}"));
    assert_eq!(client.call_sol(n.account, &filter).await.unwrap(), bit);
    let doc = tokio::task::block_in_place(|| {
        executed(&admin(&n, owner_key, "set-grant-filter", &["--none"]))
    });
    assert_eq!(doc["state"]["grant_filter"], "0x0000");
    // Neither flag: bad input, nothing sent.
    let before = client.nonce(Anvil::dev_address(0)).await.unwrap();
    let out = tokio::task::block_in_place(|| admin(&n, owner_key, "set-grant-filter", &[]));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("--granted"), "{}", stderr(&out));
    assert_eq!(client.nonce(Anvil::dev_address(0)).await.unwrap(), before);

    // Nonce lane 0 jumps to 5; going back is refused before anything is sent.
    tokio::task::block_in_place(|| {
        executed(&admin(
            &n,
            owner_key,
            "cancel-nonces",
            &["--key", "0", "--sequence", "5"],
        ))
    });
    let next = PaceAccount::nextSequenceCall { key: 0 };
    assert_eq!(client.call_sol(n.account, &next).await.unwrap(), 5);
    let before = client.nonce(Anvil::dev_address(0)).await.unwrap();
    let out =
        tokio::task::block_in_place(|| admin(&n, owner_key, "cancel-nonces", &["--sequence", "3"]));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("PaceAccountNonceNotIncreasing"),
        "{}",
        stderr(&out)
    );
    assert_eq!(client.nonce(Anvil::dev_address(0)).await.unwrap(), before);

    // A budget of 100 per hour.
    let token = n.token.to_string();
    tokio::task::block_in_place(|| {
        executed(&admin(
            &n,
            owner_key,
            "set-budget",
            &["--token", &token, "--limit", "100", "--period", "3600"],
        ))
    });
    let budget = client
        .call_sol(n.account, &PaceAccount::budgetCall { token: n.token })
        .await
        .unwrap();
    assert_eq!((budget.limit, budget.period), (100, 3600));

    // Not the owner's key: refused, nothing sent, nothing changed.
    let stranger = Anvil::dev_address(2);
    let sent = client.nonce(stranger).await.unwrap();
    let out = tokio::task::block_in_place(|| admin(&n, Anvil::dev_key(2), "pause", &[]));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("is not the owner"),
        "{}",
        stderr(&out)
    );
    assert_eq!(client.nonce(stranger).await.unwrap(), sent);
    assert!(
        !client
            .call_sol(n.account, &PaceAccount::pausedCall {})
            .await
            .unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_key_may_come_from_an_encrypted_keystore() {
    use rand08::SeedableRng;
    let (n, client) = account().await;
    let dir = scratch("admin_keystore");
    let mut rng = rand08::rngs::StdRng::seed_from_u64(12);
    PrivateKeySigner::encrypt_keystore(
        &dir,
        &mut rng,
        Anvil::dev_key(0),
        "hunter2",
        Some("owner.json"),
    )
    .unwrap();
    let keystore = dir.join("owner.json");
    let account = n.account.to_string();
    let args = [
        "admin",
        "pause",
        "--rpc",
        n.anvil.url(),
        "--account",
        &account,
        "--keystore",
        keystore.to_str().unwrap(),
    ];
    let out = tokio::task::block_in_place(|| {
        pace_env(&args, &[("PACE_KEYSTORE_PASSWORD", "wrong".into())])
    });
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(!stderr(&out).contains("wrong"), "{}", stderr(&out));
    assert!(
        !client
            .call_sol(n.account, &PaceAccount::pausedCall {})
            .await
            .unwrap()
    );

    let out = tokio::task::block_in_place(|| {
        pace_env(&args, &[("PACE_KEYSTORE_PASSWORD", "hunter2".into())])
    });
    executed(&out);
    assert!(
        client
            .call_sol(n.account, &PaceAccount::pausedCall {})
            .await
            .unwrap()
    );
}
