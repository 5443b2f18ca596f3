//! Swaps on the npm Uniswap V2 Router02, the mock AMM, the malicious router and a
//! fee-on-transfer output, with the math checked against an independent computation.

use alloy_primitives::{Address, I256, U256};
use pace_contracts::bindings::{IERC20, IUniswapV2Router02, MaliciousRouter};
use pace_simulator::{SimulateOptions, Simulation, simulate_detailed};
use pace_testkit::fixture::*;
use pace_types::{ApprovalFact, BalanceChange, ETH, TokenFlow};

fn bps_ceil(num: U256, den: U256) -> u32 {
    (num * U256::from(10_000u32)).div_ceil(den).to::<u32>()
}

fn bps_floor(num: U256, den: U256) -> u32 {
    (num * U256::from(10_000u32) / den).to::<u32>()
}

/// `1 - (rOut'/rIn') / (rOut/rIn)` in bps, rounded up.
fn impact(before: (U256, U256), after: (U256, U256)) -> u32 {
    let ((r_in, r_out), (r_in2, r_out2)) = (before, after);
    let den = r_in2 * r_out;
    bps_ceil(den - r_out2 * r_in, den)
}

fn approve_and_swap(
    w: &Fixture,
    router: Address,
    amount_in: U256,
    min_out: U256,
    path: Vec<Address>,
) -> Simulation {
    let calls = vec![
        call(
            path[0],
            &IERC20::approveCall {
                spender: router,
                value: amount_in,
            },
        ),
        call(
            router,
            &IUniswapV2Router02::swapExactTokensForTokensCall {
                amountIn: amount_in,
                amountOutMin: min_out,
                path,
                to: w.account,
                deadline: U256::from(DEADLINE),
            },
        ),
    ];
    simulate_detailed(
        &w.evm,
        &intent(w.account, calls),
        &SimulateOptions::default(),
    )
    .unwrap()
}

#[test]
fn router02_approve_and_swap() {
    let w = world();
    let amount_in = ether(100);
    let path = vec![w.a, w.b];
    let expected_out = w.amounts_out(w.router, amount_in, path.clone())[1];
    let min_out = expected_out * U256::from(9_950u32) / U256::from(10_000u32);
    let (r_in, r_out) = w.reserves(w.pair_ab, w.a);

    let sim = approve_and_swap(&w, w.router, amount_in, min_out, path);
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
    let s = r.swap.as_ref().expect("swap facts");
    assert_eq!((s.pool, s.token_in, s.token_out), (w.pair_ab, w.a, w.b));
    assert_eq!(s.amount_in, amount_in);
    assert_eq!(
        s.amount_out, expected_out,
        "what Router02.getAmountsOut promised"
    );
    assert_eq!(s.min_out, min_out);

    // Independent computation from the pre-trade reserves.
    let quoted = amount_in * r_out / r_in;
    assert_eq!(s.quoted_out, quoted);
    assert_eq!(
        s.price_impact_bps,
        impact((r_in, r_out), (r_in + amount_in, r_out - expected_out))
    );
    assert_eq!(s.slippage_bps, 50);
    assert_eq!(
        s.slippage_bps,
        bps_floor(expected_out - min_out, expected_out)
    );
    assert_eq!(r.loss_bps, Some(bps_ceil(quoted - expected_out, quoted)));
    // 100 A into 10,000 A / 20,000 B: the mid price moves ~1.97%; the trade gets ~1.29% less
    // than the mid quote (0.3% fee + ~0.99% execution impact).
    assert_eq!(s.price_impact_bps, 197);
    assert_eq!(r.loss_bps, Some(129));

    assert_eq!(r.touched_contracts, vec![w.a, w.router, w.pair_ab, w.b]);
    assert_eq!(
        r.token_flows,
        vec![
            TokenFlow {
                token: w.a,
                from: w.account,
                to: w.pair_ab,
                amount: amount_in
            },
            TokenFlow {
                token: w.b,
                from: w.pair_ab,
                to: w.account,
                amount: expected_out
            },
        ]
    );
    assert_eq!(
        r.approvals,
        vec![ApprovalFact {
            token: w.a,
            owner: w.account,
            spender: w.router,
            amount: amount_in
        }]
    );
    let mut changes = vec![
        BalanceChange {
            token: w.a,
            delta: -I256::try_from(amount_in).unwrap(),
        },
        BalanceChange {
            token: w.b,
            delta: I256::try_from(expected_out).unwrap(),
        },
    ];
    changes.sort_by_key(|c| c.token);
    assert_eq!(r.balance_changes, changes);
    assert_eq!(
        (r.health_factor_before_bps, r.health_factor_after_bps),
        (None, None)
    );
}

#[test]
fn router02_two_hops() {
    let w = world();
    let amount_in = ether(50);
    let path = vec![w.a, w.b, w.weth];
    let amounts = w.amounts_out(w.router, amount_in, path.clone());
    let (ab_in, ab_out) = w.reserves(w.pair_ab, w.a);
    let pair_bw = w.pair(w.b, w.weth);
    let (bw_in, bw_out) = w.reserves(pair_bw, w.b);

    let sim = approve_and_swap(&w, w.router, amount_in, U256::ZERO, path);
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    let s = r.swap.as_ref().unwrap();
    assert_eq!((s.pool, s.token_in, s.token_out), (w.pair_ab, w.a, w.weth));
    assert_eq!((s.amount_in, s.amount_out), (amount_in, amounts[2]));
    assert_eq!(s.quoted_out, amount_in * ab_out / ab_in * bw_out / bw_in);
    assert_eq!(
        s.slippage_bps, 10_000,
        "a zero minimum leaves everything open"
    );
    assert!(s.price_impact_bps > 0);
    assert_eq!(
        r.loss_bps,
        Some(bps_ceil(s.quoted_out - s.amount_out, s.quoted_out))
    );
    assert_eq!(
        r.touched_contracts,
        vec![w.a, w.router, w.pair_ab, pair_bw, w.b, w.weth]
    );
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}

#[test]
fn router02_exact_output_reports_the_input_tolerance() {
    let w = world();
    let want = ether(100);
    let path = vec![w.a, w.b];
    let needed = w
        .evm
        .view_sol(
            w.router,
            &IUniswapV2Router02::getAmountsInCall {
                amountOut: want,
                path: path.clone(),
            },
        )
        .unwrap()[0];
    let max_in = needed * U256::from(10_100u32) / U256::from(10_000u32);
    let calls = vec![
        call(
            w.a,
            &IERC20::approveCall {
                spender: w.router,
                value: max_in,
            },
        ),
        call(
            w.router,
            &IUniswapV2Router02::swapTokensForExactTokensCall {
                amountOut: want,
                amountInMax: max_in,
                path,
                to: w.account,
                deadline: U256::from(DEADLINE),
            },
        ),
    ];
    let sim = simulate_detailed(
        &w.evm,
        &intent(w.account, calls),
        &SimulateOptions::default(),
    )
    .unwrap();
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    let s = r.swap.as_ref().unwrap();
    assert_eq!((s.amount_in, s.amount_out, s.min_out), (needed, want, want));
    assert_eq!(s.slippage_bps, bps_floor(max_in - needed, needed));
    assert_eq!(
        s.slippage_bps, 99,
        "floor(needed * 1.01) leaves a hair under 100 bps"
    );
    // The allowance left over (max_in - needed) is consistent with the logs.
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}

#[test]
fn router02_ether_in() {
    let w = world();
    let path = vec![w.weth, w.b];
    let out = w.amounts_out(w.router, ether(1), path.clone())[1];
    let mut swap = call(
        w.router,
        &IUniswapV2Router02::swapExactETHForTokensCall {
            amountOutMin: out,
            path,
            to: w.account,
            deadline: U256::from(DEADLINE),
        },
    );
    swap.value = ether(1);
    let sim = simulate_detailed(
        &w.evm,
        &intent(w.account, vec![swap]),
        &SimulateOptions::default(),
    )
    .unwrap();
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    let s = r.swap.as_ref().unwrap();
    assert_eq!(
        (s.token_in, s.token_out, s.amount_in, s.amount_out),
        (ETH, w.b, ether(1), out)
    );
    assert_eq!(s.pool, w.pair(w.weth, w.b));
    assert_eq!(s.slippage_bps, 0);
    assert_eq!(
        r.balance_changes[0],
        BalanceChange {
            token: ETH,
            delta: -I256::try_from(ether(1)).unwrap()
        }
    );
    assert_eq!(
        r.token_flows[0],
        TokenFlow {
            token: ETH,
            from: w.account,
            to: w.router,
            amount: ether(1)
        }
    );
    assert_eq!(
        r.token_flows[1],
        TokenFlow {
            token: ETH,
            from: w.router,
            to: w.weth,
            amount: ether(1)
        }
    );
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}

#[test]
fn fee_on_transfer_output_shows_the_shortfall() {
    let w = world();
    let amount_in = ether(100);
    let path = vec![w.a, w.defl];
    let pool_out = w.amounts_out(w.router, amount_in, path.clone())[1];
    let pair = w.pair(w.a, w.defl);
    let (r_in, r_out) = w.reserves(pair, w.a);

    let sim = approve_and_swap(&w, w.router, amount_in, U256::ZERO, path);
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    let s = r.swap.as_ref().unwrap();
    assert_eq!(s.pool, pair);
    // DeflatingERC20 burns 1% of every transfer: the account gets 99% of the pool's output.
    assert_eq!(s.amount_out, pool_out - pool_out / U256::from(100u8));
    assert!(s.amount_out < pool_out);
    let quoted = amount_in * r_out / r_in;
    assert_eq!(s.quoted_out, quoted);
    let loss = r.loss_bps.unwrap();
    assert_eq!(loss, bps_ceil(quoted - s.amount_out, quoted));
    assert!(
        loss > bps_ceil(quoted - pool_out, quoted) + 90,
        "the 1% burn is in the loss: {loss}"
    );
    // The burn is logged, so flows and balances agree.
    assert!(
        r.token_flows
            .iter()
            .any(|f| f.token == w.defl && f.to == Address::ZERO)
    );
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}

#[test]
fn mock_amm_router_swap() {
    let w = world();
    let amount_in = ether(100);
    let path = vec![w.a, w.b];
    let out = w.amounts_out(w.mock_router, amount_in, path.clone())[1];
    let sim = approve_and_swap(&w, w.mock_router, amount_in, out, path);
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    let s = r.swap.as_ref().unwrap();
    assert_eq!(
        (s.pool, s.amount_in, s.amount_out, s.slippage_bps),
        (w.mock_pair, amount_in, out, 0)
    );
    assert_eq!(s.quoted_out, amount_in, "1:1 pool");
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}

#[test]
fn malicious_router_touches_the_hidden_sink() {
    let w = world();
    let amount_in = ether(100);
    let path = vec![w.a, w.b];
    let advertised = w
        .evm
        .view_sol(
            w.malicious,
            &MaliciousRouter::getAmountsOutCall {
                amountIn: amount_in,
                path: path.clone(),
            },
        )
        .unwrap()[1];
    let sim = approve_and_swap(&w, w.malicious, amount_in, U256::ZERO, path);
    let r = &sim.report;
    assert!(r.success, "{:?}", r.revert_reason);
    assert!(
        r.touched_contracts.contains(&w.sink),
        "{:?}",
        r.touched_contracts
    );
    assert_eq!(
        r.touched_contracts,
        vec![w.a, w.malicious, w.sink, w.mock_router, w.mock_pair, w.b]
    );
    let s = r.swap.as_ref().unwrap();
    assert_eq!((s.pool, s.amount_in), (w.mock_pair, amount_in));
    assert!(s.amount_out < advertised, "the skim is not delivered");
    // The sink took 1% of the input: it shows in the flows and in the loss.
    let skim = amount_in * U256::from(SKIM_BPS) / U256::from(10_000u32);
    assert!(
        r.token_flows
            .iter()
            .any(|f| f.token == w.a && f.to == w.sink && f.amount == skim)
    );
    assert!(
        r.loss_bps.unwrap() >= SKIM_BPS as u32 + 30,
        "{:?}",
        r.loss_bps
    );
    assert!(sim.discrepancies.is_empty(), "{:?}", sim.discrepancies);
}
