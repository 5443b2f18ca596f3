//! The health factor through the protocol adapters, on the bed's real Aave V3 bytecode and the
//! Compound-style market: a borrow or a withdrawal to a health factor below the policy's
//! minimum is refused (and, executed through the owner's path, is liquidatable after a modest
//! price move); a move that can lower a position whose health factor cannot be read is
//! refused; a supply or a repayment passes without it.

use crate::protocols_bed::{Bed, bed, codes, selector};
use alloy_primitives::{Address, U256};
use alloy_sol_types::sol;
use pace_abi::bindings::IERC20;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    aave::HEALTH_FACTOR_ONE,
    actions::fund_token,
    bindings::{AavePool, MockCToken, MockComptroller},
    feeds::usd,
};
use pace_types::{LendingProtocol, Policy, ViolationCode as Code, units::ether};

sol! {
    /// Aave V3's liquidation entry point.
    interface IAaveLiquidation {
        function liquidationCall(
            address collateralAsset,
            address debtAsset,
            address user,
            uint256 debtToCover,
            bool receiveAToken
        ) external;
    }
}

fn aave_policy(b: &Bed) -> Policy {
    let (a, aave) = (b.a(), &b.bed.aave);
    let tokens: Vec<Address> = aave
        .reserves()
        .iter()
        .flat_map(|r| [r.a_token, r.variable_debt_token])
        .collect();
    let mut p = b.policy(
        &[aave.pool, a.weth, a.dai],
        &[
            selector::<IERC20::approveCall>(),
            selector::<AavePool::supplyCall>(),
            selector::<AavePool::borrowCall>(),
            selector::<AavePool::repayCall>(),
            selector::<AavePool::withdrawCall>(),
        ],
        &tokens,
        &b.aave_contracts(),
    );
    // A repayment burns debt tokens, which the spend caps count as leaving the account.
    for r in aave.reserves() {
        p.spend_caps.push(pace_types::TokenAmount {
            token: r.variable_debt_token,
            amount: ether(100_000),
        });
    }
    p
}

/// The account supplies 10 WETH ($10,000 at the bed's feed) and borrows `dai`, through the
/// owner's path.
fn aave_position(b: &mut Bed, dai: U256) {
    let (a, aave) = (b.a(), b.bed.aave.clone());
    let mut calls = aave.supply(a.weth, ether(10), a.account);
    if !dai.is_zero() {
        calls.push(aave.borrow(a.dai, dai, a.account));
    }
    b.owner(&calls);
}

fn aave_health(b: &Bed) -> U256 {
    let a = b.a();
    b.bed
        .aave
        .account_data(&b.world.evm, a.account)
        .unwrap()
        .health_factor
}

/// Borrowing 7,000 DAI against 10 WETH leaves a health factor of 1.18 (threshold 82.5 %): the
/// pool allows it, the policy's 1.2 does not. Executed anyway, a 20 % fall of ether makes the
/// position liquidatable and a liquidator takes collateral at a bonus.
#[test]
fn an_aave_borrow_below_the_minimum_is_refused_and_would_be_liquidated() {
    let mut b = bed();
    aave_position(&mut b, U256::ZERO);
    let (a, aave) = (b.a(), b.bed.aave.clone());
    let policy = aave_policy(&b);
    let borrow = b.intent(vec![aave.borrow(a.dai, ether(7_000), a.account)]);
    let refused = b.evaluate_claimed(borrow.clone(), &policy);
    assert!(
        codes(&refused).contains(&Code::HealthFactorTooLow),
        "{:?}",
        refused.decision
    );
    let fact = refused
        .report
        .lending
        .iter()
        .find(|f| f.protocol == LendingProtocol::AaveV3)
        .expect("the Aave adapter read the pool");
    assert_eq!(fact.market, aave.pool);
    assert!(fact.lowers);
    assert_eq!(fact.before.health_factor_bps, Some(u32::MAX));
    assert_eq!(fact.after.health_factor_bps, Some(11_785));
    assert!(fact.after.debt > fact.before.debt);

    // The same borrow through the owner's path, then ether falls to $800.
    b.owner(&borrow.calls);
    assert!(aave_health(&b) > U256::from(HEALTH_FACTOR_ONE));
    b.bed
        .feeds
        .update(&mut b.world.evm, b.bed.feeds.eth_usd, usd(800))
        .unwrap();
    assert!(aave_health(&b) < U256::from(HEALTH_FACTOR_ONE));
    let liquidator = a.trader;
    fund_token(&mut b.world.evm, &a, a.dai, liquidator, ether(3_500)).unwrap();
    b.send(
        liquidator,
        a.dai,
        &IERC20::approveCall {
            spender: aave.pool,
            value: ether(3_500),
        },
    );
    let seized = b.balance(a.weth, liquidator);
    b.send(
        liquidator,
        aave.pool,
        &IAaveLiquidation::liquidationCallCall {
            collateralAsset: a.weth,
            debtAsset: a.dai,
            user: a.account,
            debtToCover: ether(3_500),
            receiveAToken: false,
        },
    );
    // 3,500 DAI of debt buys 3,500 × 1.05 / 800 ≈ 4.59 WETH of the account's collateral.
    let taken = b.balance(a.weth, liquidator) - seized;
    assert!(taken > ether(4) && taken < ether(5), "{taken}");
}

/// A borrow approved at a health factor of 1.65 carries a post-condition on the pool's
/// health factor (at least the policy's 1.2): ether falls to $700 between the decision and the
/// landing, the pool still lends (its 80 % LTV allows it) and every balance moves as simulated,
/// but the position would land at 1.155, and the account reverts the PDR.
#[test]
fn an_aave_borrow_that_would_land_under_the_minimum_reverts_on_its_post_condition() {
    let mut b = bed();
    aave_position(&mut b, U256::ZERO);
    let (a, aave) = (b.a(), b.bed.aave.clone());
    let policy = aave_policy(&b);
    let borrow = b.intent(vec![aave.borrow(a.dai, ether(5_000), a.account)]);
    let e = b.evaluate_claimed(borrow, &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let checks = &e.checked.as_ref().expect("pass 2 held").signed().pdr.checks;
    assert!(
        checks.iter().any(|c| c.target == aave.pool),
        "a check on the pool's health factor: {checks:?}"
    );
    b.bed
        .feeds
        .update(&mut b.world.evm, b.bed.feeds.eth_usd, usd(700))
        .unwrap();
    let dai = b.balance(a.dai, a.account);
    let done = b.submit(&e, &[a.dai]);
    let ExecutionResult::Reverted { error: reason, .. } = &done else {
        panic!("{done:?}");
    };
    assert!(reason.contains("PaceAccountCheckFailed"), "{reason}");
    assert_eq!(b.balance(a.dai, a.account), dai, "nothing borrowed");
}

/// A withdrawal is judged the same: with 5,000 DAI owed, withdrawing 3 of 10 WETH leaves 1.155,
/// 2 WETH leaves 1.32.
#[test]
fn an_aave_withdrawal_below_the_minimum_is_refused() {
    let mut b = bed();
    aave_position(&mut b, ether(5_000));
    let (a, aave) = (b.a(), b.bed.aave.clone());
    let policy = aave_policy(&b);
    let too_much = b.intent(vec![aave.withdraw(a.weth, ether(3), a.account)]);
    let refused = b.evaluate_claimed(too_much, &policy);
    assert!(
        codes(&refused).contains(&Code::HealthFactorTooLow),
        "{:?}",
        refused.decision
    );
    let fine = b.intent(vec![aave.withdraw(a.weth, ether(2), a.account)]);
    let judged = b.evaluate_claimed(fine, &policy);
    assert!(
        !codes(&judged).contains(&Code::HealthFactorTooLow),
        "{:?}",
        judged.decision
    );
    assert!(!codes(&judged).contains(&Code::HealthFactorUnreadable));
}

/// With the DAI feed answering 0, Aave can price no position that owes DAI: the pool refuses
/// borrows and withdrawals itself, and `getUserAccountData` reverts. A supply and a repayment
/// still execute, and need no health factor: both are approved and submitted.
#[test]
fn an_aave_supply_and_repay_pass_without_a_health_factor() {
    let mut b = bed();
    aave_position(&mut b, ether(4_000));
    let (a, aave) = (b.a(), b.bed.aave.clone());
    let policy = aave_policy(&b);
    b.bed
        .feeds
        .update(&mut b.world.evm, b.bed.feeds.dai_usd, usd(0))
        .unwrap();
    for calls in [
        aave.supply(a.weth, ether(1), a.account),
        aave.repay(a.dai, ether(1_000), a.account),
    ] {
        let e = b.evaluate_claimed(b.intent(calls), &policy);
        let fact = e
            .report
            .lending
            .iter()
            .find(|f| f.market == aave.pool)
            .expect("the pool, named by the account's aToken or debt token");
        assert_eq!(fact.after.health_factor_bps, None, "unreadable");
        assert!(!fact.lowers);
        assert!(e.decision.approved(), "{:?}", e.decision.violations);
        let done = b.submit(&e, &[a.weth, a.dai]);
        assert!(matches!(done, ExecutionResult::Executed { .. }), "{done:?}");
    }
}

fn compound_policy(b: &Bed) -> Policy {
    let c = b.bed.compound;
    let f = &b.bed.feeds;
    let markets: Vec<Address> = c.markets().iter().map(|m| m.c_token).collect();
    let mut targets = markets.clone();
    let a = b.a();
    targets.extend([c.comptroller, a.weth, a.dai, a.usdc]);
    let mut touched = markets.clone();
    touched.extend([c.comptroller, f.eth_usd, f.dai_usd, f.usdc_usd]);
    b.policy(
        &targets,
        &[
            selector::<IERC20::approveCall>(),
            selector::<MockCToken::mintCall>(),
            selector::<MockCToken::borrowCall>(),
            selector::<MockCToken::repayBorrowCall>(),
            selector::<MockComptroller::enterMarketsCall>(),
        ],
        &markets,
        &touched,
    )
}

/// The account enters cWETH and supplies 10 WETH ($7,500 of collateral at a 75 % factor).
fn compound_position(b: &mut Bed) {
    let c = b.bed.compound;
    let mut calls = vec![c.enter_markets(&[c.c_weth])];
    calls.extend(c.mint(&c.c_weth, ether(10)));
    b.owner(&calls);
}

/// Borrowing 6,500 DAI against $7,500 of collateral leaves (liquidity + debt) / debt = 1.15:
/// refused under the 1.2 minimum. Executed anyway, a 14 % fall of ether leaves a shortfall.
#[test]
fn a_compound_borrow_below_the_minimum_is_refused_and_would_fall_short() {
    let mut b = bed();
    compound_position(&mut b);
    let (a, c) = (b.a(), b.bed.compound);
    let policy = compound_policy(&b);
    let borrow = b.intent(vec![c.borrow(&c.c_dai, ether(6_500))]);
    let refused = b.evaluate_claimed(borrow.clone(), &policy);
    assert!(
        codes(&refused).contains(&Code::HealthFactorTooLow),
        "{:?}",
        refused.decision
    );
    let fact = refused
        .report
        .lending
        .iter()
        .find(|f| f.protocol == LendingProtocol::Compound)
        .expect("the Compound adapter read the comptroller");
    assert_eq!(fact.market, c.comptroller);
    assert_eq!(fact.after.health_factor_bps, Some(11_538));
    assert!(fact.lowers);

    // A borrow that keeps 1.5 passes the health check.
    let fine = b.intent(vec![c.borrow(&c.c_dai, ether(5_000))]);
    let judged = b.evaluate_claimed(fine, &policy);
    assert!(
        !codes(&judged).contains(&Code::HealthFactorTooLow),
        "{:?}",
        judged.decision
    );

    b.owner(&borrow.calls);
    b.bed
        .feeds
        .update(&mut b.world.evm, b.bed.feeds.eth_usd, usd(860))
        .unwrap();
    let l = c.liquidity(&b.world.evm, a.account).unwrap();
    assert_eq!(l.error, U256::ZERO);
    assert!(l.shortfall > U256::ZERO, "{l:?}");
}

/// A borrow the comptroller allows, followed in the same batch by entering a market whose
/// feed answers 0: the health factor after the calls cannot be read (price error), the debt
/// rose, so the intent is refused. Entering the market alone lowers nothing and passes.
#[test]
fn a_borrow_that_hides_its_health_factor_is_refused() {
    let mut b = bed();
    compound_position(&mut b);
    let c = b.bed.compound;
    let policy = compound_policy(&b);
    b.bed
        .feeds
        .update(&mut b.world.evm, b.bed.feeds.usdc_usd, usd(0))
        .unwrap();
    let hidden = b.intent(vec![
        c.borrow(&c.c_dai, ether(6_500)),
        c.enter_markets(&[c.c_usdc]),
    ]);
    let refused = b.evaluate_claimed(hidden, &policy);
    assert!(
        codes(&refused).contains(&Code::HealthFactorUnreadable),
        "{:?}",
        refused.decision
    );
    let enter = b.intent(vec![c.enter_markets(&[c.c_usdc])]);
    let judged = b.evaluate_claimed(enter, &policy);
    assert!(
        !codes(&judged).contains(&Code::HealthFactorUnreadable),
        "{:?}",
        judged.decision
    );
}

/// With the account in a market whose feed answers 0 the comptroller reads no liquidity, and
/// refuses every borrow. A supply and a repayment still execute, and need no health factor.
#[test]
fn a_compound_supply_and_repay_pass_without_a_health_factor() {
    let mut b = bed();
    compound_position(&mut b);
    let (a, c) = (b.a(), b.bed.compound);
    b.owner(&[
        c.borrow(&c.c_dai, ether(2_000)),
        c.enter_markets(&[c.c_usdc]),
    ]);
    b.bed
        .feeds
        .update(&mut b.world.evm, b.bed.feeds.usdc_usd, usd(0))
        .unwrap();
    let policy = compound_policy(&b);
    let supply = c.mint(&c.c_weth, ether(1));
    let repay = c.repay(&c.c_dai, ether(500), ether(500));
    for calls in [supply, repay] {
        let e = b.evaluate_claimed(b.intent(calls), &policy);
        let fact = e
            .report
            .lending
            .iter()
            .find(|f| f.market == c.comptroller)
            .expect("the comptroller");
        assert_eq!(fact.after.health_factor_bps, None, "unreadable");
        assert!(!fact.lowers);
        assert!(e.decision.approved(), "{:?}", e.decision.violations);
        let done = b.submit(&e, &[a.weth, a.dai, c.c_weth.c_token]);
        assert!(matches!(done, ExecutionResult::Executed { .. }), "{done:?}");
    }
}
