//! Borrowing and repaying conserve value as the exchanges they are: an Aave V3 borrow and
//! repay (the variable debt token is minus its underlying) and a Compound-style borrow and
//! repay (the borrow balance is a debt), each approved, executed through the pipeline and
//! read back equal to its simulation.

use super::support::{aave_policy, compound_policy, reads_back};
use crate::protocols_bed::{bed, codes};
use alloy_primitives::U256;
use pace_testkit::protocols::ether;

#[test]
fn an_aave_borrow_and_its_repay_are_exchanges() {
    let mut b = bed();
    let (a, aave) = (b.a(), b.bed.aave.clone());
    b.owner(&aave.supply(a.weth, ether(10), a.account));
    let policy = aave_policy(&b);
    let vdai = aave.dai.variable_debt_token;

    let borrow = b.evaluate_claimed(
        b.intent(vec![aave.borrow(a.dai, ether(1_000), a.account)]),
        &policy,
    );
    assert!(
        borrow.decision.approved(),
        "{:?}",
        borrow.decision.violations
    );
    assert!(
        borrow
            .report
            .debt_tokens
            .iter()
            .any(|d| d.token == vdai && d.underlying == a.dai),
        "the pool declares its debt tokens"
    );
    let result = b.submit(&borrow, &[a.dai, vdai]);
    reads_back(&borrow, &result, &[a.dai], U256::ZERO);
    // The debt accrues interest between the simulated block and the next.
    reads_back(
        &borrow,
        &result,
        &[vdai],
        ether(1) / U256::from(1_000_000u64),
    );
    assert!(b.balance(vdai, a.account) >= ether(1_000));

    b.world.advance(100);
    let repay = b.evaluate_claimed(b.intent(aave.repay(a.dai, ether(400), a.account)), &policy);
    assert!(repay.decision.approved(), "{:?}", repay.decision.violations);
    let result = b.submit(&repay, &[a.dai, vdai]);
    reads_back(&repay, &result, &[a.dai], U256::ZERO);
    reads_back(
        &repay,
        &result,
        &[vdai],
        ether(1) / U256::from(1_000_000u64),
    );
    let owed = b.balance(vdai, a.account);
    assert!(owed > ether(600) && owed < ether(601), "{owed}");
}

#[test]
fn a_compound_borrow_and_its_repay_are_exchanges() {
    let mut b = bed();
    let (a, c) = (b.a(), b.bed.compound);
    let mut setup = c.mint(&c.c_weth, ether(10));
    setup.push(c.enter_markets(&[c.c_weth]));
    b.owner(&setup);
    let policy = compound_policy(&b);

    let borrow = b.evaluate_claimed(b.intent(vec![c.borrow(&c.c_dai, ether(1_000))]), &policy);
    assert!(borrow.decision.approved(), "{:?}", codes(&borrow));
    let debts = &borrow.report.protocols.lending_debts;
    assert_eq!(debts.len(), 1, "{debts:?}");
    assert_eq!((debts[0].market, debts[0].token), (c.c_dai.c_token, a.dai));
    let result = b.submit(&borrow, &[a.dai]);
    reads_back(&borrow, &result, &[a.dai], U256::ZERO);
    assert!(c.borrow_balance(&b.world.evm, &c.c_dai, a.account).unwrap() >= ether(1_000));

    b.world.advance(100);
    let repay = b.evaluate_claimed(b.intent(c.repay(&c.c_dai, ether(400), ether(400))), &policy);
    assert!(repay.decision.approved(), "{:?}", repay.decision.violations);
    let result = b.submit(&repay, &[a.dai]);
    reads_back(&repay, &result, &[a.dai], U256::ZERO);
    let owed = c.borrow_balance(&b.world.evm, &c.c_dai, a.account).unwrap();
    assert!(owed > ether(600) && owed < ether(601), "{owed}");
}
