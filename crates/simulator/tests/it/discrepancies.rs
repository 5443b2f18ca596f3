//! A token that moves balances and allowances without logging: the state-derived facts are
//! reported and the disagreement with the logs is a discrepancy.

use alloy_primitives::{Address, I256, U256, hex};
use pace_contracts::bindings::IERC20;
use pace_simulator::{Discrepancy, SimulateOptions, simulate_detailed};
use pace_testkit::fixture::*;
use pace_types::{ApprovalFact, BalanceChange};

/// Hand-assembled runtime code of an ERC-20 subset that emits no events: `balanceOf` (slot =
/// the holder), `transfer` (unchecked), `approve` and `allowance` (slot = keccak(owner, spender)).
const SILENT_TOKEN: &str = "60003560e01c806370a08231146032578063a9059cbb14603f578063095ea7b314605f578063dd62ed3e14607d57600080fd5b6004355460005260206000f35b335460243590033355600435546024350160043555600160005260206000f35b33600052600435602052602435604060002055600160005260206000f35b60043560005260243560205260406000205460005260206000f3";

fn silent_world() -> (Fixture, Address) {
    let mut w = world();
    let token = Address::repeat_byte(0x51);
    w.evm
        .set_code(token, hex::decode(SILENT_TOKEN).unwrap().into())
        .unwrap();
    w.evm
        .set_storage(
            token,
            U256::from_be_slice(w.account.as_slice()),
            ether(1_000),
        )
        .unwrap();
    assert_eq!(w.balance(token, w.account), ether(1_000));
    (w, token)
}

#[test]
fn unlogged_transfer_is_a_balance_change_and_a_discrepancy() {
    let (w, token) = silent_world();
    let intent = intent(
        w.account,
        vec![call(
            token,
            &IERC20::transferCall {
                to: BOB,
                value: ether(10),
            },
        )],
    );
    let sim = simulate_detailed(&w.evm, &intent, &SimulateOptions::default()).unwrap();
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    assert!(r.token_flows.is_empty());
    let delta = -I256::try_from(ether(10)).unwrap();
    assert_eq!(r.balance_changes, vec![BalanceChange { token, delta }]);
    assert_eq!(
        sim.discrepancies,
        vec![Discrepancy::FlowBalanceMismatch {
            token,
            logged_net: I256::ZERO,
            balance_delta: delta
        }]
    );
    assert!(
        sim.discrepancies[0]
            .to_string()
            .contains("balance changed by")
    );
}

#[test]
fn unlogged_approval_is_an_approval_and_a_discrepancy() {
    let (w, token) = silent_world();
    let intent = intent(
        w.account,
        vec![call(
            token,
            &IERC20::approveCall {
                spender: BOB,
                value: ether(5),
            },
        )],
    );
    let sim = simulate_detailed(&w.evm, &intent, &SimulateOptions::default()).unwrap();
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    assert_eq!(
        r.approvals,
        vec![ApprovalFact {
            token,
            owner: w.account,
            spender: BOB,
            amount: ether(5)
        }]
    );
    assert_eq!(
        sim.discrepancies,
        vec![Discrepancy::AllowanceMismatch {
            token,
            spender: BOB,
            before: U256::ZERO,
            after: ether(5),
            logged: None
        }]
    );
}
