use super::*;
use pace_contracts::bindings::{IERC20, PaceAccount};

const VERIFIER: Address = Address::repeat_byte(0x5e);

#[test]
fn pace_account_deploys_and_runs_the_owner_path() {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    let ctor = PaceAccount::constructorCall {
        owner_: ALICE,
        verifier_: VERIFIER,
    };
    let account = evm
        .deploy(DEPLOYER, init_code("PaceAccount", &ctor.abi_encode()))
        .unwrap();
    assert_eq!(
        evm.view_sol(account, &PaceAccount::ownerCall {}).unwrap(),
        ALICE
    );
    assert_eq!(
        evm.view_sol(account, &PaceAccount::verifierCall {})
            .unwrap(),
        VERIFIER
    );
    assert!(!evm.view_sol(account, &PaceAccount::pausedCall {}).unwrap());

    let token = deploy_token(&mut evm, "TKN");
    evm.call_sol(
        DEPLOYER,
        token,
        U256::ZERO,
        &MockERC20::mintCall {
            to: account,
            amount: ether(5),
        },
    )
    .unwrap();
    let transfer = alloy_sol_types::SolCall::abi_encode(&IERC20::transferCall {
        to: BOB,
        value: ether(2),
    });
    let execute = PaceAccount::executeCall {
        target: token,
        value: U256::ZERO,
        data: transfer.into(),
    };

    let out = evm.call_sol(ALICE, account, U256::ZERO, &execute).unwrap();
    assert_eq!(
        out.as_ref(),
        &U256::from(1).to_be_bytes::<32>()[..],
        "transfer returned true"
    );
    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        ether(2)
    );

    // Anyone else is rejected with the account's custom error.
    let err = evm
        .call_sol(BOB, account, U256::ZERO, &execute)
        .unwrap_err();
    match err.decode_revert::<PaceAccount::PaceAccountErrors>() {
        Some(PaceAccount::PaceAccountErrors::PaceAccountNotOwner(e)) => assert_eq!(e.caller, BOB),
        other => panic!("unexpected {other:?} from {err}"),
    }

    // A failing inner call reverts the whole transaction, including the event emitted before it.
    let too_much = alloy_sol_types::SolCall::abi_encode(&IERC20::transferCall {
        to: BOB,
        value: ether(50),
    });
    let execute = PaceAccount::executeCall {
        target: token,
        value: U256::ZERO,
        data: too_much.into(),
    };
    let data = alloy_sol_types::SolCall::abi_encode(&execute);
    let outcome = evm.call(ALICE, account, U256::ZERO, data.into()).unwrap();
    assert!(!outcome.success);
    assert!(
        outcome.logs.is_empty(),
        "OwnerExecuted was emitted, then reverted"
    );
    assert!(matches!(
        outcome.decode_revert::<PaceAccount::PaceAccountErrors>(),
        Some(PaceAccount::PaceAccountErrors::PaceAccountCallFailed(_))
    ));

    // The zero verifier is rejected by the constructor: a deploy error.
    let bad = PaceAccount::constructorCall {
        owner_: ALICE,
        verifier_: Address::ZERO,
    };
    let err = evm
        .deploy(DEPLOYER, init_code("PaceAccount", &bad.abi_encode()))
        .unwrap_err();
    assert!(matches!(
        err.decode_revert::<PaceAccount::PaceAccountErrors>(),
        Some(PaceAccount::PaceAccountErrors::PaceAccountZeroVerifier(_))
    ));
}

#[test]
fn domain_separator_uses_the_chain_id_and_account() {
    use alloy_sol_types::{Eip712Domain, eip712_domain};
    let mut evm = InProcessEvm::new(CHAIN_ID);
    let ctor = PaceAccount::constructorCall {
        owner_: ALICE,
        verifier_: VERIFIER,
    };
    let account = evm
        .deploy(DEPLOYER, init_code("PaceAccount", &ctor.abi_encode()))
        .unwrap();
    let domain: Eip712Domain = eip712_domain! {
        name: "PaceAccount",
        version: "3",
        chain_id: CHAIN_ID,
        verifying_contract: account,
    };
    assert_eq!(
        evm.view_sol(account, &PaceAccount::domainSeparatorCall {})
            .unwrap(),
        domain.separator()
    );
}
