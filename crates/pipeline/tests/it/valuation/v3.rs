//! Uniswap V3 priced by V3 pools: a swap and an LP mint approved, executed through the
//! pipeline, and read back equal to their simulation.

use super::support::{less_bps, reads_back, v3_policy};
use crate::protocols_bed::{bed, codes};
use alloy_primitives::U256;
use pace_testkit::protocols::{ether, uniswap_v3::deadline};

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
