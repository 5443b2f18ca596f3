//! CoW Protocol's real settlement contract (`@cowprotocol/contracts`): a pre-signature is a
//! record under an order's digest, which authorises whoever holds the order to settle it
//! against the account's approval to the vault relayer. What the digest commits to cannot be
//! read from it, so a pre-signature is refused as an opaque authorisation, a fair order and a
//! giveaway alike, unless the policy names the settlement in `opaque_key_targets`; named, it is
//! approved and lands on-chain.

use crate::protocols_bed::{bed, codes, selector};
use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_sol_types::{SolConstructor, sol};
use pace_abi::bindings::IERC20;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::actions::call;
use pace_testkit::protocols::npm::cow;
use pace_types::{RightKind, ViolationCode as Code, units::ether};

sol! {
    contract GPv2AllowListAuthentication {
        function initializeManager(address manager_) external;
        function addSolver(address solver) external;
    }
    contract GPv2Settlement {
        constructor(address authenticator_, address vault_);
        function setPreSignature(bytes calldata orderUid, bool signed) external;
        function preSignature(bytes calldata orderUid) external view returns (uint256);
        function vaultRelayer() external view returns (address);
    }
}

/// An order's uid as GPv2 packs it: the order digest, its owner, its `validTo`.
fn order_uid(digest: B256, owner: Address, valid_to: u32) -> Bytes {
    let mut uid = digest.to_vec();
    uid.extend_from_slice(owner.as_slice());
    uid.extend_from_slice(&valid_to.to_be_bytes());
    uid.into()
}

#[test]
fn a_pre_signature_on_the_real_settlement_is_opaque_until_the_policy_names_it() {
    let mut b = bed();
    let a = b.a();
    let deployer = b.bed.deployer;
    let auth = b
        .world
        .evm
        .deploy(
            deployer,
            cow::authentication().unwrap().deploy_code(&[]).unwrap(),
        )
        .unwrap();
    b.send(
        deployer,
        auth,
        &GPv2AllowListAuthentication::initializeManagerCall { manager_: deployer },
    );
    b.send(
        deployer,
        auth,
        &GPv2AllowListAuthentication::addSolverCall { solver: deployer },
    );
    let args = GPv2Settlement::constructorCall {
        authenticator_: auth,
        vault_: deployer,
    }
    .abi_encode();
    let settlement = b
        .world
        .evm
        .deploy(
            deployer,
            cow::settlement().unwrap().deploy_code(&args).unwrap(),
        )
        .unwrap();
    let relayer: Address = b
        .world
        .evm
        .view_sol(settlement, &GPv2Settlement::vaultRelayerCall {})
        .unwrap();

    let mut policy = b.policy(
        &[settlement, a.dai],
        &[
            selector::<GPv2Settlement::setPreSignatureCall>(),
            selector::<IERC20::approveCall>(),
        ],
        &[],
        &[relayer],
    );
    // Selling 5,000 DAI: what for is in the order, which the digest hides.
    let uid = order_uid(keccak256("an order of the account's"), a.account, u32::MAX);
    let calls = vec![
        call(
            a.dai,
            &IERC20::approveCall {
                spender: relayer,
                value: ether(5_000),
            },
        ),
        call(
            settlement,
            &GPv2Settlement::setPreSignatureCall {
                orderUid: uid.clone(),
                signed: true,
            },
        ),
    ];
    let e = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert_eq!(
        codes(&e),
        vec![Code::OpaqueAuthorization],
        "{:?}",
        e.decision
    );
    assert!(
        e.report
            .rights
            .iter()
            .any(|r| r.kind == RightKind::OpaqueKey && r.contract == settlement),
        "{:?}",
        e.report.rights
    );

    policy.opaque_key_targets = vec![settlement];
    let e = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let done = b.submit(&e, &[a.dai]);
    assert!(matches!(done, ExecutionResult::Executed { .. }), "{done:?}");
    let signed: U256 = b
        .world
        .evm
        .view_sol(
            settlement,
            &GPv2Settlement::preSignatureCall { orderUid: uid },
        )
        .unwrap();
    assert_eq!(
        B256::from(signed),
        keccak256("GPv2Signing.Scheme.PreSign"),
        "the pre-signature is on-chain"
    );
}
