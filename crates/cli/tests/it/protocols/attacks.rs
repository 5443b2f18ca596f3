//! The attacks on value and health: each refused by `pace run --rpc` with nothing broadcast
//! and the account's balances and allowances unchanged on the node, then executed through the
//! owner's raw path to show the loss it would have been.

use super::{
    harness::{Harness, Watch},
    less_bps, policies, signed,
};
use alloy_primitives::{
    Address, I256, U256,
    aliases::{U24, U160},
};
use alloy_sol_types::{SolConstructor, sol};
use pace_contracts::bindings::IERC20;
use pace_testkit::protocols::{
    Chain as _,
    aave::HEALTH_FACTOR_ONE,
    actions::{approve, call, fund_token},
    bindings::{MockAggregatorV3, SwapRouter},
    ether,
    feeds::{Round, usd},
    uniswap_v3::deadline,
};
use pace_types::{Call, OraclePrice, TablePrice, ViolationCode as Code};

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

/// The account's holdings at the world's prices, in wei: ether, WETH and its Aave deposit,
/// DAI and USDC (1,000 per ether), less its Aave and Compound-style DAI debts.
fn worth(h: &Harness) -> I256 {
    let (a, c) = (h.a, h.bed.compound);
    let aave = &h.bed.aave;
    let of = |token| h.balance(token, a.account);
    let dai_debt = of(aave.dai.variable_debt_token)
        + c.borrow_balance_current(&h.node, &c.c_dai, a.account)
            .unwrap();
    signed(h.ether(a.account))
        + signed(of(a.weth))
        + signed(of(aave.weth.a_token))
        + signed(of(a.dai) / U256::from(1_000u64))
        + signed(of(a.usdc) * U256::from(1_000_000_000u64))
        - signed(dai_debt / U256::from(1_000u64))
}

/// What `calls` cost the account through the owner's path, in bps of `notional` wei
/// (positive: a loss).
fn owner_loss_bps(h: &mut Harness, calls: &[Call], notional: U256) -> i64 {
    let before = worth(h);
    h.owner(calls);
    let lost = before - worth(h);
    let bps = lost * I256::try_from(10_000).unwrap() / signed(notional);
    i64::try_from(bps).unwrap()
}

/// A V3 swap of `amount` DAI for WETH through the WETH/DAI pool, with no minimum.
fn dump_dai(h: &Harness, amount: U256) -> Vec<Call> {
    let (a, v3) = (h.a, h.bed.uniswap_v3);
    v3.exact_input_single(
        &v3.weth_dai,
        a.dai,
        amount,
        U256::ZERO,
        a.account,
        deadline(&h.node).unwrap(),
    )
}

/// 40,000 DAI borrowed against 60 WETH on Aave and dumped into the V3 pool in the same batch,
/// under a policy that prices the debt token at nothing (the old way to let a borrow through):
/// the debt still counts against the account, and the batch loses far more than 1 %.
pub(super) fn aave_debt_masked_borrow(h: &mut Harness) {
    let (a, aave) = (h.a, h.bed.aave.clone());
    h.owner(&aave.supply(a.weth, ether(60), a.account));
    let borrowed = ether(40_000);
    let vdai = aave.dai.variable_debt_token;
    let mut policy = policies::with_v3(h, policies::aave(h));
    policy.prices.push(TablePrice {
        token: vdai,
        amount: U256::from(1u8),
        value: U256::ZERO,
    });
    let mut calls = vec![aave.borrow(a.dai, borrowed, a.account)];
    calls.extend(dump_dai(h, borrowed));
    let watch = [
        Watch::Ether,
        Watch::Token(a.weth),
        Watch::Token(a.dai),
        Watch::Token(vdai),
        Watch::Token(aave.weth.a_token),
        Watch::Allowance(a.dai, h.bed.uniswap_v3.swap_router),
    ];
    let run = h.run("debt_masked_borrow", calls.clone(), &policy, &watch);
    run.assert_refused(Code::LossExceeded);
    assert_eq!(run.codes_beside_the_dump(), [Code::LossExceeded]);
    let lost = owner_loss_bps(h, &calls, ether(40));
    assert!(lost > 100, "the owner's run lost {lost} bps");
}

/// 40,000 DAI borrowed from the Compound-style market against 80 WETH and dumped in the same
/// batch: the borrow balance is a debt, so the DAI received is no income masking the loss.
pub(super) fn compound_debt_masked_borrow(h: &mut Harness) {
    let (a, c) = (h.a, h.bed.compound);
    let mut setup = c.mint(&c.c_weth, ether(80));
    setup.push(c.enter_markets(&[c.c_weth]));
    h.owner(&setup);
    let borrowed = ether(40_000);
    let policy = policies::with_v3(h, policies::compound(h));
    let mut calls = vec![c.borrow(&c.c_dai, borrowed)];
    calls.extend(dump_dai(h, borrowed));
    let watch = [
        Watch::Ether,
        Watch::Token(a.weth),
        Watch::Token(a.dai),
        Watch::Token(c.c_weth.c_token),
        Watch::Allowance(a.dai, h.bed.uniswap_v3.swap_router),
    ];
    let owed = c.borrow_balance(&h.node, &c.c_dai, a.account).unwrap();
    let run = h.run(
        "compound_debt_masked_borrow",
        calls.clone(),
        &policy,
        &watch,
    );
    run.assert_refused(Code::LossExceeded);
    assert_eq!(run.codes_beside_the_dump(), [Code::LossExceeded]);
    assert_eq!(
        c.borrow_balance(&h.node, &c.c_dai, a.account).unwrap(),
        owed
    );
    let lost = owner_loss_bps(h, &calls, ether(40));
    assert!(lost > 100, "the owner's run lost {lost} bps");
}

/// A DAI / ETH feed last updated a month ago, when DAI was worth 1.5 milliether, prices a swap
/// of 90 WETH into the 1,000-WETH pool: at the stale price a gain of a third, at the market's
/// a loss of 8.5 %. Refreshed, the feed refuses the same trade on its merit and prices an
/// honest one that executes.
pub(super) fn stale_feed(h: &mut Harness) {
    let (a, v3, bed) = (h.a, h.bed.uniswap_v3, h.bed.clone());
    let stale_answer = I256::try_from(1_500_000_000_000_000u64).unwrap();
    let ctor = MockAggregatorV3::constructorCall {
        decimals_: 18,
        description_: "DAI / ETH".into(),
        initialAnswer: stale_answer,
    };
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("MockAggregatorV3")
        .unwrap()
        .deploy_code(&ctor.abi_encode());
    let feed = h.node.deploy(bed.deployer, code).unwrap();
    let month_ago = h.node.timestamp().unwrap() - 30 * 86_400;
    let round = Round {
        round_id: 2,
        answer: stale_answer,
        started_at: month_ago,
        updated_at: month_ago,
        answered_in_round: 2,
    };
    bed.feeds.set_round(&mut h.node, feed, round).unwrap();
    let mut policy = policies::v3(h);
    policy.price_v3_pools.clear();
    policy.price_oracles.push(OraclePrice {
        oracle: feed,
        token: a.dai,
        quote: Address::ZERO,
        scale: U256::ZERO,
        max_age_secs: None,
    });
    let calls = v3.exact_input_single(
        &v3.weth_dai,
        a.weth,
        ether(90),
        U256::ZERO,
        a.account,
        deadline(&h.node).unwrap(),
    );
    let watch = [
        Watch::Ether,
        Watch::Token(a.weth),
        Watch::Token(a.dai),
        Watch::Allowance(a.weth, v3.swap_router),
    ];
    let run = h.run("stale_feed", calls.clone(), &policy, &watch);
    run.assert_refused(Code::FeedStale);
    // (The swap's own measure of its loss refuses it too.)
    assert!(run.codes_beside_the_dump().contains(&Code::FeedStale));

    // Once the feed answers the market's price (a milliether), the same trade is refused on
    // its merit, and a trade of 1 WETH priced by the fresh feed executes.
    let fresh = MockAggregatorV3::updateAnswerCall {
        answer: I256::try_from(1_000_000_000_000_000u64).unwrap(),
    };
    h.node.send_sol(bed.deployer, feed, &fresh).unwrap();
    let run = h.run("fresh_feed_bad_trade", calls.clone(), &policy, &watch);
    run.assert_refused(Code::LossExceeded);
    assert_eq!(run.codes_beside_the_dump(), [Code::LossExceeded]);
    let quote = v3.quote(&h.node, &v3.weth_dai, a.weth, ether(1)).unwrap();
    let small = v3.exact_input_single(
        &v3.weth_dai,
        a.weth,
        ether(1),
        less_bps(quote, 50),
        a.account,
        deadline(&h.node).unwrap(),
    );
    let run = h.run("fresh_feed_trade", small, &policy, &watch[1..3]);
    run.assert_executed_as_simulated(&[], U256::ZERO);
    assert_eq!(run.executed(1), signed(quote));

    let lost = owner_loss_bps(h, &calls, ether(90));
    assert!(lost > 500, "the owner's run lost {lost} bps");
}

/// 7,000 DAI borrowed against 10 WETH on Aave leaves a health factor of 1.18: the pool allows
/// it, the policy's 1.2 does not. Through the owner's path, a fall of ether to $800 makes the
/// position liquidatable and a liquidator takes collateral at a bonus.
pub(super) fn health_factor_below_the_minimum(h: &mut Harness) {
    let (a, aave, feeds) = (h.a, h.bed.aave.clone(), h.bed.feeds);
    h.owner(&aave.supply(a.weth, ether(10), a.account));
    let calls = vec![aave.borrow(a.dai, ether(7_000), a.account)];
    let watch = [
        Watch::Ether,
        Watch::Token(a.dai),
        Watch::Token(aave.dai.variable_debt_token),
        Watch::Token(aave.weth.a_token),
    ];
    let run = h.run(
        "health_below_minimum",
        calls.clone(),
        &policies::aave(h),
        &watch,
    );
    run.assert_refused(Code::HealthFactorTooLow);

    h.owner(&calls);
    let health = |h: &Harness| aave.account_data(&h.node, a.account).unwrap().health_factor;
    assert!(health(h) > U256::from(HEALTH_FACTOR_ONE));
    feeds.update(&mut h.node, feeds.eth_usd, usd(800)).unwrap();
    assert!(health(h) < U256::from(HEALTH_FACTOR_ONE));
    let liquidator = a.trader;
    fund_token(&mut h.node, &a, a.dai, liquidator, ether(3_500)).unwrap();
    let approve = IERC20::approveCall {
        spender: aave.pool,
        value: ether(3_500),
    };
    h.node.send_sol(liquidator, a.dai, &approve).unwrap();
    let seized = h.balance(a.weth, liquidator);
    let liquidate = IAaveLiquidation::liquidationCallCall {
        collateralAsset: a.weth,
        debtAsset: a.dai,
        user: a.account,
        debtToCover: ether(3_500),
        receiveAToken: false,
    };
    h.node.send_sol(liquidator, aave.pool, &liquidate).unwrap();
    // 3,500 DAI of debt buys 3,500 × 1.05 / 800 ≈ 4.59 WETH of the account's collateral.
    let taken = h.balance(a.weth, liquidator) - seized;
    assert!(taken > ether(4) && taken < ether(5), "{taken}");
}

/// A V3 swap of 1 WETH whose output goes to the world's attacker.
pub(super) fn v3_swap_paying_a_stranger(h: &mut Harness) {
    let (a, v3) = (h.a, h.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let quote = v3.quote(&h.node, &pool, a.weth, ether(1)).unwrap();
    let params = SwapRouter::ExactInputSingleParams {
        tokenIn: a.weth,
        tokenOut: a.dai,
        fee: U24::from(pool.fee),
        recipient: a.attacker,
        deadline: deadline(&h.node).unwrap(),
        amountIn: ether(1),
        amountOutMinimum: less_bps(quote, 50),
        sqrtPriceLimitX96: U160::ZERO,
    };
    let calls = vec![
        approve(a.weth, v3.swap_router, ether(1)),
        call(v3.swap_router, &SwapRouter::exactInputSingleCall { params }),
    ];
    let watch = [
        Watch::Ether,
        Watch::Token(a.weth),
        Watch::Token(a.dai),
        Watch::Allowance(a.weth, v3.swap_router),
        Watch::Held(a.dai, a.attacker),
    ];
    let run = h.run("v3_to_stranger", calls.clone(), &policies::v3(h), &watch);
    run.assert_refused(Code::RecipientNotAllowed);

    let stolen = h.balance(a.dai, a.attacker);
    let lost = owner_loss_bps(h, &calls, ether(1));
    assert_eq!(h.balance(a.dai, a.attacker) - stolen, quote);
    assert!(lost > 9_900, "the owner's run lost {lost} bps");
}

/// The account's V3 position withdrawn with everything collected to the world's attacker: the
/// position NFT stays with the account, empty. Through the owner's path the attacker receives
/// the position's 1 WETH and 1,000 DAI.
pub(super) fn v3_position_collected_to_a_stranger(h: &mut Harness) {
    let a = h.a;
    let (calls, policy) = super::honest::position_withdrawal(h, a.attacker);
    let watch = [
        Watch::Ether,
        Watch::Token(a.weth),
        Watch::Token(a.dai),
        Watch::Token(h.bed.uniswap_v3.position_manager),
        Watch::Held(a.weth, a.attacker),
        Watch::Held(a.dai, a.attacker),
    ];
    let run = h.run("v3_collect_to_stranger", calls.clone(), &policy, &watch);
    run.assert_refused(Code::RecipientNotAllowed);

    let (weth, dai) = (h.balance(a.weth, a.attacker), h.balance(a.dai, a.attacker));
    h.owner(&calls);
    let taken = |token, was| h.balance(token, a.attacker) - was;
    assert!(
        taken(a.weth, weth) > ether(1) / U256::from(2u8),
        "WETH taken"
    );
    assert!(taken(a.dai, dai) > ether(500), "DAI taken");
}

/// 6,500 DAI borrowed from the Compound-style market against 10 WETH ($7,500 of collateral at
/// a 75 % factor) leaves (liquidity + debt) / debt = 1.15, under the policy's 1.2. Through the
/// owner's path, a fall of ether to $860 leaves a shortfall.
pub(super) fn compound_health_factor_below_the_minimum(h: &mut Harness) {
    let (a, c, feeds) = (h.a, h.bed.compound, h.bed.feeds);
    let mut setup = vec![c.enter_markets(&[c.c_weth])];
    setup.extend(c.mint(&c.c_weth, ether(10)));
    h.owner(&setup);
    let calls = vec![c.borrow(&c.c_dai, ether(6_500))];
    let watch = [
        Watch::Ether,
        Watch::Token(a.dai),
        Watch::Token(c.c_weth.c_token),
    ];
    let run = h.run(
        "compound_health_below_minimum",
        calls.clone(),
        &policies::compound(h),
        &watch,
    );
    run.assert_refused(Code::HealthFactorTooLow);
    assert_eq!(
        c.borrow_balance(&h.node, &c.c_dai, a.account).unwrap(),
        U256::ZERO
    );

    h.owner(&calls);
    assert_eq!(
        c.liquidity(&h.node, a.account).unwrap().shortfall,
        U256::ZERO
    );
    feeds.update(&mut h.node, feeds.eth_usd, usd(860)).unwrap();
    let l = c.liquidity(&h.node, a.account).unwrap();
    assert_eq!(l.error, U256::ZERO);
    assert!(l.shortfall > U256::ZERO, "{l:?}");
}
