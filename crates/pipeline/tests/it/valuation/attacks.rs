//! The attacks the protocols' own bytecode made possible, refused: a loss masked by a debt
//! (Aave V3 with its debt token priced at nothing in the table, a Compound-style borrow), a
//! stale feed pricing a bad trade, a flat price on a V3 position NFT hiding a bad trade, and a
//! stranger receiving a V3 swap's output. Each refusal is checked against what the same calls
//! do through the owner's raw path (`executeBatch`, no PDR): the account really loses more than
//! the policy's bound, valued at the world's prices (WETH at par, DAI and USDC at 1,000 per
//! ether, debts at their face value), or a stranger really gains.

use super::support::{aave_policy, compound_policy, less_bps, v3_policy};
use crate::protocols_bed::{Bed, bed, codes};
use alloy_primitives::{Address, I256, U256};
use alloy_sol_types::SolConstructor;
use pace_pipeline::Evaluation;
use pace_testkit::protocols::{
    actions::call,
    bindings::{MockAggregatorV3, SwapRouter},
    ether,
    uniswap_v3::deadline,
};
use pace_types::{Call, OraclePrice, Policy, TablePrice, ViolationCode as Code};

/// The account's holdings at the world's prices, in wei: ether, WETH, DAI and USDC (1,000 per
/// ether), less its Aave and Compound-style DAI debts.
fn worth(b: &Bed) -> I256 {
    let a = b.a();
    let s = |v: U256| I256::try_from(v).expect("fits");
    let c = b.bed.compound;
    let dai_debt = b.balance(b.bed.aave.dai.variable_debt_token, a.account)
        + c.borrow_balance_current(&b.world.evm, &c.c_dai, a.account)
            .unwrap();
    s(b.world.evm.balance(a.account).unwrap())
        + s(b.balance(a.weth, a.account))
        + s(b.balance(a.dai, a.account) / U256::from(1_000u64))
        + s(b.balance(a.usdc, a.account) * U256::from(1_000_000_000u64))
        - s(dai_debt / U256::from(1_000u64))
}

/// What `calls` cost the account through the owner's path, in bps of `notional` wei (positive:
/// a loss).
fn owner_loss_bps(b: &mut Bed, calls: &[Call], notional: U256) -> i64 {
    let before = worth(b);
    b.owner(calls);
    let lost = before - worth(b);
    let bps = lost * I256::try_from(10_000).unwrap() / I256::try_from(notional).unwrap();
    i64::try_from(bps).unwrap()
}

/// A V3 swap of `amount` DAI for WETH through the WETH/DAI pool, with no minimum.
fn dump_dai(b: &Bed, amount: U256) -> Vec<Call> {
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    v3.exact_input_single(
        &v3.weth_dai,
        a.dai,
        amount,
        U256::ZERO,
        a.account,
        deadline(&b.world.evm).unwrap(),
    )
}

/// The codes of `evaluation` beside the dump's own: a swap at no minimum is refused for its
/// slippage, and for its impact and the loss it measures (the swap checks), whatever the
/// valuation under test says; those are taken out, once each is seen to be there.
fn beside_the_dump(evaluation: &Evaluation) -> Vec<Code> {
    let all = codes(evaluation);
    assert!(all.contains(&Code::SlippageExceeded), "{all:?}");
    let mut rest: Vec<Code> = all
        .into_iter()
        .filter(|c| !matches!(c, Code::SlippageExceeded | Code::PriceImpactExceeded))
        .collect();
    rest.dedup();
    rest
}

/// `base` with the V3 policy's targets, selectors, pools and prices added.
fn with_v3(b: &Bed, mut base: Policy) -> Policy {
    let v3 = v3_policy(b);
    for t in v3.allowed_targets {
        if !base.allowed_targets.contains(&t) {
            base.allowed_targets.push(t);
        }
    }
    base.allowed_selectors.extend(v3.allowed_selectors);
    base.allowed_touched.extend(v3.allowed_touched);
    base.price_v3_pools = v3.price_v3_pools;
    base
}

#[test]
fn an_aave_borrow_dumped_in_the_same_batch_is_a_loss_whatever_the_table_says_of_the_debt() {
    let mut b = bed();
    let (a, aave) = (b.a(), b.bed.aave.clone());
    b.owner(&aave.supply(a.weth, ether(60), a.account));
    let borrowed = ether(40_000);
    let mut policy = with_v3(&b, aave_policy(&b));
    // The old way to let a borrow through: price the debt token at nothing.
    policy.prices.push(TablePrice {
        token: aave.dai.variable_debt_token,
        amount: U256::from(1u8),
        value: U256::ZERO,
    });
    let mut calls = vec![aave.borrow(a.dai, borrowed, a.account)];
    calls.extend(dump_dai(&b, borrowed));
    let evaluation = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert_eq!(
        beside_the_dump(&evaluation),
        [Code::LossExceeded],
        "{:?}",
        evaluation.decision.violations
    );
    // Through the owner's path: the debt is 40 ether's worth, the WETH bought much less.
    let lost = owner_loss_bps(&mut b, &calls, ether(40));
    assert!(lost > 100, "the owner's run lost {lost} bps");
}

#[test]
fn a_compound_borrow_dumped_in_the_same_batch_is_a_loss() {
    let mut b = bed();
    let c = b.bed.compound;
    let mut setup = c.mint(&c.c_weth, ether(80));
    setup.push(c.enter_markets(&[c.c_weth]));
    b.owner(&setup);
    let borrowed = ether(40_000);
    let policy = with_v3(&b, compound_policy(&b));
    let mut calls = vec![c.borrow(&c.c_dai, borrowed)];
    calls.extend(dump_dai(&b, borrowed));
    let evaluation = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert_eq!(
        beside_the_dump(&evaluation),
        [Code::LossExceeded],
        "{:?}",
        evaluation.decision.violations
    );
    let lost = owner_loss_bps(&mut b, &calls, ether(40));
    assert!(lost > 100, "the owner's run lost {lost} bps");
}

/// Deploys a DAI / ETH feed (18 decimals, answering wei per DAI) from the bed's deployer.
fn dai_eth_feed(b: &mut Bed, wei_per_dai: u64) -> Address {
    let ctor = MockAggregatorV3::constructorCall {
        decimals_: 18,
        description_: "DAI / ETH".into(),
        initialAnswer: I256::try_from(wei_per_dai).unwrap(),
    };
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("MockAggregatorV3")
        .unwrap()
        .deploy_code(&ctor.abi_encode());
    b.world
        .evm
        .deploy(b.bed.deployer, code)
        .expect("the feed deploys")
}

#[test]
fn a_stale_feed_cannot_price_a_bad_trade() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    // A month ago DAI was worth 1.5 milliether; today the pools say 1.
    let feed = dai_eth_feed(&mut b, 1_500_000_000_000_000);
    let now = b.world.evm.timestamp();
    let month = 30 * 86_400;
    let stale = MockAggregatorV3::setRoundDataCall {
        roundId: alloy_primitives::Uint::from(2u8),
        answer: I256::try_from(1_500_000_000_000_000u64).unwrap(),
        startedAt: U256::from(now - month),
        updatedAt: U256::from(now - month),
        answeredInRound: alloy_primitives::Uint::from(2u8),
    };
    b.send(b.bed.deployer, feed, &stale);
    let mut policy = v3_policy(&b);
    policy.price_v3_pools.clear();
    policy.price_oracles.push(OraclePrice {
        oracle: feed,
        token: a.dai,
        quote: Address::ZERO,
        scale: U256::ZERO,
        max_age_secs: None,
    });
    // 90 WETH into a pool of 1,000: the account gets about 915 DAI per WETH, 8.5 % below the
    // market; at the stale price that is a gain of a third.
    let calls = v3.exact_input_single(
        &v3.weth_dai,
        a.weth,
        ether(90),
        U256::ZERO,
        a.account,
        deadline(&b.world.evm).unwrap(),
    );
    let evaluation = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    // (The swap's own measure of its loss refuses it too.)
    assert!(
        beside_the_dump(&evaluation).contains(&Code::FeedStale),
        "{:?}",
        evaluation.decision.violations
    );
    // Once the feed answers the market's price, the same trade is refused on its merit.
    let fresh = MockAggregatorV3::updateAnswerCall {
        answer: I256::try_from(1_000_000_000_000_000u64).unwrap(),
    };
    b.send(b.bed.deployer, feed, &fresh);
    let evaluation = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert_eq!(
        beside_the_dump(&evaluation),
        [Code::LossExceeded],
        "{:?}",
        evaluation.decision.violations
    );
    let lost = owner_loss_bps(&mut b, &calls, ether(90));
    assert!(lost > 500, "the owner's run lost {lost} bps");
}

#[test]
fn a_flat_price_on_a_v3_position_cannot_hide_a_bad_trade_beside_it() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let tick = pool.slot0(&b.world.evm).unwrap().tick;
    let amounts = if pool.token0 == a.weth {
        (ether(1), ether(1_000))
    } else {
        (ether(1_000), ether(1))
    };
    let deadline = deadline(&b.world.evm).unwrap();
    let mut calls = v3.mint_position(
        &pool,
        pool.range_around(tick, 10),
        amounts,
        a.account,
        deadline,
    );
    calls.extend(dump_dai(&b, ether(60_000)));
    let mut policy = v3_policy(&b);
    // A position NFT said to be worth 20 ether, whatever it holds.
    policy.prices.push(TablePrice {
        token: v3.position_manager,
        amount: U256::from(1u8),
        value: ether(20),
    });
    policy.spend_caps[1].amount = ether(100_000);
    let evaluation = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert_eq!(
        beside_the_dump(&evaluation),
        [Code::LossExceeded],
        "{:?}",
        evaluation.decision.violations
    );
    let lost = owner_loss_bps(&mut b, &calls, ether(62));
    assert!(lost > 100, "the owner's run lost {lost} bps");
}

#[test]
fn a_v3_swap_paying_a_stranger_is_refused() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let quote = v3.quote(&b.world.evm, &pool, a.weth, ether(1)).unwrap();
    let params = SwapRouter::ExactInputSingleParams {
        tokenIn: a.weth,
        tokenOut: a.dai,
        fee: alloy_primitives::aliases::U24::from(pool.fee),
        recipient: a.attacker,
        deadline: deadline(&b.world.evm).unwrap(),
        amountIn: ether(1),
        amountOutMinimum: less_bps(quote, 50),
        sqrtPriceLimitX96: alloy_primitives::aliases::U160::ZERO,
    };
    let calls = vec![
        pace_testkit::protocols::actions::approve(a.weth, v3.swap_router, ether(1)),
        call(v3.swap_router, &SwapRouter::exactInputSingleCall { params }),
    ];
    let evaluation = b.evaluate_claimed(b.intent(calls.clone()), &v3_policy(&b));
    assert!(
        codes(&evaluation).contains(&Code::RecipientNotAllowed),
        "{:?}",
        evaluation.decision.violations
    );
    let stolen = b.balance(a.dai, a.attacker);
    let lost = owner_loss_bps(&mut b, &calls, ether(1));
    assert_eq!(b.balance(a.dai, a.attacker) - stolen, quote);
    assert!(lost > 9_900, "the owner's run lost {lost} bps");
}
