//! The health factor before and after a borrow on MockLendingPool.

use alloy_primitives::I256;
use pace_contracts::bindings::{IERC20, MockLendingPool};
use pace_simulator::simulate;
use pace_testkit::fixture::*;
use pace_types::BalanceChange;

#[test]
fn borrow_reports_health_factor_before_and_after() {
    let w = world();
    let intent = intent(
        w.account,
        vec![call(
            w.lending,
            &MockLendingPool::borrowCall { amount: ether(50) },
        )],
    );
    let r = simulate(&w.evm, &intent).unwrap();
    assert!(r.success, "{:?}", r.revert_reason);
    // 100 A at 2 B, threshold 80%: 160 / 50 = 3.2 before, 160 / 100 = 1.6 after.
    assert_eq!(r.health_factor_before_bps, Some(32_000));
    assert_eq!(r.health_factor_after_bps, Some(16_000));
    assert_eq!(
        r.balance_changes,
        vec![BalanceChange {
            token: w.b,
            delta: I256::try_from(ether(50)).unwrap()
        }]
    );
    assert_eq!(r.touched_contracts[0], w.lending);
}

#[test]
fn first_responding_target_wins_and_no_debt_saturates() {
    let w = world();
    // Repay everything (approve B first): the token does not answer healthFactor, the pool does.
    let calls = vec![
        call(
            w.b,
            &IERC20::approveCall {
                spender: w.lending,
                value: ether(50),
            },
        ),
        call(w.lending, &MockLendingPool::repayCall { amount: ether(50) }),
    ];
    let r = simulate(&w.evm, &intent(w.account, calls)).unwrap();
    assert!(r.success, "{:?}", r.revert_reason);
    assert_eq!(r.health_factor_before_bps, Some(32_000));
    assert_eq!(
        r.health_factor_after_bps,
        Some(u32::MAX),
        "no debt: type(uint256).max saturates"
    );
}
