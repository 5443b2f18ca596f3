//! The documents one command prints, read back by the command that takes them: `pace simulate`
//! then `pace verify`, the flow docs/cli.md shows, on the embedded world.

use crate::{pace, scratch, stderr, stdout};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, sol};
use std::path::Path;

sol! {
    function transfer(address to, uint256 value) external returns (bool);
}

/// `pace simulate` of `calls` (with the agent's `claimed` effects) from the world's account under its default policy, then `pace
/// verify` of that very report one block later: (exit code of verify, the decision).
fn simulate_then_verify(
    dir: &Path,
    calls: &serde_json::Value,
    claimed: &serde_json::Value,
) -> (i32, serde_json::Value) {
    simulate_then_verify_under(dir, calls, claimed, |_, _| {})
}

/// [`simulate_then_verify`] under the world's default policy as `edit` changes it.
fn simulate_then_verify_under(
    dir: &Path,
    calls: &serde_json::Value,
    claimed: &serde_json::Value,
    edit: impl FnOnce(&mut serde_json::Value, &serde_json::Value),
) -> (i32, serde_json::Value) {
    let out = pace(["world"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut world: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let addresses = world["addresses"].clone();
    edit(&mut world["policy"], &addresses);
    let intent = serde_json::json!({
        "chain_id": world["chain_id"],
        "account": world["addresses"]["account"],
        "calls": calls,
        "claimed": claimed,
    });
    let (intent_path, policy_path, report_path) = (
        dir.join("intent.json"),
        dir.join("policy.json"),
        dir.join("report.json"),
    );
    std::fs::write(&intent_path, intent.to_string()).unwrap();
    std::fs::write(&policy_path, world["policy"].to_string()).unwrap();
    let documents = ["--intent".as_ref(), intent_path.as_os_str()]
        .into_iter()
        .chain(["--policy".as_ref(), policy_path.as_os_str()]);
    let out = pace(["simulate".as_ref()].into_iter().chain(documents.clone()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(&report_path, &out.stdout).unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let now = (report["timestamp"].as_u64().unwrap() + 12).to_string();
    let out = pace(
        ["verify".as_ref()]
            .into_iter()
            .chain(documents)
            .chain(["--simulation".as_ref(), report_path.as_os_str()])
            .chain(["--now".as_ref(), now.as_ref()]),
    );
    let decision = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("verify printed no decision ({e}): {}", stderr(&out)));
    (out.status.code().unwrap(), decision)
}

fn transfer_call(
    token: &serde_json::Value,
    to: &serde_json::Value,
    amount: u128,
) -> serde_json::Value {
    let data = transferCall {
        to: to.as_str().unwrap().parse::<Address>().unwrap(),
        value: U256::from(amount),
    }
    .abi_encode();
    serde_json::json!({"target": token, "value": "0", "data": Bytes::from(data)})
}

fn outflow(token: &serde_json::Value, amount: u128) -> serde_json::Value {
    serde_json::json!({"outflows": [{"token": token, "amount": amount.to_string()}]})
}

#[test]
fn pace_verify_reads_back_the_report_pace_simulate_printed() {
    let out = pace(["world"]);
    let world: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let a = &world["addresses"];
    // A payment to the payee: the report carries every list the execution-fidelity facts add
    // (balances read, payee receipts), and the decision approves it.
    let dir = scratch("seams_payment");
    let (code, decision) = simulate_then_verify(
        &dir,
        &serde_json::json!([transfer_call(&a["weth"], &a["payee"], 5 * 10u128.pow(17))]),
        &outflow(&a["weth"], 5 * 10u128.pow(17)),
    );
    assert_eq!(code, 0, "{decision:#}");
    assert_eq!(decision["outcome"], "approve", "{decision:#}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert!(
        report["balances_read"]
            .as_array()
            .is_some_and(|b| !b.is_empty()),
        "{report:#}"
    );
    // The same flow on a rejection: the report loads, the decision says why.
    let dir = scratch("seams_stranger");
    let stranger = serde_json::json!("0x00000000000000000000000000000000000b0b00");
    let (code, decision) = simulate_then_verify(
        &dir,
        &serde_json::json!([transfer_call(&a["weth"], &stranger, 5 * 10u128.pow(17))]),
        &outflow(&a["weth"], 5 * 10u128.pow(17)),
    );
    assert_eq!(code, 1, "{decision:#}");
    assert_eq!(decision["outcome"], "reject", "{decision:#}");
}

/// A payment to the payee in a token that takes 1 % of every transfer for itself, under a
/// policy that allows, caps and prices the token: the token's fee is the payment's cost, within
/// the policy's 2 % loss bound, not a loss of the whole fee.
#[test]
fn a_payment_in_a_token_that_keeps_a_fee_is_approved_under_a_policy_that_allows_it() {
    let out = pace(["world"]);
    let world: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let a = &world["addresses"];
    let amount = 10u128.pow(18);
    let allow_fee_token = |policy: &mut serde_json::Value, a: &serde_json::Value| {
        let token = a["fee_token"].clone();
        for list in ["allowed_tokens", "allowed_targets"] {
            policy[list].as_array_mut().unwrap().push(token.clone());
        }
        policy["spend_caps"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"token": token, "amount": (100 * amount).to_string()}));
        policy["prices"].as_array_mut().unwrap().push(
            serde_json::json!({"token": token, "amount": amount.to_string(), "value": "1000000000000000"}),
        );
    };
    let dir = scratch("seams_fee_token");
    let (code, decision) = simulate_then_verify_under(
        &dir,
        &serde_json::json!([transfer_call(&a["fee_token"], &a["payee"], amount)]),
        &outflow(&a["fee_token"], amount),
        allow_fee_token,
    );
    assert_eq!(code, 0, "{decision:#}");
    // The same payment to a stranger is still refused.
    let dir = scratch("seams_fee_token_stranger");
    let (code, decision) = simulate_then_verify_under(
        &dir,
        &serde_json::json!([transfer_call(&a["fee_token"], &a["attacker"], amount)]),
        &outflow(&a["fee_token"], amount),
        allow_fee_token,
    );
    assert_eq!(code, 1, "{decision:#}");
}
