//! `pace run` against a real anvil node, and `pace simulate` / `pace world` on the embedded one.

use super::*;
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{IERC20, MockERC20, PaceAccount};
use pace_node::{Anvil, NodeClient};
use pace_types::{Call, Claims, Intent, Policy, TokenAmount};

pub(crate) const PAYEE: Address = Address::repeat_byte(0xbe);

pub(crate) struct Node {
    pub(crate) anvil: Anvil,
    pub(crate) token: Address,
    pub(crate) account: Address,
    pub(crate) verifier_key: B256,
    pub(crate) relayer_key: B256,
}

pub(crate) async fn node() -> Node {
    let anvil = Anvil::spawn().unwrap();
    let owner = NodeClient::connect(anvil.url(), Anvil::dev_signer(0))
        .await
        .unwrap();
    let artifacts = pace_contracts::artifacts().unwrap();
    let token_ctor = MockERC20::constructorCall {
        name_: "Dai".into(),
        symbol_: "DAI".into(),
        decimals_: 18,
    };
    let token = owner
        .deploy(
            artifacts
                .get("MockERC20")
                .unwrap()
                .deploy_code(&token_ctor.abi_encode()),
        )
        .await
        .unwrap();
    let verifier_key = Anvil::dev_key(1);
    let verifier = Anvil::dev_address(1);
    let account_ctor = PaceAccount::constructorCall {
        owner_: Anvil::dev_address(0),
        verifier_: verifier,
    };
    let account = owner
        .deploy(
            artifacts
                .get("PaceAccount")
                .unwrap()
                .deploy_code(&account_ctor.abi_encode()),
        )
        .await
        .unwrap();
    let mint = MockERC20::mintCall {
        to: account,
        amount: U256::from(1_000u64),
    };
    owner
        .execute(pace_node::Tx::call(
            token,
            U256::ZERO,
            mint.abi_encode().into(),
        ))
        .await
        .unwrap();
    Node {
        anvil,
        token,
        account,
        verifier_key,
        relayer_key: Anvil::dev_key(2),
    }
}

pub(crate) fn write_inputs(
    dir: &std::path::Path,
    n: &Node,
    chain_id: u64,
    amount: u64,
) -> (PathBuf, PathBuf) {
    write_transfer(dir, n.account, n.token, chain_id, amount)
}

/// An intent of `account` paying `amount` of `token` to [`PAYEE`], and a policy that allows it,
/// written into `dir`: their paths.
pub(crate) fn write_transfer(
    dir: &std::path::Path,
    account: Address,
    token: Address,
    chain_id: u64,
    amount: u64,
) -> (PathBuf, PathBuf) {
    let n = (account, token);
    let intent = Intent {
        chain_id,
        account: n.0,
        calls: vec![Call {
            target: n.1,
            value: U256::ZERO,
            data: Bytes::from(
                IERC20::transferCall {
                    to: PAYEE,
                    value: U256::from(amount),
                }
                .abi_encode(),
            ),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount {
                token: n.1,
                amount: U256::from(amount),
            }],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let policy = Policy {
        allowed_targets: vec![n.1],
        allowed_selectors: vec![IERC20::transferCall::SELECTOR.into()],
        allowed_tokens: vec![n.1],
        spend_caps: vec![TokenAmount {
            token: n.1,
            amount: U256::from(100u64),
        }],
        allowed_recipients: vec![PAYEE],
        require_simulation: true,
        max_simulation_age_secs: 3_600,
        ..Policy::default()
    };
    let (i, p) = (dir.join("intent.json"), dir.join("policy.json"));
    std::fs::write(&i, serde_json::to_string_pretty(&intent).unwrap()).unwrap();
    std::fs::write(&p, serde_json::to_string_pretty(&policy).unwrap()).unwrap();
    (i, p)
}

fn run(n: &Node, intent: &std::path::Path, policy: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pace"))
        .args(["run", "--rpc", n.anvil.url(), "--intent"])
        .arg(intent)
        .arg("--policy")
        .arg(policy)
        .env("PACE_VERIFIER_KEY", n.verifier_key.to_string())
        .env("PACE_RELAYER_KEY", n.relayer_key.to_string())
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pace_run_executes_an_approved_intent_on_anvil_and_submits_nothing_for_a_rejected_one() {
    let n = node().await;
    let dir = scratch("pace_run_anvil");
    let chain_id = n.anvil.chain_id();

    let (intent, policy) = write_inputs(&dir, &n, chain_id, 40);
    let out = tokio::task::block_in_place(|| run(&n, &intent, &policy));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["decision"]["outcome"], "approve");
    assert_eq!(doc["execution"]["status"], "executed", "{doc:#}");
    assert!(
        doc["execution"]["tx_hash"]
            .as_str()
            .unwrap()
            .starts_with("0x")
    );

    let reader = NodeClient::connect(n.anvil.url(), Anvil::dev_signer(0))
        .await
        .unwrap();
    let paid = reader
        .call_sol(n.token, &IERC20::balanceOfCall { account: PAYEE })
        .await
        .unwrap();
    assert_eq!(paid, U256::from(40u64));

    // Above the spend cap: rejected, nothing submitted, nothing moves.
    let (intent, policy) = write_inputs(&dir, &n, chain_id, 500);
    let out = tokio::task::block_in_place(|| run(&n, &intent, &policy));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(doc["execution"].is_null());
    assert!(
        doc["decision"]["violations"]
            .to_string()
            .contains("SPEND_CAP_EXCEEDED")
    );
    let paid = reader
        .call_sol(n.token, &IERC20::balanceOfCall { account: PAYEE })
        .await
        .unwrap();
    assert_eq!(paid, U256::from(40u64));
}

#[test]
fn pace_world_and_pace_simulate_agree_on_the_embedded_world() {
    let out = pace(["world"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let world: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let a = &world["addresses"];
    let (account, dai) = (a["account"].as_str().unwrap(), a["dai"].as_str().unwrap());
    let payee = a["router"].as_str().unwrap();

    let dir = scratch("pace_simulate_embedded");
    let data = IERC20::transferCall {
        to: payee.parse().unwrap(),
        value: U256::from(7u64),
    }
    .abi_encode();
    let intent = serde_json::json!({
        "chain_id": world["chain_id"],
        "account": account,
        "calls": [{"target": dai, "value": "0", "data": Bytes::from(data)}],
    });
    let path = dir.join("intent.json");
    std::fs::write(&path, intent.to_string()).unwrap();
    let out = pace([
        std::ffi::OsStr::new("simulate"),
        "--intent".as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["success"], true);
    assert_eq!(report["block_number"], world["block_number"]);
    assert_eq!(report["balance_changes"][0]["delta"], "-7");
    assert_eq!(
        report["touched_contracts"][0]
            .as_str()
            .unwrap()
            .to_lowercase(),
        dai.to_lowercase()
    );

    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"chain_id\": 1}").unwrap();
    let out = pace([
        std::ffi::OsStr::new("simulate"),
        "--intent".as_ref(),
        bad.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}
