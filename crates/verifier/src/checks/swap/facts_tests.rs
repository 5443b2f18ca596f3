//! Which simulated trade the report's swap facts describe: the same input and output tokens,
//! with ether standing for WETH only on the side of the swap that pays or takes ether
//! (mutation testing found these untested).

use super::{derived_slippage, facts_for};
use crate::decode::{Swap, SwapKind};
use alloy_primitives::{Address, U256};
use pace_types::{ETH, SimulationReport, SwapFacts};

const WETH: Address = Address::repeat_byte(0xee);
const DAI: Address = Address::repeat_byte(0xda);

fn swap(path: [Address; 2], eth_in: bool, eth_out: bool) -> Swap {
    Swap {
        router: Address::repeat_byte(0x01),
        kind: SwapKind::ExactIn {
            amount_in: U256::from(10u8),
            min_out: U256::from(9u8),
        },
        path: path.to_vec(),
        to: Address::repeat_byte(0xaa),
        deadline: U256::MAX,
        eth_in,
        eth_out,
        fee_on_transfer: false,
        v4_pools: Vec::new(),
        to_internal: false,
        routes: Vec::new(),
    }
}

fn report(token_in: Address, token_out: Address) -> SimulationReport {
    let mut r: SimulationReport = serde_json::from_str(
        r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
            "block_number":1,"timestamp":1,"success":true}"#,
    )
    .unwrap();
    r.swap = Some(SwapFacts {
        pool: Address::repeat_byte(0x02),
        token_in,
        token_out,
        amount_in: U256::from(10u8),
        amount_out: U256::from(10u8),
        quoted_out: U256::from(10u8),
        min_out: U256::from(9u8),
        price_impact_bps: 0,
        slippage_bps: 0,
    });
    r
}

#[test]
fn ether_out_matches_a_swap_paying_ether_only() {
    // DAI for ether: the router pays ether, the report may name it ETH or WETH.
    let to_eth = swap([DAI, WETH], false, true);
    assert!(facts_for(&to_eth, Some(&report(DAI, ETH))).is_some());
    assert!(facts_for(&to_eth, Some(&report(DAI, WETH))).is_some());
    // A swap paying WETH the token is not described by facts of an ether payout.
    let to_weth = swap([DAI, WETH], false, false);
    assert!(facts_for(&to_weth, Some(&report(DAI, ETH))).is_none());
    assert!(facts_for(&to_weth, Some(&report(DAI, WETH))).is_some());
    // Nor is a swap paying DAI, whatever it sells.
    let to_dai = swap([WETH, DAI], true, false);
    assert!(facts_for(&to_dai, Some(&report(ETH, ETH))).is_none());
    assert!(facts_for(&to_dai, Some(&report(ETH, DAI))).is_some());
}

#[test]
fn ether_in_matches_a_swap_taking_ether_only() {
    let from_eth = swap([WETH, DAI], true, false);
    assert!(facts_for(&from_eth, Some(&report(ETH, DAI))).is_some());
    assert!(facts_for(&from_eth, Some(&report(WETH, DAI))).is_some());
    let from_weth = swap([WETH, DAI], false, false);
    assert!(facts_for(&from_weth, Some(&report(ETH, DAI))).is_none());
    assert!(facts_for(&from_weth, Some(&report(WETH, DAI))).is_some());
}

#[test]
fn both_sides_must_match() {
    let weth_for_dai = swap([WETH, DAI], false, false);
    let usdc = Address::repeat_byte(0xcc);
    assert!(facts_for(&weth_for_dai, Some(&report(WETH, usdc))).is_none());
    assert!(facts_for(&weth_for_dai, Some(&report(usdc, DAI))).is_none());
    assert!(facts_for(&weth_for_dai, None).is_none());
}

#[test]
fn a_zero_minimum_leaves_everything_open_even_without_facts() {
    let mut open = swap([WETH, DAI], false, false);
    open.kind = SwapKind::ExactIn {
        amount_in: U256::from(10u8),
        min_out: U256::ZERO,
    };
    assert_eq!(derived_slippage(&open, None), Some(pace_types::BPS_SCALE));
    // With a minimum, there is nothing to measure it against without facts.
    assert_eq!(
        derived_slippage(&swap([WETH, DAI], false, false), None),
        None
    );
}
