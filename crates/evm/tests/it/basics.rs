use super::*;
use pace_evm::{
    Error,
    revm::context::result::{EVMError, InvalidTransaction},
    revm::primitives::hardfork::SpecId,
};

#[test]
fn ether_transfer_costs_21000_and_moves_value() {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    evm.fund(ALICE, ether(1)).unwrap();
    let outcome = evm.call(ALICE, BOB, U256::from(7), Bytes::new()).unwrap();
    assert!(outcome.success);
    assert_eq!(outcome.gas_used, 21_000);
    assert_eq!(evm.balance(BOB).unwrap(), U256::from(7));
    assert_eq!(evm.balance(ALICE).unwrap(), ether(1) - U256::from(7)); // gas is free
    assert_eq!(evm.nonce(ALICE).unwrap(), 1);
}

#[test]
fn sending_more_than_the_balance_is_an_error_not_an_outcome() {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    let err = evm
        .call(ALICE, BOB, U256::from(1), Bytes::new())
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Evm(EVMError::Transaction(
                InvalidTransaction::LackOfFundForMaxFee { .. }
            ))
        ),
        "{err:?}"
    );
    assert_eq!(
        evm.nonce(ALICE).unwrap(),
        0,
        "a rejected transaction changes nothing"
    );
}

#[test]
fn create_addresses_follow_the_sender_nonce() {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    let a = deploy_token(&mut evm, "A");
    evm.call(DEPLOYER, BOB, U256::ZERO, Bytes::new()).unwrap();
    let b = deploy_token(&mut evm, "B");
    assert_eq!(a, DEPLOYER.create(0));
    assert_eq!(b, DEPLOYER.create(2));
    assert_eq!(evm.nonce(DEPLOYER).unwrap(), 3);
    assert!(!evm.code(a).unwrap().is_empty());
}

#[test]
fn block_and_chain_are_visible_to_contracts() {
    // Runtime code: TIMESTAMP NUMBER CHAINID, stored in memory words 0..3, returned.
    // 42 PUSH0 MSTORE 43 PUSH1 0x20 MSTORE 46 PUSH1 0x40 MSTORE PUSH1 0x60 PUSH0 RETURN
    let code = Bytes::from_static(&[
        0x42, 0x5f, 0x52, 0x43, 0x60, 0x20, 0x52, 0x46, 0x60, 0x40, 0x52, 0x60, 0x60, 0x5f, 0xf3,
    ]);
    let probe = Address::repeat_byte(0x77);
    let mut evm = InProcessEvm::new(10);
    evm.set_code(probe, code).unwrap();
    evm.set_block(123, 1_700_000_000);
    let out = evm.view(probe, Bytes::new()).unwrap();
    assert_eq!(
        U256::from_be_slice(&out[0..32]),
        U256::from(1_700_000_000u64)
    );
    assert_eq!(U256::from_be_slice(&out[32..64]), U256::from(123));
    assert_eq!(U256::from_be_slice(&out[64..96]), U256::from(10));
    assert_eq!(
        (evm.block_number(), evm.timestamp(), evm.chain_id()),
        (123, 1_700_000_000, 10)
    );
}

#[test]
fn osaka_caps_the_transaction_gas_limit() {
    let mut evm = InProcessEvm::with_spec(CHAIN_ID, SpecId::OSAKA);
    assert!(
        evm.call(ALICE, BOB, U256::ZERO, Bytes::new())
            .unwrap()
            .success
    );
    evm.set_tx_gas_limit((1 << 24) + 1);
    let err = evm.call(ALICE, BOB, U256::ZERO, Bytes::new()).unwrap_err();
    assert!(
        matches!(err, Error::Evm(EVMError::Transaction(_))),
        "{err:?}"
    );
}

#[test]
fn storage_and_code_can_be_set_directly() {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    let target = Address::repeat_byte(0x55);
    evm.set_storage(target, U256::from(3), U256::from(99))
        .unwrap();
    assert_eq!(evm.storage(target, U256::from(3)).unwrap(), U256::from(99));
    evm.fund(target, U256::from(5)).unwrap();
    evm.fund(target, U256::from(5)).unwrap();
    assert_eq!(evm.balance(target).unwrap(), U256::from(10));
    assert_eq!(
        evm.storage(target, U256::from(3)).unwrap(),
        U256::from(99),
        "funding keeps storage"
    );
}
