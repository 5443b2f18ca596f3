//! A batch that reverts is a report with `success: false` and the decoded reason.

use alloy_primitives::{U256, hex};
use alloy_sol_types::SolError;
use pace_abi::revert::RevertDecoder;
use pace_contracts::bindings::{
    IERC20, IUniswapV2Router02,
    MockAmmRouter::{MockAmmRouterErrors, MockAmmRouterInsufficientOutput},
};
use pace_simulator::{SimulateOptions, simulate, simulate_detailed};
use pace_testkit::fixture::*;

fn swap_calls(
    w: &Fixture,
    router: alloy_primitives::Address,
    min_out: U256,
) -> Vec<pace_types::Call> {
    vec![
        call(
            w.a,
            &IERC20::approveCall {
                spender: router,
                value: ether(100),
            },
        ),
        call(
            router,
            &IUniswapV2Router02::swapExactTokensForTokensCall {
                amountIn: ether(100),
                amountOutMin: min_out,
                path: vec![w.a, w.b],
                to: w.account,
                deadline: U256::from(DEADLINE),
            },
        ),
    ]
}

#[test]
fn mock_router_custom_error_is_decoded_through_the_registry() {
    let w = world();
    let out = w.amounts_out(w.mock_router, ether(100), vec![w.a, w.b])[1];
    let min = out + U256::from(1u8);
    let intent = intent(w.account, swap_calls(&w, w.mock_router, min));
    // The simulator does not know the mock's errors by itself.
    let plain = simulate(&w.evm, &intent).unwrap();
    assert_eq!(
        plain.revert_reason,
        Some(format!(
            "custom error 0x{}",
            hex::encode(MockAmmRouterInsufficientOutput::SELECTOR)
        ))
    );
    let options = SimulateOptions::default().with_revert_decoder(
        RevertDecoder::new().with_errors::<MockAmmRouterErrors>(MockAmmRouterErrors::SIGNATURES),
    );
    let sim = simulate_detailed(&w.evm, &intent, &options).unwrap();
    let r = &sim.report;
    assert!(!r.success);
    assert_eq!(
        r.revert_reason.as_deref(),
        Some(format!("MockAmmRouterInsufficientOutput({out}, {min})").as_str())
    );
    assert_eq!(sim.failed_call, Some(1));
    assert!(r.gas_used > 2 * 21_000, "both calls' gas: {}", r.gas_used);
    // What ran is touched, even though it reverted; nothing else is reported.
    assert_eq!(&r.touched_contracts[..2], &[w.a, w.mock_router]);
    assert!(r.token_flows.is_empty() && r.approvals.is_empty() && r.balance_changes.is_empty());
    assert_eq!(
        (r.swap.clone(), r.loss_bps, r.health_factor_after_bps),
        (None, None, None)
    );
    assert_eq!(r.intent_hash, intent.intent_hash());
}

#[test]
fn router02_error_string_is_decoded() {
    let w = world();
    let r = simulate(
        &w.evm,
        &intent(w.account, swap_calls(&w, w.router, ether(1_000_000))),
    )
    .unwrap();
    assert!(!r.success);
    assert_eq!(
        r.revert_reason.as_deref(),
        Some("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT")
    );
}

#[test]
fn erc20_custom_error_and_first_failure_stops_the_batch() {
    let w = world();
    let calls = vec![
        call(
            w.a,
            &IERC20::transferCall {
                to: BOB,
                value: ether(1_000_000),
            },
        ),
        call(
            w.b,
            &IERC20::transferCall {
                to: BOB,
                value: ether(1),
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
    assert!(!r.success);
    assert_eq!(sim.failed_call, Some(0));
    let held = w.balance(w.a, w.account);
    let expected = format!(
        "ERC20InsufficientBalance({}, {held}, {})",
        w.account.to_checksum(None),
        ether(1_000_000)
    );
    assert_eq!(r.revert_reason.as_deref(), Some(expected.as_str()));
    assert_eq!(r.touched_contracts, vec![w.a], "the second call never ran");
}
