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
