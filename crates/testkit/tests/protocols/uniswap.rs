//! Uniswap V3 on the npm bytecode, through the account's owner path.

use crate::common::{bed, execute};
use alloy_primitives::U256;
use pace_testkit::protocols::{
    actions::{balance, owner_execute},
    bindings::{IUniswapV3Pool, NonfungiblePositionManager},
    ether,
    uniswap_v3::{OBSERVATION_CARDINALITY, TWAP_WINDOW, deadline},
};

/// `exactInputSingle` through SwapRouter: 1 WETH out, what QuoterV2 quoted in DAI back, at
/// about the pool's price less its 0.3 % fee.
#[test]
fn v3_swap_through_the_swap_router() {
    let (mut world, bed) = bed();
    let (a, v3) = (world.addrs, bed.uniswap_v3);
    let pool = v3.weth_dai;
    let weth_before = balance(&world.evm, a.weth, a.account).unwrap();
    let dai_before = balance(&world.evm, a.dai, a.account).unwrap();
    let quoted = v3.quote(&world.evm, &pool, a.weth, ether(1)).unwrap();
    let swap = v3.exact_input_single(
        &pool,
        a.weth,
        ether(1),
        quoted,
        a.account,
        deadline(&world.evm).unwrap(),
    );
    owner_execute(&mut world.evm, &a, &swap).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        balance(&world.evm, a.weth, a.account).unwrap(),
        weth_before - ether(1)
    );
    let got = balance(&world.evm, a.dai, a.account).unwrap() - dai_before;
    assert_eq!(got, quoted);
    assert!(got > ether(990) && got < ether(997), "{got}");
}

/// A swap whose minimum is above what the pool gives reverts (the pool's real slippage check).
#[test]
fn v3_swap_below_its_minimum_reverts() {
    let (mut world, bed) = bed();
    let (a, v3) = (world.addrs, bed.uniswap_v3);
    let quoted = v3
        .quote(&world.evm, &v3.weth_dai, a.weth, ether(1))
        .unwrap();
    let deadline = deadline(&world.evm).unwrap();
    let swap = v3.exact_input_single(
        &v3.weth_dai,
        a.weth,
        ether(1),
        quoted + U256::from(1),
        a.account,
        deadline,
    );
    let err = owner_execute(&mut world.evm, &a, &swap)
        .unwrap_err()
        .to_string();
    assert!(err.contains("Too little received"), "{err}");
}

/// `mint` through the NonfungiblePositionManager: the account holds the position NFT, whose
/// liquidity is in the pool, and paid both tokens.
#[test]
fn v3_lp_mint_gives_the_account_a_position() {
    let (mut world, bed) = bed();
    let (a, v3) = (world.addrs, bed.uniswap_v3);
    let pool = v3.weth_dai;
    let tick = pool.slot0(&world.evm).unwrap().tick;
    let range = pool.range_around(tick, 10);
    let (weth_amount, dai_amount) = (ether(1), ether(1_000));
    let amounts = if pool.token0 == a.weth {
        (weth_amount, dai_amount)
    } else {
        (dai_amount, weth_amount)
    };
    let before = [a.weth, a.dai].map(|t| balance(&world.evm, t, a.account).unwrap());
    let liquidity_before = world
        .evm
        .view_sol(pool.address, &IUniswapV3Pool::liquidityCall {})
        .unwrap();
    let mint = v3.mint_position(
        &pool,
        range,
        amounts,
        a.account,
        deadline(&world.evm).unwrap(),
    );
    let outcome = execute(&mut world, &mint);

    let npm = v3.position_manager;
    let owned = world
        .evm
        .view_sol(
            npm,
            &NonfungiblePositionManager::balanceOfCall { owner: a.account },
        )
        .unwrap();
    assert_eq!(owned, U256::from(1));
    let minted = outcome.events::<NonfungiblePositionManager::Transfer>();
    let [(emitter, transfer)] = minted.as_slice() else {
        panic!("one NFT transfer: {minted:?}");
    };
    assert_eq!((*emitter, transfer.to), (npm, a.account));
    let token_id = transfer.tokenId;
    let position = world
        .evm
        .view_sol(
            npm,
            &NonfungiblePositionManager::positionsCall { tokenId: token_id },
        )
        .unwrap();
    assert_eq!(
        (position.token0, position.token1),
        (pool.token0, pool.token1)
    );
    assert_eq!(
        (position.tickLower.as_i32(), position.tickUpper.as_i32()),
        range
    );
    assert!(position.liquidity > 0);
    let liquidity_after = world
        .evm
        .view_sol(pool.address, &IUniswapV3Pool::liquidityCall {})
        .unwrap();
    assert_eq!(liquidity_after, liquidity_before + position.liquidity);
    let after = [a.weth, a.dai].map(|t| balance(&world.evm, t, a.account).unwrap());
    assert!(
        after[0] < before[0] && after[1] < before[1],
        "both tokens deposited"
    );
    assert!(before[0] - after[0] <= weth_amount && before[1] - after[1] <= dai_amount);
}

/// Every pool has a TWAP over the window, close to its spot price and to the world's price
/// (1,000 DAI or USDC per WETH, 1 DAI per USDC).
#[test]
fn every_pool_has_a_twap_at_the_worlds_price() {
    let (world, bed) = bed();
    let a = world.addrs;
    let v3 = bed.uniswap_v3;
    // log_1.0001(1000) = 69,081.
    let weth_dai = if v3.weth_dai.token0 == a.weth {
        69_081
    } else {
        -69_081
    };
    // 1 WETH (1e18) = 1,000 USDC (1e9 units): price 1e-9 per smallest unit, tick -207,243.
    let weth_usdc = if v3.weth_usdc.token0 == a.weth {
        -207_243
    } else {
        207_243
    };
    // 1 DAI (1e18) = 1 USDC (1e6): tick -276,324.
    let dai_usdc = if v3.dai_usdc.token0 == a.dai {
        -276_324
    } else {
        276_324
    };
    for (pool, expected) in [
        (v3.weth_dai, weth_dai),
        (v3.weth_usdc, weth_usdc),
        (v3.dai_usdc, dai_usdc),
    ] {
        let slot0 = pool.slot0(&world.evm).unwrap();
        assert_eq!(slot0.observation_cardinality, OBSERVATION_CARDINALITY);
        let twap = pool.twap_tick(&world.evm, TWAP_WINDOW).unwrap();
        assert!(
            (twap - slot0.tick).abs() < 30,
            "{pool:?}: twap {twap}, spot {}",
            slot0.tick
        );
        assert!(
            (twap - expected).abs() < 30,
            "{pool:?}: twap {twap}, expected {expected}"
        );
    }
    // Older than the pools' history: refused by the pool ("OLD").
    let err = v3
        .weth_dai
        .twap_tick(&world.evm, 10 * TWAP_WINDOW)
        .unwrap_err()
        .to_string();
    assert!(err.contains("OLD"), "{err}");
}
