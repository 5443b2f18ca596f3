//! SwapRouter02 on its npm bytecode, over the world's V2 pairs and the bed's V3 pools: each of
//! its six swaps is read as its trade (its recipient `address(1)` the account), judged on its
//! bound and measured on its pool; honest swaps and an ether-out batch are approved, executed
//! and read back as simulated; a swap left unbounded, or paying a stranger, is refused.

use super::{
    routes::routes_policy,
    support::{less_bps, reads_back},
};
use crate::protocols_bed::{Bed, bed, codes};
use alloy_primitives::{Address, Bytes, U256, aliases::U24};
use alloy_sol_types::SolCall;
use pace_abi::bindings::ISwapRouter02 as Router;
use pace_testkit::protocols::{actions::approve, ether};
use pace_types::{Call, Policy, ViolationCode as Code};

/// `Constants.MSG_SENDER`: the caller.
const MSG_SENDER: Address = Address::with_last_byte(1);
/// `Constants.ADDRESS_THIS`: the router.
const ADDRESS_THIS: Address = Address::with_last_byte(2);

/// The routes policy with SwapRouter02 and its swaps, batches and payments allowed.
fn policy(b: &Bed) -> Policy {
    let mut p = routes_policy(b);
    p.allowed_targets.push(b.bed.swap_router02);
    p.allowed_selectors.extend(
        [
            Router::exactInputSingleCall::SELECTOR,
            Router::exactInputCall::SELECTOR,
            Router::exactOutputSingleCall::SELECTOR,
            Router::exactOutputCall::SELECTOR,
            Router::swapExactTokensForTokensCall::SELECTOR,
            Router::swapTokensForExactTokensCall::SELECTOR,
            Router::multicall_0Call::SELECTOR,
        ]
        .map(pace_types::Selector::from),
    );
    p
}

fn to_router(b: &Bed, data: Vec<u8>, value: U256) -> Call {
    Call {
        target: b.bed.swap_router02,
        value,
        data: data.into(),
    }
}

/// WETH → DAI on the V3 pool: packed path, one hop.
fn v3_path(b: &Bed, reversed: bool) -> Bytes {
    let a = b.a();
    let fee = U24::from(b.bed.uniswap_v3.weth_dai.fee).to_be_bytes::<3>();
    let (first, last) = if reversed {
        (a.dai, a.weth)
    } else {
        (a.weth, a.dai)
    };
    [first.as_slice(), &fee, last.as_slice()].concat().into()
}

/// The bounds of the swaps on one venue: the least DAI out for 1 WETH (exact input), the DAI
/// bought for at most 1 WETH (exact output).
#[derive(Clone, Copy)]
struct Bounds {
    min: U256,
    out: U256,
}

/// The six swaps selling (at most) 1 WETH for DAI, paid to `to`, the four V3 ones bounded by
/// `v3`, the two V2 ones by `v2`.
fn shapes(b: &Bed, to: Address, v3: Bounds, v2: Bounds) -> Vec<(&'static str, Vec<u8>)> {
    let a = b.a();
    let (min, out) = (v3.min, v3.out);
    let fee = U24::from(b.bed.uniswap_v3.weth_dai.fee);
    vec![
        (
            "exactInputSingle",
            Router::exactInputSingleCall {
                params: Router::ExactInputSingleParams {
                    tokenIn: a.weth,
                    tokenOut: a.dai,
                    fee,
                    recipient: to,
                    amountIn: ether(1),
                    amountOutMinimum: min,
                    sqrtPriceLimitX96: Default::default(),
                },
            }
            .abi_encode(),
        ),
        (
            "exactInput",
            Router::exactInputCall {
                params: Router::ExactInputParams {
                    path: v3_path(b, false),
                    recipient: to,
                    amountIn: ether(1),
                    amountOutMinimum: min,
                },
            }
            .abi_encode(),
        ),
        (
            "exactOutputSingle",
            Router::exactOutputSingleCall {
                params: Router::ExactOutputSingleParams {
                    tokenIn: a.weth,
                    tokenOut: a.dai,
                    fee,
                    recipient: to,
                    amountOut: out,
                    amountInMaximum: ether(1),
                    sqrtPriceLimitX96: Default::default(),
                },
            }
            .abi_encode(),
        ),
        (
            "exactOutput",
            Router::exactOutputCall {
                params: Router::ExactOutputParams {
                    path: v3_path(b, true),
                    recipient: to,
                    amountOut: out,
                    amountInMaximum: ether(1),
                },
            }
            .abi_encode(),
        ),
        (
            "swapExactTokensForTokens",
            Router::swapExactTokensForTokensCall {
                amountIn: ether(1),
                amountOutMin: v2.min,
                path: vec![a.weth, a.dai],
                to,
            }
            .abi_encode(),
        ),
        (
            "swapTokensForExactTokens",
            Router::swapTokensForExactTokensCall {
                amountOut: v2.out,
                amountInMax: ether(1),
                path: vec![a.weth, a.dai],
                to,
            }
            .abi_encode(),
        ),
    ]
}

/// Honest bounds on each venue: 0.5 % under the quote for a WETH; what 0.995 WETH buys, for at
/// most 1 (the input's tolerance 0.5 %).
fn honest(b: &Bed) -> (Bounds, Bounds) {
    let a = b.a();
    let v3 = b.bed.uniswap_v3;
    let part = ether(995) / U256::from(1_000u64);
    let v3_quote = |amount| {
        v3.quote(&b.world.evm, &v3.weth_dai, a.weth, amount)
            .unwrap()
    };
    let (weth, dai) = (
        b.balance(a.weth, a.pair_weth_dai),
        b.balance(a.dai, a.pair_weth_dai),
    );
    let v2_quote = |amount| pace_testkit::mainnet::amount_out(amount, weth, dai);
    (
        Bounds {
            min: less_bps(v3_quote(ether(1)), 50),
            out: v3_quote(part),
        },
        Bounds {
            min: less_bps(v2_quote(ether(1)), 50),
            out: v2_quote(part),
        },
    )
}

#[test]
fn every_swap_is_read_as_its_trade_and_judged_on_its_bound() {
    let b = bed();
    let a = b.a();
    let router = b.bed.swap_router02;
    let policy = policy(&b);
    let (v3, v2) = honest(&b);
    // No minimum out, or a maximum in that 1 DAI bought leaves a thousand times too loose.
    let loose = Bounds {
        min: U256::ZERO,
        out: ether(1),
    };
    let evaluate = |b: &Bed, data: Vec<u8>| {
        let calls = vec![
            approve(a.weth, router, ether(1)),
            to_router(b, data, U256::ZERO),
        ];
        b.evaluate_claimed(b.intent(calls), &policy)
    };
    for (name, data) in shapes(&b, MSG_SENDER, loose, loose) {
        let loose = evaluate(&b, data);
        assert!(
            codes(&loose).contains(&Code::SlippageExceeded),
            "{name}: {:?}",
            loose.decision.violations
        );
        assert!(loose.report.swap.is_some(), "{name}: measured on its pool");
    }
    for (name, data) in shapes(&b, a.attacker, v3, v2) {
        let stolen = evaluate(&b, data);
        assert!(
            codes(&stolen).contains(&Code::SwapRecipientNotAccount),
            "{name}: {:?}",
            stolen.decision.violations
        );
    }
    for (name, data) in shapes(&b, MSG_SENDER, v3, v2) {
        let honest = evaluate(&b, data);
        assert!(
            honest.decision.approved(),
            "{name}: {:?}",
            honest.decision.violations
        );
        let facts = honest.report.swap.clone().expect("measured");
        assert_eq!((facts.token_in, facts.token_out), (a.weth, a.dai), "{name}");
    }
    // One of each kind executed from a fresh bed, read back as simulated.
    for pick in ["exactInput", "swapTokensForExactTokens"] {
        let mut fresh = bed();
        let (_, data) = shapes(&fresh, MSG_SENDER, v3, v2)
            .into_iter()
            .find(|(n, _)| *n == pick)
            .unwrap();
        let honest = evaluate(&fresh, data);
        assert!(honest.decision.approved(), "{pick}");
        let before = fresh.balance(a.dai, a.account);
        let result = fresh.submit(&honest, &[a.weth, a.dai]);
        reads_back(&honest, &result, &[a.weth, a.dai], U256::ZERO);
        assert!(
            fresh.balance(a.dai, a.account) - before >= v2.min.min(v3.min),
            "{pick}"
        );
    }
}

#[test]
fn a_batch_paying_ether_out_is_read_as_its_trade() {
    let mut b = bed();
    let a = b.a();
    let router = b.bed.swap_router02;
    let pool = b.bed.uniswap_v3.weth_dai;
    let sold = ether(1_000);
    let quote = b
        .bed
        .uniswap_v3
        .quote(&b.world.evm, &pool, a.dai, sold)
        .unwrap();
    let d = pace_testkit::protocols::uniswap_v3::deadline(&b.world.evm).unwrap();
    // DAI → WETH into the router, then unwrapped to the caller.
    let batch = |min: U256, swap_min: U256| {
        let swap = Router::exactInputSingleCall {
            params: Router::ExactInputSingleParams {
                tokenIn: a.dai,
                tokenOut: a.weth,
                fee: U24::from(pool.fee),
                recipient: ADDRESS_THIS,
                amountIn: sold,
                amountOutMinimum: swap_min,
                sqrtPriceLimitX96: Default::default(),
            },
        };
        let unwrap = Router::unwrapWETH9_0Call { amountMinimum: min };
        let multicall = Router::multicall_0Call {
            deadline: d,
            data: vec![swap.abi_encode().into(), unwrap.abi_encode().into()],
        };
        vec![
            approve(a.dai, router, sold),
            to_router(&b, multicall.abi_encode(), U256::ZERO),
        ]
    };
    let policy = policy(&b);
    let loose = b.evaluate_claimed(b.intent(batch(U256::ZERO, U256::ZERO)), &policy);
    assert!(
        codes(&loose).contains(&Code::SlippageExceeded),
        "{:?}",
        loose.decision.violations
    );
    // Either minimum binds the trade.
    for (min, swap_min) in [
        (less_bps(quote, 100), U256::ZERO),
        (U256::ZERO, less_bps(quote, 100)),
    ] {
        let honest = b.evaluate_claimed(b.intent(batch(min, swap_min)), &policy);
        assert!(
            honest.decision.approved(),
            "{:?}",
            honest.decision.violations
        );
        let facts = honest.report.swap.clone().expect("measured");
        assert_eq!((facts.token_in, facts.token_out), (a.dai, pace_types::ETH));
        assert_eq!(facts.amount_out, quote);
    }
    let honest = b.evaluate_claimed(b.intent(batch(less_bps(quote, 100), U256::ZERO)), &policy);
    let result = b.submit(&honest, &[a.dai]);
    reads_back(&honest, &result, &[a.dai], U256::ZERO);
}

/// A batch that pulls the input into the router and swaps what the router holds (`pull`, then
/// an exact input of `CONTRACT_BALANCE`) holds a call nothing reads: refused as such; with the
/// router named in `opaque_plan_routers`, judged by the general rules alone, approved and
/// executed.
#[test]
fn a_batch_with_a_call_nothing_reads_is_refused_unless_the_policy_names_the_router() {
    let mut b = bed();
    let a = b.a();
    let router = b.bed.swap_router02;
    let pool = b.bed.uniswap_v3.weth_dai;
    let quote = b
        .bed
        .uniswap_v3
        .quote(&b.world.evm, &pool, a.weth, ether(1))
        .unwrap();
    let d = pace_testkit::protocols::uniswap_v3::deadline(&b.world.evm).unwrap();
    let pull = Router::pullCall {
        token: a.weth,
        value: ether(1),
    };
    let swap = Router::exactInputSingleCall {
        params: Router::ExactInputSingleParams {
            tokenIn: a.weth,
            tokenOut: a.dai,
            fee: U24::from(pool.fee),
            recipient: MSG_SENDER,
            amountIn: U256::ZERO,
            amountOutMinimum: less_bps(quote, 50),
            sqrtPriceLimitX96: Default::default(),
        },
    };
    let multicall = Router::multicall_0Call {
        deadline: d,
        data: vec![pull.abi_encode().into(), swap.abi_encode().into()],
    };
    let calls = vec![
        approve(a.weth, router, ether(1)),
        to_router(&b, multicall.abi_encode(), U256::ZERO),
    ];
    let mut policy = policy(&b);
    let refused = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert_eq!(codes(&refused), vec![Code::PlanNotDecoded]);
    policy.opaque_plan_routers.push(router);
    let named = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(named.decision.approved(), "{:?}", named.decision.violations);
    let result = b.submit(&named, &[a.weth, a.dai]);
    reads_back(&named, &result, &[a.weth, a.dai], U256::ZERO);
}
