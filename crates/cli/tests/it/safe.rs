//! A Safe 1.4.1 under PACE on a real anvil node, as a user drives it: `pace world --rpc
//! --deploy`, the real Safe singleton and proxy factory (npm bytecode), `pace deploy --safe`
//! and the enabling transaction it prints signed by the Safe's owner, `pace run
//! --account-kind pace-module` and `pace serve --rpc --account-kind pace-module` paying from
//! the Safe, `pace admin pause` as the Safe's own transaction, and on a 2-of-3 Safe the
//! transaction printed for its owners instead of sent.

use super::deploy::{json, pace_env};
use super::*;
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, MockERC20, PaceAccount};
use pace_node::Anvil;
use pace_testkit::protocols::{
    Chain,
    node::NodeChain,
    safe::{PrivateKeySigner, SafeContracts, exec},
};
use pace_types::{Call, Claims, Intent, TokenAmount};

/// The Safes' owners' keys (funded on the node to send their own transactions).
fn owner_key(index: u8) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&alloy_primitives::B256::repeat_byte(0xa0 + index)).unwrap()
}

fn verifier() -> Address {
    pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
        .unwrap()
        .address()
}

/// `pace deploy --safe` of `safe`; returns the module and the enabling transaction's data.
fn deploy_module(url: &str, safe: Address) -> (Address, Bytes) {
    let (safe_arg, verifier) = (safe.to_string(), verifier().to_string());
    let out = pace_env(
        &[
            "deploy",
            "--rpc",
            url,
            "--safe",
            &safe_arg,
            "--verifier",
            &verifier,
        ],
        &[("PACE_DEPLOYER_KEY", Anvil::dev_key(2).to_string())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["status"], "deployed", "{doc:#}");
    assert_eq!(
        doc["safe"].as_str().unwrap().parse::<Address>().unwrap(),
        safe
    );
    assert_eq!(
        doc["enable"]["to"]
            .as_str()
            .unwrap()
            .parse::<Address>()
            .unwrap(),
        safe
    );
    let module = doc["module"].as_str().unwrap().parse().unwrap();
    let data = doc["enable"]["data"].as_str().unwrap().parse().unwrap();
    (module, data)
}

fn admin_pause(url: &str, module: Address, owner: u8) -> Output {
    let module = module.to_string();
    pace_env(
        &["admin", "pause", "--rpc", url, "--account", &module],
        &[("PACE_OWNER_KEY", owner_key(owner).to_bytes().to_string())],
    )
}

fn run(url: &str, intent: &Path, policy: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pace"))
        .args([
            "run",
            "--rpc",
            url,
            "--account-kind",
            "pace-module",
            "--intent",
        ])
        .arg(intent)
        .arg("--policy")
        .arg(policy)
        .env(
            "PACE_VERIFIER_KEY",
            pace_signer::DEV_VERIFIER_KEY.to_string(),
        )
        .env("PACE_RELAYER_KEY", Anvil::dev_key(2).to_string())
        .output()
        .unwrap()
}

/// Synchronous: the test bed's node client runs its own runtime.
#[test]
fn a_safe_under_pace_on_anvil_as_a_user_drives_it() {
    let anvil = Anvil::spawn().unwrap();
    let url = anvil.url().to_owned();
    let out = pace(["world", "--rpc", &url, "--deploy"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let world = json(&out);
    let addr = |name: &str| {
        world["addresses"][name]
            .as_str()
            .unwrap()
            .parse::<Address>()
            .unwrap()
    };
    let (dai, payee) = (addr("dai"), addr("payee"));

    let (mut node, safe, multisig) = {
        let mut node = NodeChain::connect(&url).unwrap();
        let deployer = Anvil::dev_address(0);
        let contracts = SafeContracts::deploy(&mut node, deployer).unwrap();
        for k in [3, 4, 5, 6] {
            node.fund(owner_key(k).address(), U256::from(10u128.pow(19)))
                .unwrap();
        }
        let safe = contracts
            .create_safe(&mut node, deployer, false, &[owner_key(3).address()], 1, 1)
            .unwrap();
        let owners = [3, 4, 5].map(|k| owner_key(k).address());
        let multisig = contracts
            .create_safe(&mut node, deployer, true, &owners, 2, 2)
            .unwrap();
        let mint = MockERC20::mintCall {
            to: safe,
            amount: U256::from(100u64) * U256::from(10u64).pow(U256::from(18u64)),
        };
        node.send_sol(deployer, dai, &mint).unwrap();
        (node, safe, multisig)
    };

    // The module, enabled by the transaction `pace deploy` printed, signed by the owner.
    let (module, enable) = deploy_module(&url, safe);
    let deployer = Anvil::dev_address(0);
    exec(&mut node, safe, deployer, safe, enable, &[&owner_key(3)]).unwrap();

    // The user's documents: the world's policy for the Safe, a payment from the Safe.
    let amount = U256::from(7u64) * U256::from(10u64).pow(U256::from(18u64));
    let intent = Intent {
        chain_id: anvil.chain_id(),
        account: safe,
        calls: vec![Call {
            target: dai,
            value: U256::ZERO,
            data: IERC20::transferCall {
                to: payee,
                value: amount,
            }
            .abi_encode()
            .into(),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount { token: dai, amount }],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let mut policy = world["policy"].clone();
    policy["account"] = serde_json::json!(safe);
    let dir = scratch("safe_under_pace");
    let (intent_path, policy_path) = (dir.join("intent.json"), dir.join("policy.json"));
    std::fs::write(&intent_path, serde_json::to_string(&intent).unwrap()).unwrap();
    std::fs::write(&policy_path, policy.to_string()).unwrap();
    let balance = |who| IERC20::balanceOfCall { account: who };
    let before = node.view_sol(dai, &balance(payee)).unwrap();

    let out = run(&url, &intent_path, &policy_path);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let doc = json(&out);
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");
    assert_eq!(
        node.view_sol(dai, &balance(payee)).unwrap() - before,
        amount
    );

    // The Safe's owner gives DAI a budget on the module: a transaction of the Safe; later
    // payments take the batch path, metered on the Safe's balance.
    let (module_arg, dai_arg) = (module.to_string(), dai.to_string());
    let out = pace_env(
        &[
            "admin",
            "set-budget",
            "--rpc",
            &url,
            "--account",
            &module_arg,
            "--token",
            &dai_arg,
            "--limit",
            "1000000000000000000000",
            "--period",
            "86400",
        ],
        &[("PACE_OWNER_KEY", owner_key(3).to_bytes().to_string())],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );

    // The same payment through `pace serve` for the Safe: proposed, confirmed, executed.
    let (mut child, token, addr) = crate::serve_rpc::start(
        &url,
        &dir,
        &[
            "--account-kind",
            "pace-module",
            "--policy",
            policy_path.to_str().unwrap(),
        ],
    );
    let body = serde_json::json!({ "intent": intent }).to_string();
    let (st, resp) = crate::serve::request(&addr, "POST", "/v1/propose", &token, &body);
    assert_eq!(st, 200, "{resp}");
    let v: serde_json::Value = serde_json::from_str(&resp).unwrap();
    assert_eq!(v["preview"]["approved"], true, "{resp}");
    let id = v["preview"]["proposal_id"].as_str().unwrap().to_owned();
    let confirm = serde_json::json!({ "proposal_id": id, "confirm": true }).to_string();
    let (st, resp) = crate::serve::request(&addr, "POST", "/v1/confirm", &token, &confirm);
    assert_eq!(st, 200, "{resp}");
    let done: serde_json::Value = serde_json::from_str(&resp).unwrap();
    assert_eq!(done["state"], "executed", "{resp}");
    // The budget the service reports is the module's, with this payment spent from it.
    let (st, resp) = crate::serve::request(&addr, "GET", "/v1/budgets", &token, "");
    assert_eq!(st, 200, "{resp}");
    let budgets: serde_json::Value = serde_json::from_str(&resp).unwrap();
    assert!(
        resp.to_lowercase().contains(&dai_arg.to_lowercase()),
        "{budgets:#}"
    );
    assert!(
        resp.contains("993"),
        "1,000 DAI less the 7 paid: {budgets:#}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        node.view_sol(dai, &balance(payee)).unwrap() - before,
        amount * U256::from(2u8)
    );
    let paid = amount * U256::from(2u8);

    // The Safe's owner pauses the module: a transaction of the Safe.
    let out = admin_pause(&url, module, 3);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let doc = json(&out);
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");
    assert_eq!(doc["state"]["paused"], true);
    assert_eq!(
        doc["safe"].as_str().unwrap().parse::<Address>().unwrap(),
        safe
    );
    assert!(node.view_sol(module, &PaceAccount::pausedCall {}).unwrap());
    // Someone who is no owner of the Safe is refused before anything is sent.
    let out = admin_pause(&url, module, 6);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not an owner of the Safe"),
        "{}",
        stderr(&out)
    );

    // Paused: the next payment does not execute, nothing moves.
    let out = run(&url, &intent_path, &policy_path);
    assert_ne!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(node.view_sol(dai, &balance(payee)).unwrap() - before, paid);

    // A 2-of-3 Safe: one owner's `pace admin` prints the Safe transaction with its signature
    // for the other owners, and sends nothing.
    let (module2, enable2) = deploy_module(&url, multisig);
    {
        let owners = [owner_key(4), owner_key(5)];
        let signers: Vec<&PrivateKeySigner> = owners.iter().collect();
        exec(
            &mut node,
            multisig,
            Anvil::dev_address(0),
            multisig,
            enable2,
            &signers,
        )
        .unwrap();
    }
    let out = admin_pause(&url, module2, 3);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["status"], "needs_signatures", "{doc:#}");
    assert_eq!(doc["threshold"], "2");
    assert_eq!(
        doc["safe_transaction"]["to"]
            .as_str()
            .unwrap()
            .parse::<Address>()
            .unwrap(),
        module2
    );
    assert!(!node.view_sol(module2, &PaceAccount::pausedCall {}).unwrap());
    drop(anvil);
}
