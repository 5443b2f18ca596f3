//! A liquidity call's minimums count as slippage against what the simulation moved: a zero
//! minimum leaves everything open, a tight one passes, and a withdrawal is measured at its
//! receiver (mutation testing found these untested).

use crate::case::Case;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::IUniswapV2Router02;
use pace_testkit::mainnet::*;
use pace_types::{ETH, Selector, TokenFlow, ViolationCode as Code};

const PAYEE: Address = Address::repeat_byte(0xbb);

/// The benign swap followed by `call` to the router, with `flows` in the trace. (The
/// deposit pays DAI, which the swap does not move: a minimum is compared with all the account
/// sent of its token.)
fn with_liquidity_call(call_data: Vec<u8>, flows: &[TokenFlow]) -> Case {
    let selector = Selector::from_slice(&call_data[..4]);
    Case::benign()
        .with(|c| {
            c.intent.calls.push(call(ROUTER, call_data.into()));
            c.report_mut().token_flows.extend_from_slice(flows);
            c.policy.allowed_selectors.push(selector);
            c.policy.allowed_recipients.push(PAYEE);
        })
        .rehash()
}

fn flow(token: Address, from: Address, to: Address, amount: U256) -> TokenFlow {
    TokenFlow {
        token,
        from,
        to,
        amount,
    }
}

fn add(min_usdc: U256, min_weth: U256) -> Case {
    let (dai_in, weth_in) = (
        usdc(1_000),
        U256::from(4u64) * U256::from(10u64).pow(U256::from(17u64)),
    );
    let data = IUniswapV2Router02::addLiquidityCall {
        tokenA: DAI,
        tokenB: WETH,
        amountADesired: dai_in,
        amountBDesired: weth_in,
        amountAMin: min_usdc,
        amountBMin: min_weth,
        to: ACCOUNT,
        deadline: U256::from(DEADLINE),
    }
    .abi_encode();
    with_liquidity_call(
        data,
        &[
            flow(DAI, ACCOUNT, PAIR, dai_in),
            flow(WETH, ACCOUNT, PAIR, weth_in),
            flow(PAIR, Address::ZERO, ACCOUNT, U256::from(1_000u64)),
        ],
    )
}

fn slippage_codes(c: &Case) -> Vec<Code> {
    c.codes()
        .into_iter()
        .filter(|c| matches!(c, Code::SlippageExceeded | Code::SlippageUnverifiable))
        .collect()
}

#[test]
fn a_deposit_without_minimums_leaves_everything_open() {
    let open = add(U256::ZERO, U256::ZERO);
    assert_eq!(
        slippage_codes(&open),
        [Code::SlippageExceeded],
        "{:?}",
        open.codes()
    );
    // One side without a minimum is enough.
    let half = add(usdc(1_000), U256::ZERO);
    assert_eq!(
        slippage_codes(&half),
        [Code::SlippageExceeded],
        "{:?}",
        half.codes()
    );
    // Minimums at what the simulation deposited: no slippage finding.
    let tight = add(
        usdc(1_000),
        U256::from(4u64) * U256::from(10u64).pow(U256::from(17u64)),
    );
    assert_eq!(slippage_codes(&tight), [], "{:?}", tight.codes());
}

#[test]
fn a_withdrawal_is_measured_at_its_receiver() {
    // 100 USDC and 0.04 WETH come out of the pair to the payee the call names.
    let (usdc_out, weth_out) = (
        usdc(100),
        U256::from(4u64) * U256::from(10u64).pow(U256::from(16u64)),
    );
    let data = IUniswapV2Router02::removeLiquidityCall {
        tokenA: USDC,
        tokenB: WETH,
        liquidity: U256::from(100u64),
        amountAMin: usdc_out,
        amountBMin: weth_out,
        to: PAYEE,
        deadline: U256::from(DEADLINE),
    }
    .abi_encode();
    let c = with_liquidity_call(
        data,
        &[
            flow(PAIR, ACCOUNT, PAIR, U256::from(100u64)),
            flow(USDC, PAIR, PAYEE, usdc_out),
            flow(WETH, PAIR, PAYEE, weth_out),
        ],
    );
    assert_eq!(slippage_codes(&c), [], "{:?}", c.codes());
}

#[test]
fn an_ether_deposit_is_measured_net_of_the_refund() {
    // 1 ether sent with the call, 0.2 refunded: 0.8 deposited, the minimum's exact measure.
    let tenth = U256::from(10u64).pow(U256::from(17u64));
    let deposit = |min_eth: U256| {
        let data = IUniswapV2Router02::addLiquidityETHCall {
            token: DAI,
            amountTokenDesired: usdc(1_000),
            amountTokenMin: usdc(1_000),
            amountETHMin: min_eth,
            to: ACCOUNT,
            deadline: U256::from(DEADLINE),
        }
        .abi_encode();
        with_liquidity_call(
            data,
            &[
                flow(ETH, ACCOUNT, ROUTER, tenth * U256::from(10u8)),
                flow(ETH, ROUTER, ACCOUNT, tenth * U256::from(2u8)),
                flow(DAI, ACCOUNT, PAIR, usdc(1_000)),
                flow(PAIR, Address::ZERO, ACCOUNT, U256::from(1_000u64)),
            ],
        )
        .with(|c| {
            let n = c.intent.calls.len() - 1;
            c.intent.calls[n].value = tenth * U256::from(10u8);
        })
        .rehash()
    };
    let net = deposit(tenth * U256::from(8u8));
    assert_eq!(slippage_codes(&net), [], "{:?}", net.codes());
    // A minimum of half the net deposit leaves 50 % open.
    let loose = deposit(tenth * U256::from(4u8));
    assert_eq!(
        slippage_codes(&loose),
        [Code::SlippageExceeded],
        "{:?}",
        loose.codes()
    );
}
