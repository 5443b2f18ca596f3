//! Transfers, approvals, ether, determinism, isolation and errors.

use alloy_primitives::{Address, I256, U256};
use pace_contracts::bindings::IERC20;
use pace_simulator::{Error, SimulateOptions, simulate, simulate_detailed, simulate_with};
use pace_testkit::fixture::*;
use pace_types::{ApprovalFact, BalanceChange, ETH, TokenFlow};

fn neg(amount: U256) -> I256 {
    -I256::try_from(amount).unwrap()
}

#[test]
fn erc20_transfer() {
    let w = world();
    let transfer = call(
        w.a,
        &IERC20::transferCall {
            to: BOB,
            value: ether(10),
        },
    );
    let intent = intent(w.account, vec![transfer.clone()]);
    let sim = simulate_detailed(&w.evm, &intent, &SimulateOptions::default()).unwrap();
    let r = &sim.report;

    assert!(r.success, "{:?}", r.revert_reason);
    assert_eq!(r.revert_reason, None);
    assert_eq!(r.intent_hash, intent.intent_hash());
    assert_eq!((r.block_number, r.timestamp), (BLOCK, TIMESTAMP));
    assert_eq!(r.touched_contracts, vec![w.a]);
    assert!(r.precompiles.is_empty());
    assert_eq!(
        r.token_flows,
        vec![TokenFlow {
            token: w.a,
            from: w.account,
            to: BOB,
            amount: ether(10)
        }]
    );
    assert!(r.approvals.is_empty());
    assert_eq!(
        r.balance_changes,
        vec![BalanceChange {
            token: w.a,
            delta: neg(ether(10))
        }]
    );
    assert_eq!((r.swap.clone(), r.loss_bps), (None, None));
    assert_eq!(
        (r.health_factor_before_bps, r.health_factor_after_bps),
        (None, None)
    );
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
    assert_eq!(sim.failed_call, None);

    // Gas is what the same call costs as a transaction on the world.
    let direct = w
        .evm
        .simulate(w.account, w.a, U256::ZERO, transfer.data)
        .unwrap();
    assert_eq!(r.gas_used, direct.gas_used);
}

#[test]
fn approve_is_an_approval_fact() {
    let w = world();
    let intent = intent(
        w.account,
        vec![call(
            w.a,
            &IERC20::approveCall {
                spender: w.router,
                value: ether(500),
            },
        )],
    );
    let sim = simulate_detailed(&w.evm, &intent, &SimulateOptions::default()).unwrap();
    let r = &sim.report;
    assert!(r.success);
    assert_eq!(
        r.approvals,
        vec![ApprovalFact {
            token: w.a,
            owner: w.account,
            spender: w.router,
            amount: ether(500)
        }]
    );
    assert!(r.token_flows.is_empty() && r.balance_changes.is_empty());
    assert_eq!(r.touched_contracts, vec![w.a]);
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}

#[test]
fn ether_transfer_changes_the_ether_balance() {
    let w = world();
    let intent = intent(w.account, vec![pay(BOB, ether(1))]);
    let sim = simulate_detailed(&w.evm, &intent, &SimulateOptions::default()).unwrap();
    let r = &sim.report;
    assert!(r.success);
    assert_eq!(
        r.balance_changes,
        vec![BalanceChange {
            token: ETH,
            delta: neg(ether(1))
        }]
    );
    assert_eq!(
        r.token_flows,
        vec![TokenFlow {
            token: ETH,
            from: w.account,
            to: BOB,
            amount: ether(1)
        }]
    );
    assert_eq!(
        r.touched_contracts,
        vec![BOB],
        "the call's target, even without code"
    );
    assert_eq!(r.gas_used, 21_000);
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}

#[test]
fn batch_sees_earlier_calls_and_extra_tokens_are_read() {
    let w = world();
    // Approve BOB, pay him ether, and send B: three calls, one report.
    let calls = vec![
        call(
            w.a,
            &IERC20::approveCall {
                spender: BOB,
                value: ether(1),
            },
        ),
        pay(BOB, ether(2)),
        call(
            w.b,
            &IERC20::transferCall {
                to: BOB,
                value: ether(3),
            },
        ),
    ];
    let intent = intent(w.account, calls);
    let options = SimulateOptions {
        extra_tokens: vec![w.weth, w.defl],
        ..SimulateOptions::default()
    };
    let sim = simulate_detailed(&w.evm, &intent, &options).unwrap();
    let r = &sim.report;
    assert!(r.success);
    assert_eq!(r.touched_contracts, vec![w.a, BOB, w.b]);
    let mut expected = vec![
        BalanceChange {
            token: ETH,
            delta: neg(ether(2)),
        },
        BalanceChange {
            token: w.b,
            delta: neg(ether(3)),
        },
    ];
    expected.sort_by_key(|c| c.token);
    assert_eq!(r.balance_changes, expected);
    assert_eq!(r.approvals.len(), 1);
    assert_eq!(r.token_flows.len(), 2);
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
    assert_eq!(
        simulate_with(&w.evm, &intent, &options).unwrap(),
        sim.report
    );
}

#[test]
fn simulate_does_not_mutate_the_world() {
    let w = world();
    let before = w.fingerprint();
    let calls = vec![
        call(
            w.a,
            &IERC20::transferCall {
                to: BOB,
                value: ether(10),
            },
        ),
        pay(BOB, ether(1)),
        call(
            w.a,
            &IERC20::approveCall {
                spender: w.router,
                value: U256::MAX,
            },
        ),
    ];
    let intent = intent(w.account, calls);
    let first = simulate(&w.evm, &intent).unwrap();
    assert_eq!(w.fingerprint(), before);
    // Simulating again on the same world gives the same result: nothing carried over.
    assert_eq!(simulate(&w.evm, &intent).unwrap(), first);
}

#[test]
fn deterministic_reports_and_hashes() {
    let w = world();
    let intent = intent(
        w.account,
        vec![call(
            w.a,
            &IERC20::transferCall {
                to: BOB,
                value: ether(7),
            },
        )],
    );
    let one = simulate(&w.evm, &intent).unwrap();
    let two = simulate(&world().evm, &intent).unwrap();
    assert_eq!(one, two);
    assert_eq!(one.simulation_hash(), two.simulation_hash());
    assert_eq!(
        serde_json::to_string(&one).unwrap(),
        serde_json::to_string(&two).unwrap()
    );
    // A different intent gives a different report hash.
    let other = pace_testkit::fixture::intent(
        w.account,
        vec![call(
            w.a,
            &IERC20::transferCall {
                to: BOB,
                value: ether(8),
            },
        )],
    );
    assert_ne!(
        simulate(&w.evm, &other).unwrap().simulation_hash(),
        one.simulation_hash()
    );
}

#[test]
fn the_report_ignores_claims() {
    let w = world();
    let mut lying = intent(
        w.account,
        vec![call(
            w.a,
            &IERC20::transferCall {
                to: BOB,
                value: ether(10),
            },
        )],
    );
    lying.claimed.touched = vec![Address::repeat_byte(0x99)];
    lying.claimed.slippage_bps = Some(1);
    let honest = intent(w.account, lying.calls.clone());
    let (r1, r2) = (
        simulate(&w.evm, &lying).unwrap(),
        simulate(&w.evm, &honest).unwrap(),
    );
    assert_ne!(r1.intent_hash, r2.intent_hash);
    assert_eq!(r1.touched_contracts, r2.touched_contracts);
    assert_eq!(r1.balance_changes, r2.balance_changes);
}

#[test]
fn errors() {
    let w = world();
    let mut wrong_chain = intent(w.account, vec![pay(BOB, U256::from(1))]);
    wrong_chain.chain_id = 1;
    assert!(matches!(
        simulate(&w.evm, &wrong_chain),
        Err(Error::ChainMismatch {
            intent: 1,
            world: CHAIN_ID
        })
    ));
    let empty = intent(w.account, Vec::new());
    assert!(matches!(simulate(&w.evm, &empty), Err(Error::Intent(_))));
}

#[test]
fn paying_more_ether_than_the_account_has_is_a_failed_simulation() {
    let w = world();
    let r = simulate(&w.evm, &intent(w.account, vec![pay(BOB, ether(1_000_000))])).unwrap();
    assert!(!r.success);
    let reason = r.revert_reason.unwrap();
    assert!(reason.starts_with("transaction rejected:"), "{reason}");
    assert!(r.balance_changes.is_empty());
}

#[test]
fn precompiles_are_listed_apart() {
    let w = world();
    let sha256 = Address::with_last_byte(0x02);
    let call = pace_types::Call {
        target: sha256,
        value: U256::ZERO,
        data: b"abc".to_vec().into(),
    };
    let r = simulate(&w.evm, &intent(w.account, vec![call])).unwrap();
    assert!(r.success, "{:?}", r.revert_reason);
    assert_eq!(r.precompiles, vec![sha256]);
    assert!(r.touched_contracts.is_empty());
}

#[test]
fn created_contracts_are_touched_where_they_are_first_touched() {
    use pace_contracts::bindings::MockAmmRouter;
    let w = world();
    let create = MockAmmRouter::createPairCall {
        tokenA: w.a,
        tokenB: w.defl,
    };
    let r = simulate(
        &w.evm,
        &intent(w.account, vec![call(w.mock_router, &create)]),
    )
    .unwrap();
    assert!(r.success, "{:?}", r.revert_reason);
    // Where the pair lands: the same call committed on a copy of the world.
    let mut copy = w.evm.clone();
    let pair = copy
        .call_sol(w.account, w.mock_router, U256::ZERO, &create)
        .unwrap();
    assert_eq!(r.touched_contracts, vec![w.mock_router, pair]);
}
