//! The AggregatorV3 feeds: fresh, stale, incomplete and negative rounds, and Aave's oracle
//! following them.

use crate::common::bed;
use alloy_primitives::{I256, U256};
use pace_testkit::protocols::{
    bindings::AaveOracle,
    feeds::{FEED_DECIMALS, Feeds, Round, usd},
};

#[test]
fn rounds_update_and_can_be_made_stale_incomplete_or_negative() {
    let (mut world, bed) = bed();
    let feeds = bed.feeds;
    let feed = feeds.eth_usd;
    let first = Feeds::latest(&world.evm, feed).unwrap();
    assert_eq!((first.round_id, first.answer), (1, usd(1_000)));
    assert_eq!(first.answered_in_round, 1);

    world.advance(10);
    feeds.update(&mut world.evm, feed, usd(1_100)).unwrap();
    let second = Feeds::latest(&world.evm, feed).unwrap();
    assert_eq!((second.round_id, second.answer), (2, usd(1_100)));
    assert_eq!(second.updated_at, world.evm.timestamp());
    let oracle = world
        .evm
        .view_sol(
            bed.aave.oracle,
            &AaveOracle::getAssetPriceCall {
                asset: world.addrs.weth,
            },
        )
        .unwrap();
    assert_eq!(
        oracle,
        U256::from(1_100u64) * U256::from(10u64.pow(u32::from(FEED_DECIMALS)))
    );

    let stale = Round {
        round_id: 3,
        answer: I256::try_from(-1).unwrap(),
        started_at: 100,
        updated_at: 0,
        answered_in_round: 2,
    };
    feeds.set_round(&mut world.evm, feed, stale).unwrap();
    assert_eq!(Feeds::latest(&world.evm, feed).unwrap(), stale);
    // Only the feeds' owner sets rounds.
    let a = world.addrs;
    let update =
        pace_testkit::protocols::bindings::MockAggregatorV3::updateAnswerCall { answer: usd(1) };
    assert!(
        world
            .evm
            .call_sol(a.attacker, feed, U256::ZERO, &update)
            .is_err()
    );
}
