//! Uniswap V3 priced by V3 pools: a swap and an LP mint approved, executed through the
//! pipeline, and read back equal to their simulation.

use super::support::{less_bps, reads_back, v3_policy};
use crate::protocols_bed::{bed, codes};
use alloy_primitives::{
    U256,
    aliases::{U24, U160},
};
use alloy_sol_types::SolCall;
use pace_abi::bindings::IV3SwapRouter;
use pace_testkit::protocols::{
    actions::{approve, call},
    ether,
    uniswap_v3::deadline,
};
use pace_types::{Call, ViolationCode as Code};

#[test]
fn a_v3_swap_priced_by_its_pool_executes_as_simulated() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let quote = v3.quote(&b.world.evm, &pool, a.weth, ether(1)).unwrap();
    let calls = v3.exact_input_single(
        &pool,
        a.weth,
        ether(1),
        less_bps(quote, 50),
        a.account,
        deadline(&b.world.evm).unwrap(),
    );
    let policy = v3_policy(&b);
    let evaluation = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(evaluation.decision.approved(), "{:?}", codes(&evaluation));
    // DAI has no table price: the V3 pool's TWAP valued it.
    assert!(policy.prices.iter().all(|p| p.token != a.dai));
    let result = b.submit(&evaluation, &[a.weth, a.dai]);
    reads_back(&evaluation, &result, &[a.weth, a.dai], U256::ZERO);
}

#[test]
fn a_v3_lp_mint_is_valued_as_the_position_it_is() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let tick = pool.slot0(&b.world.evm).unwrap().tick;
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
        deadline(&b.world.evm).unwrap(),
    );
    let policy = v3_policy(&b);
    let evaluation = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(
        evaluation.decision.approved(),
        "{:?}",
        evaluation.decision.violations
    );
    let positions = &evaluation.report.protocols.v3_positions;
    assert_eq!(positions.len(), 1, "{positions:?}");
    assert!(positions[0].before.is_none() && positions[0].after.is_some());
    let result = b.submit(&evaluation, &[a.weth, a.dai, v3.position_manager]);
    reads_back(
        &evaluation,
        &result,
        &[a.weth, a.dai, v3.position_manager],
        U256::ZERO,
    );
}

/// A position's uncollected fees are part of its value: after swaps through the pool earn the
/// account's position fees, the adapter's reading of what is owed equals what `collect` pays
/// when executed, and collecting them is an exchange the verifier approves.
#[test]
fn a_v3_positions_uncollected_fees_are_what_collect_pays() {
    use pace_testkit::protocols::bindings::NonfungiblePositionManager as Npm;
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let tick = pool.slot0(&b.world.evm).unwrap().tick;
    let amounts = if pool.token0 == a.weth {
        (ether(1), ether(1_000))
    } else {
        (ether(1_000), ether(1))
    };
    let d = deadline(&b.world.evm).unwrap();
    b.owner(&v3.mint_position(&pool, pool.range_around(tick, 10), amounts, a.account, d));
    let npm = v3.position_manager;
    let id = b
        .world
        .evm
        .view_sol(
            npm,
            &Npm::tokenOfOwnerByIndexCall {
                owner: a.account,
                index: U256::ZERO,
            },
        )
        .unwrap();
    // Trades through the pool, both ways, earn the position fees.
    for (token, amount) in [(a.weth, ether(1)), (a.dai, ether(1_000))] {
        let d = deadline(&b.world.evm).unwrap();
        b.owner(&v3.exact_input_single(&pool, token, amount, U256::ZERO, a.account, d));
    }
    let collect = pace_types::Call {
        target: npm,
        value: U256::ZERO,
        data: alloy_sol_types::SolCall::abi_encode(&Npm::collectCall {
            params: Npm::CollectParams {
                tokenId: id,
                recipient: a.account,
                amount0Max: u128::MAX,
                amount1Max: u128::MAX,
            },
        })
        .into(),
    };
    let mut policy = v3_policy(&b);
    policy
        .allowed_selectors
        .push(<Npm::collectCall as alloy_sol_types::SolCall>::SELECTOR.into());
    let evaluation = b.evaluate_claimed(b.intent(vec![collect]), &policy);
    assert!(
        evaluation.decision.approved(),
        "{:?}",
        evaluation.decision.violations
    );
    let position = evaluation
        .report
        .protocols
        .v3_positions
        .iter()
        .find(|p| p.id == id)
        .expect("the position is read");
    let owed = position.before.as_ref().expect("read before");
    assert!(!owed.owed0.is_zero() && !owed.owed1.is_zero(), "{owed:?}");
    let result = b.submit(&evaluation, &[pool.token0, pool.token1]);
    let pace_pipeline::ExecutionResult::Executed {
        balance_changes, ..
    } = result
    else {
        panic!("collect did not execute: {result:?}");
    };
    let got = |token| {
        balance_changes
            .iter()
            .find(|c| c.token == token)
            .map_or(U256::ZERO, |c| c.delta.into_raw())
    };
    assert_eq!(
        (got(pool.token0), got(pool.token1)),
        (owed.owed0, owed.owed1)
    );
}

/// SwapRouter's swaps are decoded: the report measures the trade on its pool (the output the
/// quoter promised, the mid price before it, the impact on `slot0`), and the calldata's bound
/// against it is the slippage judged. Executed, it reads back as simulated.
#[test]
fn a_v3_swap_is_measured_on_its_pool_and_its_bound_judged() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let quote = v3.quote(&b.world.evm, &pool, a.weth, ether(1)).unwrap();
    let d = deadline(&b.world.evm).unwrap();
    let policy = every_swap_policy(&b);
    let calls = v3.exact_input_single(&pool, a.weth, ether(1), less_bps(quote, 50), a.account, d);
    let evaluation = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(evaluation.decision.approved(), "{:?}", codes(&evaluation));
    let facts = evaluation.report.swap.expect("the swap is measured");
    assert_eq!(
        (facts.pool, facts.token_in, facts.token_out),
        (pool.address, a.weth, a.dai)
    );
    assert_eq!((facts.amount_in, facts.amount_out), (ether(1), quote));
    assert_eq!(facts.min_out, less_bps(quote, 50));
    assert!((49..=50).contains(&facts.slippage_bps), "{facts:?}");
    // The mid price before the trade pays more than the trade did (the pool's fee and the
    // trade's own impact), and the impact is the move of `slot0`.
    assert!(facts.quoted_out > facts.amount_out, "{facts:?}");
    assert!((1..=100).contains(&facts.price_impact_bps), "{facts:?}");

    // Exact output, bounded by the input it may take: approved, executed as simulated.
    let exact_out = IV3SwapRouter::exactOutputSingleCall {
        params: IV3SwapRouter::ExactOutputSingleParams {
            tokenIn: a.weth,
            tokenOut: a.dai,
            fee: U24::from(pool.fee),
            recipient: a.account,
            deadline: d,
            amountOut: less_bps(quote, 50),
            amountInMaximum: ether(1),
            sqrtPriceLimitX96: U160::ZERO,
        },
    };
    let calls = vec![
        approve(a.weth, v3.swap_router, ether(1)),
        call(v3.swap_router, &exact_out),
    ];
    let evaluation = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(evaluation.decision.approved(), "{:?}", codes(&evaluation));
    let facts = evaluation
        .report
        .swap
        .clone()
        .expect("the swap is measured");
    assert_eq!(facts.amount_out, less_bps(quote, 50));
    assert!(facts.amount_in < ether(1), "{facts:?}");
    let result = b.submit(&evaluation, &[a.weth, a.dai]);
    reads_back(&evaluation, &result, &[a.weth, a.dai], U256::ZERO);
}

/// A SwapRouter swap whose calldata leaves the output unbounded is refused, in each of the
/// router's four shapes: no minimum out, or an input maximum far above what the trade takes.
#[test]
fn a_v3_swap_left_unbounded_is_refused_in_every_shape() {
    let b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let d = deadline(&b.world.evm).unwrap();
    let fee = U24::from(pool.fee);
    let mut path = a.weth.to_vec();
    path.extend_from_slice(&fee.to_be_bytes::<3>());
    path.extend_from_slice(a.dai.as_slice());
    let reversed: Vec<u8> = [a.dai.as_slice(), &fee.to_be_bytes::<3>(), a.weth.as_slice()].concat();
    let shapes: Vec<(&str, Vec<u8>)> = vec![
        (
            "exactInputSingle",
            IV3SwapRouter::exactInputSingleCall {
                params: IV3SwapRouter::ExactInputSingleParams {
                    tokenIn: a.weth,
                    tokenOut: a.dai,
                    fee,
                    recipient: a.account,
                    deadline: d,
                    amountIn: ether(1),
                    amountOutMinimum: U256::ZERO,
                    sqrtPriceLimitX96: U160::ZERO,
                },
            }
            .abi_encode(),
        ),
        (
            "exactInput",
            IV3SwapRouter::exactInputCall {
                params: IV3SwapRouter::ExactInputParams {
                    path: path.into(),
                    recipient: a.account,
                    deadline: d,
                    amountIn: ether(1),
                    amountOutMinimum: U256::ZERO,
                },
            }
            .abi_encode(),
        ),
        (
            "exactOutputSingle",
            IV3SwapRouter::exactOutputSingleCall {
                params: IV3SwapRouter::ExactOutputSingleParams {
                    tokenIn: a.weth,
                    tokenOut: a.dai,
                    fee,
                    recipient: a.account,
                    deadline: d,
                    amountOut: ether(100),
                    amountInMaximum: ether(1),
                    sqrtPriceLimitX96: U160::ZERO,
                },
            }
            .abi_encode(),
        ),
        (
            "exactOutput",
            IV3SwapRouter::exactOutputCall {
                params: IV3SwapRouter::ExactOutputParams {
                    path: reversed.into(),
                    recipient: a.account,
                    deadline: d,
                    amountOut: ether(100),
                    amountInMaximum: ether(1),
                },
            }
            .abi_encode(),
        ),
    ];
    let policy = every_swap_policy(&b);
    for (name, data) in shapes {
        let calls = vec![
            approve(a.weth, v3.swap_router, ether(1)),
            Call {
                target: v3.swap_router,
                value: U256::ZERO,
                data: data.into(),
            },
        ];
        let evaluation = b.evaluate_claimed(b.intent(calls), &policy);
        assert!(
            codes(&evaluation).contains(&Code::SlippageExceeded),
            "{name}: {:?}",
            evaluation.decision.violations
        );
        let facts = evaluation.report.swap;
        assert!(
            facts.is_some_and(|f| f.pool == pool.address),
            "{name}: measured on its pool"
        );
    }
}

/// The V3 policy with SwapRouter's exact-output swaps and its `multicall` allowed too.
fn every_swap_policy(b: &crate::protocols_bed::Bed) -> pace_types::Policy {
    let mut policy = v3_policy(b);
    policy.allowed_selectors.extend(
        [
            IV3SwapRouter::exactOutputSingleCall::SELECTOR,
            IV3SwapRouter::exactOutputCall::SELECTOR,
            IV3SwapRouter::multicallCall::SELECTOR,
        ]
        .map(pace_types::Selector::from),
    );
    policy
}

/// SwapRouter's `multicall` of a swap paid to the router and the payment of its output is read
/// as the swap paid to the payment's recipient: measured on its pool, its minimum the larger of
/// the two. Both minimums zero is refused for its slippage; a payment to a stranger is refused
/// for its recipient; an honest one (the swap's minimum 0.5 % under the quote, unwrapped to the
/// account) is approved, measured in ether, and executes as simulated.
#[test]
fn a_multicall_swap_and_payment_is_judged_as_the_swap_it_is() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let d = deadline(&b.world.evm).unwrap();
    let quote = v3.quote(&b.world.evm, &pool, a.dai, ether(1_000)).unwrap();
    let policy = every_swap_policy(&b);
    let swap = |min| {
        alloy_primitives::Bytes::from(
            IV3SwapRouter::exactInputSingleCall {
                params: IV3SwapRouter::ExactInputSingleParams {
                    tokenIn: a.dai,
                    tokenOut: a.weth,
                    fee: U24::from(pool.fee),
                    recipient: v3.swap_router,
                    deadline: d,
                    amountIn: ether(1_000),
                    amountOutMinimum: min,
                    sqrtPriceLimitX96: U160::ZERO,
                },
            }
            .abi_encode(),
        )
    };
    let unwrap = |min, recipient| {
        alloy_primitives::Bytes::from(
            IV3SwapRouter::unwrapWETH9Call {
                amountMinimum: min,
                recipient,
            }
            .abi_encode(),
        )
    };
    let batch = |data| {
        vec![
            approve(a.dai, v3.swap_router, ether(1_000)),
            call(v3.swap_router, &IV3SwapRouter::multicallCall { data }),
        ]
    };
    let evaluate = |calls| b.evaluate_claimed(b.intent(calls), &policy);

    let loose = evaluate(batch(vec![swap(U256::ZERO), unwrap(U256::ZERO, a.account)]));
    assert!(
        codes(&loose).contains(&Code::SlippageExceeded),
        "{:?}",
        codes(&loose)
    );
    let stolen = evaluate(batch(vec![
        swap(less_bps(quote, 50)),
        unwrap(U256::ZERO, a.attacker),
    ]));
    assert!(
        codes(&stolen).contains(&Code::SwapRecipientNotAccount),
        "{:?}",
        codes(&stolen)
    );
    let honest = evaluate(batch(vec![
        swap(less_bps(quote, 50)),
        unwrap(U256::ZERO, a.account),
    ]));
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let facts = honest.report.swap.clone().expect("measured");
    assert_eq!(
        (facts.token_out, facts.amount_out),
        (pace_types::ETH, quote)
    );
    let result = b.submit(&honest, &[a.dai, alloy_primitives::Address::ZERO]);
    reads_back(&honest, &result, &[a.dai], U256::ZERO);
}

/// A round trip of two SwapRouter swaps in one intent (1 WETH for DAI, then that DAI back):
/// each measured around its own call, each judged by its own figures, approved and executed
/// as simulated; the second alone at no minimum is refused for its slippage.
#[test]
fn each_swap_of_a_round_trip_is_measured_and_judged_on_its_own() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let d = deadline(&b.world.evm).unwrap();
    let dai = v3.quote(&b.world.evm, &pool, a.weth, ether(1)).unwrap();
    // The second leg's quote on the pool the first leg moved, less 0.5 %.
    let back_min = |min: bool| {
        if min {
            less_bps(less_bps(ether(1), 60), 80)
        } else {
            U256::ZERO
        }
    };
    let calls = |min: bool| {
        let mut calls =
            v3.exact_input_single(&pool, a.weth, ether(1), less_bps(dai, 50), a.account, d);
        calls.extend(v3.exact_input_single(&pool, a.dai, dai, back_min(min), a.account, d));
        calls
    };
    let policy = every_swap_policy(&b);
    let honest = b.evaluate_claimed(b.intent(calls(true)), &policy);
    assert!(
        honest.decision.approved(),
        "{:?}",
        honest.decision.violations
    );
    let later = &honest.report.later_swaps;
    assert_eq!(later.len(), 1, "{later:?}");
    assert_eq!((later[0].call, later[0].facts.token_in), (3, a.dai));
    assert_eq!(later[0].facts.amount_in, dai);
    let loose = b.evaluate_claimed(b.intent(calls(false)), &policy);
    assert_eq!(
        codes(&loose),
        [Code::SlippageExceeded],
        "{:?}",
        loose.decision.violations
    );
    let result = b.submit(&honest, &[a.weth, a.dai]);
    reads_back(&honest, &result, &[a.weth, a.dai], U256::ZERO);
}
