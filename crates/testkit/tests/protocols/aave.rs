//! A full Aave V3 market (npm bytecode, libraries linked) through the account's owner path:
//! supply, borrow, repay and withdraw, read back from `getUserAccountData` and the tokens.

use crate::common::{bed, close, execute, failed_call};
use alloy_primitives::U256;
use pace_testkit::protocols::{
    Protocols,
    aave::HEALTH_FACTOR_ONE,
    actions::balance,
    bindings::{AaveOracle, AaveProtocolDataProvider, IAaveVariableDebtToken},
    ether,
    feeds::usd,
};
use pace_world::World;

/// Supplies 10 WETH and borrows `dai` DAI from the account.
fn supply_and_borrow(world: &mut World, bed: &Protocols, dai: U256) {
    let (a, aave) = (world.addrs, &bed.aave);
    let mut calls = aave.supply(a.weth, ether(10), a.account);
    calls.push(aave.borrow(a.dai, dai, a.account));
    execute(world, &calls);
}

#[test]
fn reserves_are_listed_as_configured() {
    let (world, bed) = bed();
    let (a, aave) = (world.addrs, &bed.aave);
    for (asset, ltv, threshold) in [
        (a.weth, 8_000, 8_250),
        (a.dai, 7_500, 8_000),
        (a.usdc, 7_700, 8_000),
    ] {
        let c = world
            .evm
            .view_sol(
                aave.data_provider,
                &AaveProtocolDataProvider::getReserveConfigurationDataCall { asset },
            )
            .unwrap();
        assert_eq!(
            (c.ltv, c.liquidationThreshold),
            (U256::from(ltv), U256::from(threshold))
        );
        assert!(c.usageAsCollateralEnabled && c.borrowingEnabled && c.isActive && !c.isFrozen);
        assert!(!c.stableBorrowRateEnabled);
    }
    let price = world
        .evm
        .view_sol(
            aave.oracle,
            &AaveOracle::getAssetPriceCall { asset: a.weth },
        )
        .unwrap();
    assert_eq!(price, U256::from(1_000u64 * 100_000_000));
}

/// A borrow mints the variable debt token to the account and lowers its health factor from
/// "no debt" to collateral × threshold / debt; a price fall lowers it further.
#[test]
fn borrow_mints_debt_and_lowers_the_health_factor() {
    let (mut world, bed) = bed();
    let (a, aave) = (world.addrs, bed.aave.clone());
    let dai_before = balance(&world.evm, a.dai, a.account).unwrap();
    execute(&mut world, &aave.supply(a.weth, ether(10), a.account));
    let before = aave.account_data(&world.evm, a.account).unwrap();
    assert_eq!(before.health_factor, U256::MAX, "no debt yet");
    assert_eq!(
        before.total_collateral_base,
        U256::from(10_000u64 * 100_000_000)
    );
    assert!(close(
        balance(&world.evm, aave.weth.a_token, a.account).unwrap(),
        ether(10),
        U256::from(1)
    ));

    execute(&mut world, &[aave.borrow(a.dai, ether(4_000), a.account)]);
    assert_eq!(
        balance(&world.evm, a.dai, a.account).unwrap(),
        dai_before + ether(4_000)
    );
    let debt = balance(&world.evm, aave.dai.variable_debt_token, a.account).unwrap();
    assert!(close(debt, ether(4_000), U256::from(1)), "{debt}");
    let after = aave.account_data(&world.evm, a.account).unwrap();
    // 10,000 USD × 82.5 % / 4,000 USD = 2.0625.
    let expected = U256::from(HEALTH_FACTOR_ONE) * U256::from(20_625) / U256::from(10_000);
    assert!(
        close(after.health_factor, expected, U256::from(1_000_000_000u64)),
        "{after:?}"
    );
    assert_eq!(after.total_debt_base, U256::from(4_000u64 * 100_000_000));

    bed.feeds
        .update(&mut world.evm, bed.feeds.eth_usd, usd(800))
        .unwrap();
    let fallen = aave.account_data(&world.evm, a.account).unwrap();
    assert!(fallen.health_factor < after.health_factor);
    let expected = U256::from(HEALTH_FACTOR_ONE) * U256::from(165) / U256::from(100);
    assert!(
        close(fallen.health_factor, expected, U256::from(1_000_000_000u64)),
        "{fallen:?}"
    );
}

/// Borrowing more than the collateral allows is refused by the pool
/// (`COLLATERAL_CANNOT_COVER_NEW_BORROW`, Aave's error 36).
#[test]
fn borrow_beyond_the_ltv_reverts() {
    let (mut world, bed) = bed();
    let (a, aave) = (world.addrs, &bed.aave);
    execute(&mut world, &aave.supply(a.weth, ether(10), a.account));
    let outcome =
        crate::common::owner_batch(&mut world, &[aave.borrow(a.dai, ether(8_001), a.account)]);
    assert!(!outcome.success);
    let (index, reason) = failed_call(&outcome).expect("the borrow failed");
    assert_eq!(index, 0);
    assert_eq!(
        alloy_sol_types::decode_revert_reason(&reason).as_deref(),
        Some("revert: 36")
    );
}

/// Debt accrues interest over time; a full repay clears it and a full withdraw returns the
/// collateral.
#[test]
fn repay_and_withdraw_close_the_position() {
    let (mut world, bed) = bed();
    let (a, aave) = (world.addrs, bed.aave.clone());
    let weth_before = balance(&world.evm, a.weth, a.account).unwrap();
    supply_and_borrow(&mut world, &bed, ether(4_000));
    world.advance(10_000);
    let debt = balance(&world.evm, aave.dai.variable_debt_token, a.account).unwrap();
    assert!(debt > ether(4_000), "interest accrued: {debt}");

    let repay = aave.repay(a.dai, U256::MAX, a.account);
    // Approve a little more than the debt; `repay(MAX)` takes exactly the debt.
    let repay = vec![
        pace_testkit::protocols::actions::approve(a.dai, aave.pool, debt + ether(1)),
        repay[1].clone(),
    ];
    let dai_before = balance(&world.evm, a.dai, a.account).unwrap();
    execute(&mut world, &repay);
    assert_eq!(
        balance(&world.evm, aave.dai.variable_debt_token, a.account).unwrap(),
        U256::ZERO
    );
    let paid = dai_before - balance(&world.evm, a.dai, a.account).unwrap();
    assert!(close(paid, debt, U256::from(1)), "paid {paid}, owed {debt}");
    assert_eq!(
        aave.account_data(&world.evm, a.account)
            .unwrap()
            .health_factor,
        U256::MAX
    );

    execute(&mut world, &[aave.withdraw(a.weth, U256::MAX, a.account)]);
    assert_eq!(
        balance(&world.evm, aave.weth.a_token, a.account).unwrap(),
        U256::ZERO
    );
    let back = balance(&world.evm, a.weth, a.account).unwrap();
    assert!(
        back >= weth_before && back - weth_before < ether(1) / U256::from(1_000),
        "{back}"
    );
}

/// `approveDelegation` grants credit: the delegatee may borrow against the account.
#[test]
fn credit_delegation_lets_another_borrow_against_the_account() {
    let (mut world, bed) = bed();
    let (a, aave) = (world.addrs, bed.aave);
    let mut calls = aave.supply(a.weth, ether(10), a.account);
    calls.push(aave.approve_delegation(&aave.dai, a.attacker, ether(1_000)));
    execute(&mut world, &calls);
    let allowance = world
        .evm
        .view_sol(
            aave.dai.variable_debt_token,
            &IAaveVariableDebtToken::borrowAllowanceCall {
                fromUser: a.account,
                toUser: a.attacker,
            },
        )
        .unwrap();
    assert_eq!(allowance, ether(1_000));
    let borrow = aave.borrow(a.dai, ether(1_000), a.account);
    world
        .evm
        .call(a.attacker, borrow.target, borrow.value, borrow.data)
        .unwrap()
        .into_result()
        .unwrap();
    assert_eq!(
        balance(&world.evm, a.dai, a.attacker).unwrap(),
        ether(1_000)
    );
    let debt = balance(&world.evm, aave.dai.variable_debt_token, a.account).unwrap();
    assert!(
        close(debt, ether(1_000), U256::from(1)),
        "the account owes it: {debt}"
    );
}
