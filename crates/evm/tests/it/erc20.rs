use super::*;
use pace_contracts::bindings::{IERC20, IERC20Errors};
use pace_evm::{Error, Outcome};

fn setup() -> (InProcessEvm, Address) {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    let token = deploy_token(&mut evm, "TKN");
    evm.call_sol(
        DEPLOYER,
        token,
        U256::ZERO,
        &MockERC20::mintCall {
            to: ALICE,
            amount: ether(100),
        },
    )
    .unwrap();
    (evm, token)
}

#[test]
fn mint_transfer_and_balances() {
    let (mut evm, token) = setup();
    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: ALICE })
            .unwrap(),
        ether(100)
    );
    assert_eq!(evm.view_sol(token, &IERC20::symbolCall {}).unwrap(), "TKN");
    assert_eq!(evm.view_sol(token, &IERC20::decimalsCall {}).unwrap(), 18);

    let call = IERC20::transferCall {
        to: BOB,
        value: ether(30),
    };
    let outcome = evm
        .call(
            ALICE,
            token,
            U256::ZERO,
            alloy_sol_types::SolCall::abi_encode(&call).into(),
        )
        .unwrap();
    assert!(outcome.success);
    assert!(outcome.decode_return::<IERC20::transferCall>().unwrap());
    let transfers = outcome.events::<IERC20::Transfer>();
    assert_eq!(transfers.len(), 1);
    assert_eq!(transfers[0].0, token);
    assert_eq!(
        (transfers[0].1.from, transfers[0].1.to, transfers[0].1.value),
        (ALICE, BOB, ether(30))
    );

    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: ALICE })
            .unwrap(),
        ether(70)
    );
    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        ether(30)
    );
    assert_eq!(
        evm.view_sol(token, &IERC20::totalSupplyCall {}).unwrap(),
        ether(100)
    );
}

#[test]
fn transfer_gas_is_plausible() {
    let (mut evm, token) = setup();
    let transfer = |evm: &mut InProcessEvm, value| {
        let data = alloy_sol_types::SolCall::abi_encode(&IERC20::transferCall { to: BOB, value });
        evm.call(ALICE, token, U256::ZERO, data.into()).unwrap()
    };
    // First transfer to BOB: one slot goes zero -> non-zero (20,000 + cold 2,100).
    let first = transfer(&mut evm, ether(1));
    // Second: both slots non-zero -> non-zero.
    let second = transfer(&mut evm, ether(1));
    eprintln!(
        "ERC-20 transfer gas: new holder {}, existing holder {}",
        first.gas_used, second.gas_used
    );
    assert!(
        (45_000..60_000).contains(&first.gas_used),
        "{}",
        first.gas_used
    );
    assert!(
        (28_000..40_000).contains(&second.gas_used),
        "{}",
        second.gas_used
    );
    assert_eq!(
        first.gas_used - second.gas_used,
        17_100,
        "zero -> non-zero SSTORE costs 17,100 more"
    );
}

#[test]
fn a_revert_is_an_outcome_with_its_revert_data() {
    let (mut evm, token) = setup();
    let data = alloy_sol_types::SolCall::abi_encode(&IERC20::transferCall {
        to: ALICE,
        value: ether(1),
    });
    let outcome: Outcome = evm.call(BOB, token, U256::ZERO, data.into()).unwrap();
    assert!(!outcome.success);
    assert!(outcome.logs.is_empty());
    assert_eq!(outcome.revert.as_ref(), Some(&outcome.output));
    assert!(outcome.gas_used > 21_000);
    match outcome.decode_revert::<IERC20Errors::IERC20ErrorsErrors>() {
        Some(IERC20Errors::IERC20ErrorsErrors::ERC20InsufficientBalance(e)) => {
            assert_eq!((e.sender, e.balance, e.needed), (BOB, U256::ZERO, ether(1)));
        }
        other => panic!("unexpected revert {other:?}"),
    }
    assert_eq!(
        evm.nonce(BOB).unwrap(),
        1,
        "a reverted transaction still uses the nonce"
    );

    // The typed helper turns it into an error carrying the same data.
    let err = evm
        .call_sol(
            BOB,
            token,
            U256::ZERO,
            &IERC20::transferCall {
                to: ALICE,
                value: ether(1),
            },
        )
        .unwrap_err();
    assert!(matches!(err, Error::Reverted(_)));
    assert!(matches!(
        err.decode_revert::<IERC20Errors::IERC20ErrorsErrors>(),
        Some(IERC20Errors::IERC20ErrorsErrors::ERC20InsufficientBalance(
            _
        ))
    ));
    // Simulating a revert commits nothing.
    let before = evm.nonce(BOB).unwrap();
    let sim = evm
        .simulate(
            BOB,
            token,
            U256::ZERO,
            alloy_sol_types::SolCall::abi_encode(&IERC20::transferCall {
                to: ALICE,
                value: ether(1),
            })
            .into(),
        )
        .unwrap();
    assert!(!sim.success);
    assert_eq!(evm.nonce(BOB).unwrap(), before);
}

#[test]
fn same_sequence_same_gas_and_state() {
    fn run() -> (Vec<Outcome>, U256, U256, u64) {
        let (mut evm, token) = setup();
        let mut outcomes = Vec::new();
        for i in 1..=5u64 {
            let (from, to) = if i % 2 == 0 {
                (BOB, ALICE)
            } else {
                (ALICE, BOB)
            };
            let data = alloy_sol_types::SolCall::abi_encode(&IERC20::transferCall {
                to,
                value: ether(i),
            });
            outcomes.push(evm.call(from, token, U256::ZERO, data.into()).unwrap());
        }
        let a = evm
            .view_sol(token, &IERC20::balanceOfCall { account: ALICE })
            .unwrap();
        let b = evm
            .view_sol(token, &IERC20::balanceOfCall { account: BOB })
            .unwrap();
        (outcomes, a, b, evm.nonce(ALICE).unwrap())
    }
    let first = run();
    assert_eq!(first, run());
    assert_eq!(first.1 + first.2, ether(100));
}

#[test]
fn snapshots_and_clones_fork_the_world() {
    let (mut evm, token) = setup();
    let snapshot = evm.snapshot();
    let mut fork = evm.clone();
    evm.call_sol(
        ALICE,
        token,
        U256::ZERO,
        &IERC20::transferCall {
            to: BOB,
            value: ether(100),
        },
    )
    .unwrap();
    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        ether(100)
    );
    assert_eq!(
        fork.view_sol(token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        U256::ZERO
    );
    fork.call_sol(
        ALICE,
        token,
        U256::ZERO,
        &IERC20::transferCall {
            to: BOB,
            value: ether(1),
        },
    )
    .unwrap();
    evm.restore(&snapshot);
    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        U256::ZERO
    );
    assert_eq!(evm.nonce(ALICE).unwrap(), 0);
    evm.restore(&snapshot); // reusable
    assert_eq!(
        fork.view_sol(token, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        ether(1)
    );
}
