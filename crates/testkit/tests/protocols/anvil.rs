//! The same bed on a real anvil node: the world copied onto it, every contract deployed there
//! by the same transactions from the same senders (so at the same addresses as in-process),
//! then a V3 swap and an Aave borrow through the account's owner path.

use crate::common::{VERIFIER, bed};
use alloy_primitives::U256;
use pace_testkit::protocols::{
    Protocols,
    actions::{balance, owner_execute},
    ether,
    node::NodeChain,
    uniswap_v3::{TWAP_WINDOW, deadline},
};
use pace_world::World;
use std::time::Instant;

#[test]
fn the_bed_on_anvil_swaps_and_borrows() {
    let world = World::new(VERIFIER).unwrap();
    let (_, in_process) = bed();
    let (anvil, mut node) = NodeChain::start(&world).unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    let bed = Protocols::deploy(&mut node, &world.addrs).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "bed deployed on anvil (pid {}) in {:?}",
        anvil.pid(),
        started.elapsed()
    );
    assert_eq!(bed, in_process, "the same addresses as in-process");
    let a = world.addrs;

    let v3 = bed.uniswap_v3;
    let twap = v3.weth_dai.twap_tick(&node, TWAP_WINDOW).unwrap();
    assert!((twap.abs() - 69_081).abs() < 30, "{twap}");
    let quoted = v3.quote(&node, &v3.weth_dai, a.weth, ether(1)).unwrap();
    let dai_before = balance(&node, a.dai, a.account).unwrap();
    let swap = v3.exact_input_single(
        &v3.weth_dai,
        a.weth,
        ether(1),
        quoted,
        a.account,
        deadline(&node).unwrap(),
    );
    owner_execute(&mut node, &a, &swap).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        balance(&node, a.dai, a.account).unwrap() - dai_before,
        quoted
    );

    let aave = &bed.aave;
    let mut calls = aave.supply(a.weth, ether(10), a.account);
    calls.push(aave.borrow(a.dai, ether(4_000), a.account));
    owner_execute(&mut node, &a, &calls).unwrap_or_else(|e| panic!("{e}"));
    let debt = balance(&node, aave.dai.variable_debt_token, a.account).unwrap();
    assert!(
        debt >= ether(4_000) && debt - ether(4_000) < ether(1),
        "{debt}"
    );
    let data = aave.account_data(&node, a.account).unwrap();
    assert!(data.health_factor < U256::from(21u64) * ether(1) / U256::from(10));
    assert!(data.health_factor > ether(2), "{data:?}");
    drop(anvil);
}
