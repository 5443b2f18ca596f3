//! The honest cases: each approved, executed through `pace run --rpc`, and read back from the
//! node equal to its simulation.

use super::{
    accrual,
    harness::{Harness, Watch},
    less_bps, policies, signed,
};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_testkit::protocols::{
    Chain as _,
    aave::HEALTH_FACTOR_ONE,
    actions::{approve, call},
    bindings::NonfungiblePositionManager as Npm,
    ether,
    uniswap_v3::{FEE_LOW, FEE_MEDIUM, deadline},
};
use pace_types::{Call, Policy, Selector};

/// 1 WETH for DAI through SwapRouter, DAI valued by the pool's TWAP alone (no table price).
pub(super) fn v3_swap_priced_by_its_pool(h: &mut Harness) {
    let (a, v3) = (h.a, h.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let quote = v3.quote(&h.node, &pool, a.weth, ether(1)).unwrap();
    let calls = v3.exact_input_single(
        &pool,
        a.weth,
        ether(1),
        less_bps(quote, 50),
        a.account,
        deadline(&h.node).unwrap(),
    );
    let policy = policies::v3(h);
    assert!(policy.prices.iter().all(|p| p.token != a.dai));
    let run = h.run(
        "v3_swap",
        calls,
        &policy,
        &[Watch::Token(a.weth), Watch::Token(a.dai)],
    );
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(run.executed(0), -signed(ether(1)));
    assert_eq!(run.executed(1), signed(quote));
}

/// A Uniswap V3 position of 1 WETH and 1,000 DAI around the pool's tick, minted through the
/// position manager: valued as the position it is, the NFT arriving as simulated.
pub(super) fn v3_lp_mint(h: &mut Harness) {
    let (a, v3) = (h.a, h.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let tick = pool.slot0(&h.node).unwrap().tick;
    let amounts = if pool.token0 == a.weth {
        (ether(1), ether(1_000))
    } else {
        (ether(1_000), ether(1))
    };
    let calls = v3.mint_position(
        &pool,
        pool.range_around(tick, 10),
        amounts,
        a.account,
        deadline(&h.node).unwrap(),
    );
    let watch = [
        Watch::Token(a.weth),
        Watch::Token(a.dai),
        Watch::Token(v3.position_manager),
    ];
    let run = h.run("v3_lp_mint", calls, &policies::v3(h), &watch);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(run.executed(2), signed(U256::from(1u8)), "one position NFT");
    assert!(run.executed(0) < signed(U256::ZERO) && run.executed(1) < signed(U256::ZERO));
}

/// 10 WETH supplied to Aave, 1,000 DAI borrowed against it (health factor well above the
/// policy's 1.2), then 400 DAI repaid: three intents, each executed as simulated.
pub(super) fn aave_supply_borrow_repay(h: &mut Harness) {
    let (a, aave) = (h.a, h.bed.aave.clone());
    let policy = policies::aave(h);
    let (aweth, vdai) = (aave.weth.a_token, aave.dai.variable_debt_token);
    let accruing = [aweth, vdai];

    let supply = aave.supply(a.weth, ether(10), a.account);
    let run = h.run(
        "aave_supply",
        supply,
        &policy,
        &[Watch::Token(a.weth), Watch::Token(aweth)],
    );
    run.assert_executed_as_simulated(&accruing, accrual());
    assert_eq!(run.executed(0), -signed(ether(10)));

    let borrow = vec![aave.borrow(a.dai, ether(1_000), a.account)];
    let watch = [Watch::Token(a.dai), Watch::Token(vdai), Watch::Token(aweth)];
    let run = h.run("aave_borrow", borrow, &policy, &watch);
    run.assert_executed_as_simulated(&accruing, accrual());
    assert_eq!(run.executed(0), signed(ether(1_000)));
    let health = aave.account_data(&h.node, a.account).unwrap().health_factor;
    assert!(health > U256::from(HEALTH_FACTOR_ONE) * U256::from(12u8) / U256::from(10u8));

    let repay = aave.repay(a.dai, ether(400), a.account);
    let run = h.run("aave_repay", repay, &policy, &watch);
    run.assert_executed_as_simulated(&accruing, accrual());
    assert_eq!(run.executed(0), -signed(ether(400)));
    let owed = h.balance(vdai, a.account);
    assert!(owed > ether(600) && owed < ether(601), "{owed}");
}

/// With 10 WETH supplied and entered as collateral (owner's path), 1,000 DAI borrowed from the
/// Compound-style market, then 400 repaid: the borrow balance is a debt, not income.
pub(super) fn compound_borrow_repay(h: &mut Harness) {
    let (a, c) = (h.a, h.bed.compound);
    let mut setup = c.mint(&c.c_weth, ether(10));
    setup.push(c.enter_markets(&[c.c_weth]));
    h.owner(&setup);
    let policy = policies::compound(h);

    let borrow = vec![c.borrow(&c.c_dai, ether(1_000))];
    let watch = [Watch::Token(a.dai), Watch::Token(c.c_weth.c_token)];
    let run = h.run("compound_borrow", borrow, &policy, &watch);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(run.executed(0), signed(ether(1_000)));
    assert!(c.borrow_balance(&h.node, &c.c_dai, a.account).unwrap() >= ether(1_000));

    let repay = c.repay(&c.c_dai, ether(400), ether(400));
    let run = h.run("compound_repay", repay, &policy, &watch);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(run.executed(0), -signed(ether(400)));
    let owed = c.borrow_balance(&h.node, &c.c_dai, a.account).unwrap();
    assert!(owed > ether(600) && owed < ether(601), "{owed}");
}

/// The everyday Universal Router swap: WETH approved to Permit2, the router allowed 1 WETH
/// through Permit2, one V3 exact-input swap paid by the account.
pub(super) fn permit2_swap(h: &mut Harness) {
    let (a, ur, v3) = (h.a, h.bed.universal_router, h.bed.uniswap_v3);
    let quote = v3.quote(&h.node, &v3.weth_dai, a.weth, ether(1)).unwrap();
    let now = h.node.timestamp().unwrap();
    let calls = ur.v3_swap_via_permit2(
        &[(a.weth, FEE_MEDIUM)],
        a.dai,
        ether(1),
        less_bps(quote, 50),
        a.account,
        now + 600,
        deadline(&h.node).unwrap(),
    );
    let watch = [
        Watch::Token(a.weth),
        Watch::Token(a.dai),
        Watch::Permit2(a.weth, ur.router),
    ];
    let run = h.run("permit2_swap", calls, &policies::permit2(h), &watch);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(run.executed(0), -signed(ether(1)));
    assert_eq!(run.executed(1), signed(quote));
}

/// Two hops through the Universal Router and Permit2, WETH to USDC to DAI over the two 0.05 %
/// pools: the inflow comes from a pool the account never paid directly.
pub(super) fn permit2_multi_hop_swap(h: &mut Harness) {
    let (a, ur, v3) = (h.a, h.bed.universal_router, h.bed.uniswap_v3);
    let now = h.node.timestamp().unwrap();
    let calls = ur.v3_swap_via_permit2(
        &[(a.weth, FEE_LOW), (a.usdc, FEE_LOW)],
        a.dai,
        ether(1),
        // About 0.7 % under the route's output (about 997 DAI): within the policy's slippage.
        ether(990),
        a.account,
        now + 600,
        deadline(&h.node).unwrap(),
    );
    let mut policy = policies::permit2(h);
    policy
        .allowed_touched
        .extend([v3.weth_usdc.address, v3.dai_usdc.address]);
    let watch = [
        Watch::Token(a.weth),
        Watch::Token(a.usdc),
        Watch::Token(a.dai),
    ];
    let run = h.run("permit2_multi_hop_swap", calls, &policy, &watch);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(run.executed(0), -signed(ether(1)));
    assert_eq!(run.executed(1), signed(U256::ZERO), "no USDC stays");
    assert!(run.executed(2) > signed(ether(990)));
}

/// With 10 WETH supplied and 5,000 DAI owed on Aave (owner's path), 2 WETH withdrawn: the
/// health factor falls to 1.32, above the policy's 1.2.
pub(super) fn aave_withdraw_within_health(h: &mut Harness) {
    let (a, aave) = (h.a, h.bed.aave.clone());
    let mut setup = aave.supply(a.weth, ether(10), a.account);
    setup.push(aave.borrow(a.dai, ether(5_000), a.account));
    h.owner(&setup);
    let aweth = aave.weth.a_token;
    let calls = vec![aave.withdraw(a.weth, ether(2), a.account)];
    let watch = [Watch::Token(a.weth), Watch::Token(aweth)];
    let run = h.run("aave_withdraw", calls, &policies::aave(h), &watch);
    run.assert_executed_as_simulated(&[aweth], accrual());
    assert_eq!(run.executed(0), signed(ether(2)));
    let health = aave.account_data(&h.node, a.account).unwrap().health_factor;
    let one = U256::from(HEALTH_FACTOR_ONE);
    assert!(
        health > one * U256::from(12u8) / U256::from(10u8),
        "{health}"
    );
}

/// A debt repaid in full (`type(uint256).max`) 100 blocks after it was taken, on Aave and on
/// the Compound-style market, each with an approval of a little more than is owed: the amount
/// paid grows with the interest between the simulated block and the executed one, and both
/// debts end at zero.
pub(super) fn repay_all(h: &mut Harness) {
    let (a, aave, c) = (h.a, h.bed.aave.clone(), h.bed.compound);
    let mut setup = aave.supply(a.weth, ether(10), a.account);
    setup.push(aave.borrow(a.dai, ether(1_000), a.account));
    setup.extend(c.mint(&c.c_weth, ether(10)));
    setup.push(c.enter_markets(&[c.c_weth]));
    setup.push(c.borrow(&c.c_dai, ether(1_000)));
    h.owner(&setup);
    h.node.advance(100).unwrap();
    let vdai = aave.dai.variable_debt_token;

    let mut calls = vec![approve(a.dai, aave.pool, ether(1_001))];
    calls.extend(aave.repay(a.dai, U256::MAX, a.account).into_iter().skip(1));
    let watch = [Watch::Token(a.dai), Watch::Token(vdai)];
    let run = h.run("aave_repay_all", calls, &policies::aave(h), &watch);
    run.assert_executed_as_simulated(&[a.dai, vdai], accrual());
    assert_eq!(h.balance(vdai, a.account), U256::ZERO, "no Aave debt left");

    let calls = c.repay(&c.c_dai, U256::MAX, ether(1_001));
    let run = h.run(
        "compound_repay_all",
        calls,
        &policies::compound(h),
        &[Watch::Token(a.dai)],
    );
    run.assert_executed_as_simulated(&[a.dai], accrual());
    let owed = c.borrow_balance(&h.node, &c.c_dai, a.account).unwrap();
    assert_eq!(owed, U256::ZERO, "no Compound-style debt left");
}

/// A V3 position of 1 WETH and 1,000 DAI around the WETH/DAI pool's tick, minted through the
/// owner's path, and the calls that withdraw it: `decreaseLiquidity` of all its liquidity and
/// `collect` of everything owed to `recipient`; with the V3 policy allowing both.
pub(super) fn position_withdrawal(h: &mut Harness, recipient: Address) -> (Vec<Call>, Policy) {
    let (a, v3) = (h.a, h.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let tick = pool.slot0(&h.node).unwrap().tick;
    let amounts = if pool.token0 == a.weth {
        (ether(1), ether(1_000))
    } else {
        (ether(1_000), ether(1))
    };
    let d = deadline(&h.node).unwrap();
    h.owner(&v3.mint_position(&pool, pool.range_around(tick, 10), amounts, a.account, d));
    let npm = v3.position_manager;
    let id = h
        .node
        .view_sol(
            npm,
            &Npm::tokenOfOwnerByIndexCall {
                owner: a.account,
                index: U256::ZERO,
            },
        )
        .unwrap();
    let liquidity = h
        .node
        .view_sol(npm, &Npm::positionsCall { tokenId: id })
        .unwrap()
        .liquidity;
    let calls = vec![
        call(
            npm,
            &Npm::decreaseLiquidityCall {
                params: Npm::DecreaseLiquidityParams {
                    tokenId: id,
                    liquidity,
                    amount0Min: U256::ZERO,
                    amount1Min: U256::ZERO,
                    deadline: d,
                },
            },
        ),
        call(
            npm,
            &Npm::collectCall {
                params: Npm::CollectParams {
                    tokenId: id,
                    recipient,
                    amount0Max: u128::MAX,
                    amount1Max: u128::MAX,
                },
            },
        ),
    ];
    let mut policy = policies::v3(h);
    policy.allowed_selectors.extend(
        [
            Npm::decreaseLiquidityCall::SELECTOR,
            Npm::collectCall::SELECTOR,
        ]
        .map(Selector::from),
    );
    (calls, policy)
}

/// The position of [`position_withdrawal`] withdrawn to the account: its value comes back as
/// its two tokens.
pub(super) fn v3_lp_withdraw(h: &mut Harness) {
    let a = h.a;
    let (calls, policy) = position_withdrawal(h, a.account);
    let npm = h.bed.uniswap_v3.position_manager;
    let watch = [Watch::Token(a.weth), Watch::Token(a.dai), Watch::Token(npm)];
    let run = h.run("v3_lp_withdraw", calls, &policy, &watch);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert!(run.executed(0) > signed(U256::ZERO) && run.executed(1) > signed(U256::ZERO));
}
