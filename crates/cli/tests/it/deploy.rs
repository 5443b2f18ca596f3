//! `pace deploy` and `script/DeployPaceAccount.s.sol` on real anvil nodes (same CREATE2
//! address, idempotent, a pre-Cancun chain refused), and `pace world --rpc --deploy` followed
//! by `pace run --rpc` on the world it put there.

use super::*;
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_node::{Anvil, NodeClient};
use pace_types::{Call, Claims, Intent, TokenAmount};

/// Runs `pace` with `args` and extra environment variables.
pub(crate) fn pace_env(args: &[&str], env: &[(&str, String)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("the pace binary runs")
}

/// `pace deploy` of `owner` and `verifier`, sent from anvil's dev account 2.
pub(crate) fn deploy(url: &str, owner: Address, verifier: Address, salt: Option<B256>) -> Output {
    let (owner, verifier) = (owner.to_string(), verifier.to_string());
    let mut args = vec![
        "deploy",
        "--rpc",
        url,
        "--owner",
        &owner,
        "--verifier",
        &verifier,
    ];
    let salt = salt.map(|s| s.to_string());
    if let Some(salt) = &salt {
        args.extend(["--salt", salt]);
    }
    pace_env(
        &args,
        &[("PACE_DEPLOYER_KEY", Anvil::dev_key(2).to_string())],
    )
}

pub(crate) fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.code().is_some(),
        "{}\n{}",
        stdout(out),
        stderr(out)
    );
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(out), stderr(out)))
}

async fn reader(url: &str) -> NodeClient {
    NodeClient::connect(url, Anvil::dev_signer(0))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pace_deploy_puts_the_account_at_its_predicted_address_once() {
    let anvil = Anvil::spawn().unwrap();
    let node = reader(anvil.url()).await;
    let (owner, verifier) = (Anvil::dev_address(0), Anvil::dev_address(1));
    let predicted =
        pace_cli::predict(owner, verifier, pace_cli::default_salt(owner, verifier)).unwrap();
    assert!(node.code(predicted).await.unwrap().is_empty());

    let out = tokio::task::block_in_place(|| deploy(anvil.url(), owner, verifier, None));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["status"], "deployed", "{doc:#}");
    assert_eq!(doc["execution"]["status"], "executed");
    let account: Address = doc["account"].as_str().unwrap().parse().unwrap();
    assert_eq!(account, predicted);
    assert!(!node.code(account).await.unwrap().is_empty());
    let read_owner = node
        .call_sol(account, &PaceAccount::ownerCall {})
        .await
        .unwrap();
    let read_verifier = node
        .call_sol(account, &PaceAccount::verifierCall {})
        .await
        .unwrap();
    assert_eq!((read_owner, read_verifier), (owner, verifier));
    let sent = node.nonce(Anvil::dev_address(2)).await.unwrap();
    assert_eq!(sent, 1);

    // Again: found, nothing sent.
    let out = tokio::task::block_in_place(|| deploy(anvil.url(), owner, verifier, None));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["status"], "already_deployed", "{doc:#}");
    assert_eq!(
        doc["account"].as_str().unwrap().parse::<Address>().unwrap(),
        predicted
    );
    assert_eq!(node.nonce(Anvil::dev_address(2)).await.unwrap(), sent);

    // Another salt, another account.
    let salt = B256::repeat_byte(7);
    let out = tokio::task::block_in_place(|| deploy(anvil.url(), owner, verifier, Some(salt)));
    let doc = json(&out);
    assert_eq!(doc["status"], "deployed", "{doc:#}");
    let other: Address = doc["account"].as_str().unwrap().parse().unwrap();
    assert_eq!(other, pace_cli::predict(owner, verifier, salt).unwrap());
    assert_ne!(other, predicted);
}

/// `pace deploy-helpers` puts `PaceShareValue` where the signer's checks read it
/// (`pace_types::pdr::SHARE_VALUE_HELPER`), with the embedded runtime code, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pace_deploy_helpers_puts_the_share_value_helper_at_its_address_once() {
    let anvil = Anvil::spawn().unwrap();
    let node = reader(anvil.url()).await;
    let helper = pace_types::pdr::SHARE_VALUE_HELPER;
    assert!(node.code(helper).await.unwrap().is_empty());
    let run = || {
        tokio::task::block_in_place(|| {
            pace_env(
                &["deploy-helpers", "--rpc", anvil.url()],
                &[("PACE_DEPLOYER_KEY", Anvil::dev_key(2).to_string())],
            )
        })
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["status"], "deployed", "{doc:#}");
    assert_eq!(
        doc["address"].as_str().unwrap().parse::<Address>().unwrap(),
        helper
    );
    assert_eq!(
        node.code(helper).await.unwrap(),
        pace_contracts::helpers::share_value().unwrap().runtime
    );
    let sent = node.nonce(Anvil::dev_address(2)).await.unwrap();
    assert_eq!(sent, 1);

    // Again: found, nothing sent.
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["status"], "already_deployed");
    assert_eq!(node.nonce(Anvil::dev_address(2)).await.unwrap(), sent);
}

/// The forge script and `pace deploy` compute the same address: the script deploys, then
/// `pace deploy` with the same owner, verifier (and salt) finds the account there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forge_script_deploys_where_pace_deploy_predicts() {
    let anvil = Anvil::spawn().unwrap();
    let node = reader(anvil.url()).await;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let broadcast = scratch("forge_script_broadcast");
    let (owner, verifier) = (Anvil::dev_address(0), Anvil::dev_address(1));
    let salt = B256::repeat_byte(0x5a);
    for given in [None, Some(salt)] {
        let mut forge = Command::new(root.join("node_modules/.bin/forge"));
        forge
            .current_dir(&root)
            .args(["script", "script/DeployPaceAccount.s.sol", "--rpc-url"])
            .arg(anvil.url())
            .args(["--broadcast", "--private-key"])
            .arg(Anvil::dev_key(0).to_string())
            .env("PACE_OWNER", owner.to_string())
            .env("PACE_VERIFIER", verifier.to_string())
            .env("FOUNDRY_BROADCAST", &broadcast)
            .env_remove("PACE_SALT");
        if let Some(salt) = given {
            forge.env("PACE_SALT", salt.to_string());
        }
        let out = tokio::task::block_in_place(|| forge.output().unwrap());
        assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));

        let predicted = pace_cli::predict(
            owner,
            verifier,
            given.unwrap_or_else(|| pace_cli::default_salt(owner, verifier)),
        )
        .unwrap();
        assert!(
            stdout(&out).contains(&predicted.to_checksum(None)),
            "{}",
            stdout(&out)
        );
        assert!(!node.code(predicted).await.unwrap().is_empty());

        let out = tokio::task::block_in_place(|| deploy(anvil.url(), owner, verifier, given));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc = json(&out);
        assert_eq!(doc["status"], "already_deployed", "{doc:#}");
        assert_eq!(
            doc["account"].as_str().unwrap().parse::<Address>().unwrap(),
            predicted
        );
    }
    assert_eq!(
        node.nonce(Anvil::dev_address(2)).await.unwrap(),
        0,
        "pace sent nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pace_deploy_refuses_a_chain_without_transient_storage_and_bad_keys() {
    let anvil = Anvil::builder()
        .arg("--hardfork")
        .arg("shanghai")
        .spawn()
        .unwrap();
    let node = reader(anvil.url()).await;
    let (owner, verifier) = (Anvil::dev_address(0), Anvil::dev_address(1));
    let out = tokio::task::block_in_place(|| deploy(anvil.url(), owner, verifier, None));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("transient storage") && err.contains("nothing was sent"),
        "{err}"
    );
    assert_eq!(node.nonce(Anvil::dev_address(2)).await.unwrap(), 0);
    let predicted =
        pace_cli::predict(owner, verifier, pace_cli::default_salt(owner, verifier)).unwrap();
    assert!(node.code(predicted).await.unwrap().is_empty());

    let out = tokio::task::block_in_place(|| {
        pace_env(
            &[
                "deploy",
                "--rpc",
                anvil.url(),
                "--owner",
                &owner.to_string(),
                "--verifier",
                &verifier.to_string(),
            ],
            &[("PACE_DEPLOYER_KEY", "0xnot-a-key-SECRET".into())],
        )
    });
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("PACE_DEPLOYER_KEY") && !stderr(&out).contains("SECRET"),
        "{}",
        stderr(&out)
    );

    // A keystore needs its password from the environment, and must exist.
    let keystore = scratch("deploy_keystore").join("missing.json");
    let args = [
        "deploy",
        "--rpc",
        anvil.url(),
        "--owner",
        &owner.to_string(),
        "--verifier",
        &verifier.to_string(),
        "--keystore",
        keystore.to_str().unwrap(),
    ];
    let out = tokio::task::block_in_place(|| pace_env(&args, &[]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("PACE_KEYSTORE_PASSWORD"),
        "{}",
        stderr(&out)
    );
    let out =
        tokio::task::block_in_place(|| pace_env(&args, &[("PACE_KEYSTORE_PASSWORD", "pw".into())]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.json"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pace_world_deploy_then_pace_run_executes_on_the_node() {
    let anvil = Anvil::spawn().unwrap();
    let out = tokio::task::block_in_place(|| pace(["world", "--rpc", anvil.url(), "--deploy"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let world = json(&out);
    assert_eq!(world["node"]["chain_id"], anvil.chain_id());
    let a = &world["addresses"];
    let addr = |name: &str| a[name].as_str().unwrap().parse::<Address>().unwrap();
    let (account, dai, payee) = (addr("account"), addr("dai"), addr("payee"));
    let node = reader(anvil.url()).await;
    let e18 = U256::from(10u64).pow(U256::from(18u64));
    let balance = |who| IERC20::balanceOfCall { account: who };
    let verifier = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
        .unwrap()
        .address();
    let in_process = pace_world::World::new(verifier).unwrap();
    let held = in_process.balance_of(dai, account);
    assert!(held > U256::ZERO);
    assert_eq!(
        node.call_sol(dai, &balance(account)).await.unwrap(),
        held,
        "the account's DAI is on the node"
    );
    assert_eq!(
        node.code(account).await.unwrap(),
        in_process.evm.code(account).unwrap()
    );

    let amount = U256::from(7u64) * e18;
    let intent = Intent {
        chain_id: anvil.chain_id(),
        account,
        calls: vec![Call {
            target: dai,
            value: U256::ZERO,
            data: Bytes::from(
                IERC20::transferCall {
                    to: payee,
                    value: amount,
                }
                .abi_encode(),
            ),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount { token: dai, amount }],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let dir = scratch("pace_world_deploy");
    let (intent_path, policy_path) = (dir.join("intent.json"), dir.join("policy.json"));
    std::fs::write(&intent_path, serde_json::to_string(&intent).unwrap()).unwrap();
    std::fs::write(&policy_path, world["policy"].to_string()).unwrap();
    let out = tokio::task::block_in_place(|| {
        Command::new(env!("CARGO_BIN_EXE_pace"))
            .args(["run", "--rpc", anvil.url(), "--intent"])
            .arg(&intent_path)
            .arg("--policy")
            .arg(&policy_path)
            .env(
                "PACE_VERIFIER_KEY",
                pace_signer::DEV_VERIFIER_KEY.to_string(),
            )
            .env("PACE_RELAYER_KEY", Anvil::dev_key(2).to_string())
            .output()
            .unwrap()
    });
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let doc = json(&out);
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");
    assert_eq!(node.call_sol(dai, &balance(payee)).await.unwrap(), amount);

    // PaceDelegate and the EntryPoint v0.8 (at its canonical address) are on the node too,
    // and the same payment runs again as a user operation through that EntryPoint.
    for name in ["delegate", "entry_point"] {
        let code = node.code(addr(name)).await.unwrap();
        assert!(!code.is_empty(), "{name}");
        assert_eq!(code, in_process.evm.code(addr(name)).unwrap(), "{name}");
    }
    assert_eq!(addr("entry_point"), pace_types::user_op::ENTRY_POINT_V08);
    let out = tokio::task::block_in_place(|| {
        Command::new(env!("CARGO_BIN_EXE_pace"))
            .args([
                "run",
                "--rpc",
                anvil.url(),
                "--entry",
                "entry-point",
                "--nonce-key",
                "7",
            ])
            .arg("--intent")
            .arg(&intent_path)
            .arg("--policy")
            .arg(&policy_path)
            .env(
                "PACE_VERIFIER_KEY",
                pace_signer::DEV_VERIFIER_KEY.to_string(),
            )
            .env("PACE_RELAYER_KEY", Anvil::dev_key(2).to_string())
            .output()
            .unwrap()
    });
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(json(&out)["execution"]["status"], "executed");
    assert_eq!(
        node.call_sol(dai, &balance(payee)).await.unwrap(),
        amount * U256::from(2u8)
    );
}
