//! The Compound-style market through the account's owner path: supply, enter, borrow, interest,
//! repay, and the comptroller's liquidity read back.

use crate::common::{bed, close, execute, failed_call, owner_batch};
use alloy_primitives::U256;
use alloy_sol_types::SolError;
use pace_testkit::protocols::{actions::balance, bindings::MockCToken, ether, feeds::usd};

/// 10 WETH supplied as collateral (factor 75 %) at 1,000 USD: 7,500 USD of liquidity.
fn collateral_liquidity() -> U256 {
    ether(7_500)
}

#[test]
fn mint_enter_borrow_repay() {
    let (mut world, bed) = bed();
    let (a, c) = (world.addrs, bed.compound);
    let mut calls = c.mint(&c.c_weth, ether(10));
    calls.push(c.enter_markets(&[c.c_weth]));
    execute(&mut world, &calls);
    let tokens = balance(&world.evm, c.c_weth.c_token, a.account).unwrap();
    assert_eq!(
        tokens,
        U256::from(500u64 * 100_000_000),
        "500 cWETH at 0.02 WETH each"
    );
    let l = c.liquidity(&world.evm, a.account).unwrap();
    assert_eq!(l.error, U256::ZERO);
    assert!(
        close(
            l.liquidity,
            collateral_liquidity(),
            U256::from(10u64.pow(10))
        ),
        "{l:?}"
    );

    let dai_before = balance(&world.evm, a.dai, a.account).unwrap();
    execute(&mut world, &[c.borrow(&c.c_dai, ether(3_000))]);
    assert_eq!(
        balance(&world.evm, a.dai, a.account).unwrap(),
        dai_before + ether(3_000)
    );
    assert_eq!(
        c.borrow_balance(&world.evm, &c.c_dai, a.account).unwrap(),
        ether(3_000)
    );
    let l = c.liquidity(&world.evm, a.account).unwrap();
    assert!(
        close(l.liquidity, ether(4_500), U256::from(10u64.pow(10))),
        "{l:?}"
    );

    world.advance(1_000);
    let stored = c.borrow_balance(&world.evm, &c.c_dai, a.account).unwrap();
    let current = c
        .borrow_balance_current(&world.evm, &c.c_dai, a.account)
        .unwrap();
    assert_eq!(stored, ether(3_000), "stored until the market accrues");
    let rate = world
        .evm
        .view_sol(c.c_dai.c_token, &MockCToken::borrowRatePerBlockCall {})
        .unwrap();
    assert_eq!(
        current,
        ether(3_000) + ether(3_000) * rate * U256::from(1_000) / ether(1)
    );

    execute(&mut world, &c.repay(&c.c_dai, U256::MAX, current));
    assert_eq!(
        c.borrow_balance(&world.evm, &c.c_dai, a.account).unwrap(),
        U256::ZERO
    );
    assert_eq!(
        balance(&world.evm, a.dai, a.account).unwrap(),
        dai_before + ether(3_000) - current
    );
}

/// Borrowing past the collateral's limit is refused by the comptroller (Compound's code 4,
/// INSUFFICIENT_LIQUIDITY).
#[test]
fn borrow_beyond_the_collateral_reverts() {
    let (mut world, bed) = bed();
    let c = bed.compound;
    let mut calls = c.mint(&c.c_weth, ether(10));
    calls.push(c.enter_markets(&[c.c_weth]));
    calls.push(c.borrow(&c.c_dai, ether(7_501)));
    let outcome = owner_batch(&mut world, &calls);
    let (index, reason) = failed_call(&outcome).expect("the borrow failed");
    assert_eq!(index, 3);
    let rejection = MockCToken::MockCTokenComptrollerRejection {
        errorCode: U256::from(4),
    };
    assert_eq!(reason.as_ref(), rejection.abi_encode().as_slice());
}

/// A fall of the collateral's feed turns liquidity into shortfall.
#[test]
fn a_price_fall_creates_a_shortfall() {
    let (mut world, bed) = bed();
    let (a, c) = (world.addrs, bed.compound);
    let mut calls = c.mint(&c.c_weth, ether(10));
    calls.push(c.enter_markets(&[c.c_weth]));
    calls.push(c.borrow(&c.c_usdc, U256::from(6_000_000_000u64)));
    execute(&mut world, &calls);
    bed.feeds
        .update(&mut world.evm, bed.feeds.eth_usd, usd(700))
        .unwrap();
    let l = c.liquidity(&world.evm, a.account).unwrap();
    assert_eq!(l.liquidity, U256::ZERO);
    // 10 × 700 × 75 % = 5,250 against 6,000.
    assert!(
        close(l.shortfall, ether(750), U256::from(10u64.pow(10))),
        "{l:?}"
    );
}
