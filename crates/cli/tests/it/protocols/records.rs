//! Records nothing reads, across the commands a user types: a deposit into a vault the base
//! policy prices, which keeps the supply at each deposit under the depositor (`SealedVault`,
//! checkpointed, another depositor's shares already in it). `pace policy suggest` leaves the vault for review with the slot under
//! `records` and exits 1; `pace run` with the suggested policy refuses the deposit as an opaque
//! record with nothing broadcast; the vault named in `opaque_key_targets`, it executes as
//! simulated.

use super::{
    harness::{Harness, Watch},
    policies, stranger,
};
use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_abi::bindings::IERC20;
use pace_testkit::protocols::{
    Chain as _,
    actions::{call, fund_token},
    ether,
};
use pace_types::{Policy, ViolationCode as Code};
use serde_json::Value;

sol! {
    function deposit(uint256 assets, address receiver) returns (uint256);
}

/// `SealedVault.Seal.Checkpointed`.
const CHECKPOINTED: u8 = 7;

pub(super) fn a_record_nothing_reads_is_left_for_review(h: &mut Harness) {
    let a = h.a;
    let init = (a.dai, U256::from(CHECKPOINTED)).abi_encode_params();
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("SealedVault")
        .unwrap()
        .deploy_code(&init);
    let vault = h.node.deploy(h.bed.deployer, code).unwrap();
    let amount = ether(1_000);
    // Another depositor first: the checkpoint (the supply) is then no share balance of the
    // account's.
    let seed = ether(3_000);
    h.node.fund(stranger(), ether(1)).unwrap();
    fund_token(&mut h.node, &a, a.dai, stranger(), seed).unwrap();
    let approve = IERC20::approveCall {
        spender: vault,
        value: seed,
    };
    h.node.send_sol(stranger(), a.dai, &approve).unwrap();
    let seeded = depositCall {
        assets: seed,
        receiver: stranger(),
    };
    h.node.send_sol(stranger(), vault, &seeded).unwrap();
    let calls = vec![
        call(
            a.dai,
            &IERC20::approveCall {
                spender: vault,
                value: amount,
            },
        ),
        call(
            vault,
            &depositCall {
                assets: amount,
                receiver: a.account,
            },
        ),
    ];
    let mut base = policies::base(h, &[a.dai, vault], &[], &[vault], &[]);
    base.allowed_selectors = vec![
        IERC20::approveCall::SELECTOR.into(),
        depositCall::SELECTOR.into(),
    ];
    base.price_vaults.push(vault);

    let (code, doc) = h.suggest("records", calls.clone(), &base);
    let flagged: Vec<&Value> = doc["review"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["address"]
                .as_str()
                .and_then(|s| s.parse::<Address>().ok())
                == Some(vault)
        })
        .collect();
    assert_eq!(flagged.len(), 1, "{doc:#}");
    assert_eq!(
        flagged[0]["records"].as_array().map(Vec::len),
        Some(1),
        "{doc:#}"
    );
    assert_eq!(code, Some(1), "{doc:#}");
    let policy: Policy = serde_json::from_value(doc["policy"].clone()).expect("a policy");
    assert!(policy.opaque_key_targets.is_empty());

    let watch = [Watch::Token(a.dai), Watch::Token(vault)];
    let refused = h.run("records_refused", calls.clone(), &policy, &watch);
    refused.assert_refused(Code::OpaqueAuthorization);

    let mut named = policy;
    named.opaque_key_targets.push(vault);
    let run = h.run("records_named", calls, &named, &watch);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(h.balance(vault, a.account), amount);
}
