//! The price sources that the policy naming them is not enough to trust:
//!
//! - a feed of `price_oracles` prices only through its AggregatorV3 round (the report's
//!   [`FeedRound`]): a positive answer, a complete round (`updatedAt` set, `answeredInRound`
//!   at least `roundId`), no newer than the simulated block and at most its age bound older,
//!   at the policy's `scale` or, without one, at the scale the decimals imply;
//! - a Uniswap V3 pool of `price_v3_pools` prices only while its `slot0` price is within
//!   `max_price_impact_bps` of its TWAP (when it has one).
//!
//! A source that fails is not used, and the failure is a [`Problem`] the valuation reports.

use alloy_primitives::{Address, U256, U512};
use pace_types::{FeedRound, OraclePrice, Policy, PriceFact, PriceSource, ViolationCode as Code};

/// Why a trusted source could not price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The violation it is.
    pub(crate) code: Code,
    /// What went wrong, naming the source.
    pub(crate) message: String,
    /// The asset it could not price, if it was pricing one (that asset's refusal is this
    /// problem, not `UNPRICED_ASSET`).
    pub(crate) token: Option<Address>,
}

/// The most decimals a scale is computed for: `10^77` is the largest power of ten in 256 bits.
const MAX_EXPONENT: u32 = 77;

/// The round of `feed` in `rounds`.
fn round_of<'a>(feed: &OraclePrice, rounds: &'a [FeedRound]) -> Option<&'a FeedRound> {
    rounds
        .iter()
        .find(|r| r.oracle == feed.oracle && r.token == feed.token && r.quote == feed.quote)
}

/// `(amount, multiplier)`: `amount` of the token is worth `answer · multiplier` of the quote,
/// from the decimals of the feed and its two assets, when all three are known.
fn implied_scale(round: &FeedRound) -> Option<(U256, U256)> {
    let d = u32::from(round.decimals?);
    let t = u32::from(round.token_decimals?);
    let q = u32::from(round.quote_decimals?);
    let ten = |e: u32| (e <= MAX_EXPONENT).then(|| U256::from(10u8).pow(U256::from(e)));
    if d + t >= q {
        Some((ten(d + t - q)?, U256::from(1u8)))
    } else {
        Some((U256::from(1u8), ten(q - d - t)?))
    }
}

/// The rate of `feed` at `now` (the simulated block's timestamp): `(amount of the token, its
/// worth in the quote)`, or why it does not price; see the module docs.
pub(crate) fn feed_rate(
    policy: &Policy,
    feed: &OraclePrice,
    rounds: &[FeedRound],
    now: u64,
) -> Result<(U256, U256), Problem> {
    let problem = |code, what: String| Problem {
        code,
        message: format!(
            "feed {} (pricing token {} in {}) {what}",
            feed.oracle, feed.token, feed.quote
        ),
        token: Some(feed.token),
    };
    let Some(round) = round_of(feed, rounds) else {
        return Err(problem(
            Code::FeedUnreadable,
            "has no AggregatorV3 round the simulator could read (latestRoundData), so its age is unknown".into(),
        ));
    };
    if !round.answer.is_positive() {
        return Err(problem(
            Code::FeedInvalid,
            format!("answers {}, not a positive price", round.answer),
        ));
    }
    if round.updated_at.is_zero() || round.answered_in_round < round.round_id {
        return Err(problem(
            Code::FeedInvalid,
            format!(
                "has an incomplete round {} (updatedAt {}, answeredInRound {})",
                round.round_id, round.updated_at, round.answered_in_round
            ),
        ));
    }
    let now = U256::from(now);
    if round.updated_at > now {
        return Err(problem(
            Code::FeedInvalid,
            format!(
                "was updated at {}, after the simulated block's timestamp {now}",
                round.updated_at
            ),
        ));
    }
    let bound = policy.feed_age_bound_secs(feed);
    let age = now - round.updated_at;
    if age > U256::from(bound) {
        return Err(problem(
            Code::FeedStale,
            format!(
                "answered {age} s before the simulated block, more than its bound of {bound} s"
            ),
        ));
    }
    let answer = round.answer.into_raw();
    if !feed.scale.is_zero() {
        return Ok((feed.scale, answer));
    }
    let Some((amount, multiplier)) = implied_scale(round) else {
        return Err(problem(
            Code::FeedUnreadable,
            "has no scale in the policy, and its decimals or its tokens' cannot be read".into(),
        ));
    };
    Ok((amount, answer.saturating_mul(multiplier)))
}

/// The feeds of `policy` whose `scale` disagrees with the decimals the report read for them.
pub(crate) fn scale_mismatches(policy: &Policy, rounds: &[FeedRound]) -> Vec<Problem> {
    let mut out = Vec::new();
    for feed in policy.price_oracles.iter().filter(|f| !f.scale.is_zero()) {
        let Some(round) = round_of(feed, rounds) else {
            continue;
        };
        let Some((amount, multiplier)) = implied_scale(round) else {
            continue;
        };
        if multiplier != U256::from(1u8) || amount != feed.scale {
            let implied = if multiplier == U256::from(1u8) {
                amount.to_string()
            } else {
                format!("1 (the answer times {multiplier})")
            };
            out.push(Problem {
                code: Code::FeedScaleMismatch,
                message: format!(
                    "price_oracles gives feed {} (token {}) the scale {}, but its decimals ({:?}, token {:?}, quote {:?}) make it {implied}",
                    feed.oracle,
                    feed.token,
                    feed.scale,
                    round.decimals,
                    round.token_decimals,
                    round.quote_decimals
                ),
                token: None,
            });
        }
    }
    out
}

/// `|a/b - c/d|` relative to `c/d`, in bps rounded down (`U32::MAX` when `c/d` is 0).
pub(crate) fn divergence_bps(a: U256, b: U256, c: U256, d: U256) -> u64 {
    let (x, y) = (U512::from(a) * U512::from(d), U512::from(c) * U512::from(b));
    if y.is_zero() {
        return u64::from(u32::MAX);
    }
    let diff = if x > y { x - y } else { y - x };
    let bps = diff * U512::from(10_000u64) / y;
    u64::try_from(bps).unwrap_or(u64::MAX)
}

/// Why the V3 rate `fact` must not be used: its pool's `slot0` and TWAP rates for the same
/// token differ by more than the policy's `max_price_impact_bps`. `None` when they agree or
/// the pool has one of the two only.
pub(crate) fn v3_divergence(
    policy: &Policy,
    fact: &PriceFact,
    facts: &[PriceFact],
) -> Option<Problem> {
    let other_kind = match fact.source {
        PriceSource::V3Twap => PriceSource::V3Spot,
        PriceSource::V3Spot => PriceSource::V3Twap,
        _ => return None,
    };
    let [leg] = fact.worth.as_slice() else {
        return None;
    };
    let other = facts.iter().find(|f| {
        f.source == other_kind
            && f.via == fact.via
            && f.token == fact.token
            && matches!(f.worth.as_slice(), [l] if l.token == leg.token)
    })?;
    let (spot, twap) = if fact.source == PriceSource::V3Spot {
        (fact, other)
    } else {
        (other, fact)
    };
    let bps = divergence_bps(
        spot.worth[0].amount,
        spot.amount,
        twap.worth[0].amount,
        twap.amount,
    );
    let bound = policy.max_price_impact_bps;
    (bps > u64::from(bound)).then(|| Problem {
        code: Code::PoolPriceDiverges,
        message: format!(
            "Uniswap V3 pool {}: its slot0 price of token {} is {bps} bps from its TWAP, more than max_price_impact_bps {bound}",
            fact.via, fact.token
        ),
        token: Some(fact.token),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::I256;

    fn round(answer: i64, updated_at: u64, decimals: [Option<u8>; 3]) -> FeedRound {
        FeedRound {
            oracle: Address::repeat_byte(7),
            token: Address::repeat_byte(2),
            quote: Address::ZERO,
            decimals: decimals[0],
            token_decimals: decimals[1],
            quote_decimals: decimals[2],
            round_id: U256::from(5u8),
            answer: I256::try_from(answer).unwrap(),
            started_at: U256::from(updated_at),
            updated_at: U256::from(updated_at),
            answered_in_round: U256::from(5u8),
        }
    }

    fn feed(scale: u64) -> OraclePrice {
        OraclePrice {
            oracle: Address::repeat_byte(7),
            token: Address::repeat_byte(2),
            quote: Address::ZERO,
            scale: U256::from(scale),
            max_age_secs: None,
        }
    }

    const DECIMALS: [Option<u8>; 3] = [Some(8), Some(6), Some(18)];

    #[test]
    fn a_fresh_complete_positive_round_prices_at_its_implied_scale() {
        let p = Policy::default();
        // 8 + 6 - 18 = -4: one unit of the token is worth answer · 10^4 wei.
        let rounds = [round(100_000_000, 1_000, DECIMALS)];
        assert_eq!(
            feed_rate(&p, &feed(0), &rounds, 1_000),
            Ok((U256::from(1u8), U256::from(1_000_000_000_000u64)))
        );
        // With 18-decimal tokens: 10^8 of the token per answer.
        let rounds = [round(5, 1_000, [Some(8), Some(18), Some(18)])];
        assert_eq!(
            feed_rate(&p, &feed(0), &rounds, 1_000),
            Ok((U256::from(100_000_000u64), U256::from(5u8)))
        );
        // The policy's scale, when given, is what prices.
        assert_eq!(
            feed_rate(&p, &feed(7), &rounds, 1_000),
            Ok((U256::from(7u8), U256::from(5u8)))
        );
    }

    #[test]
    fn stale_invalid_incomplete_and_unreadable_feeds_do_not_price() {
        let mut p = Policy::default();
        let code = |r: Result<(U256, U256), Problem>| r.map_err(|e| e.code);
        let day = 86_400;
        let ok = [round(1, 10, DECIMALS)];
        assert!(feed_rate(&p, &feed(0), &ok, 10 + day).is_ok());
        assert_eq!(
            code(feed_rate(&p, &feed(0), &ok, 11 + day)),
            Err(Code::FeedStale)
        );
        // A feed's own bound beats the policy's, which beats the default.
        p.max_feed_age_secs = Some(5);
        assert_eq!(code(feed_rate(&p, &feed(0), &ok, 16)), Err(Code::FeedStale));
        let mut own = feed(0);
        own.max_age_secs = Some(100);
        assert!(feed_rate(&p, &own, &ok, 16).is_ok());
        for bad in [
            round(0, 10, DECIMALS),
            round(-3, 10, DECIMALS),
            round(1, 0, DECIMALS),
        ] {
            assert_eq!(
                code(feed_rate(&p, &feed(0), &[bad], 12)),
                Err(Code::FeedInvalid)
            );
        }
        let mut stale_round = round(1, 10, DECIMALS);
        stale_round.answered_in_round = U256::from(4u8);
        assert_eq!(
            code(feed_rate(&p, &feed(0), &[stale_round], 12)),
            Err(Code::FeedInvalid)
        );
        // Updated after the block it is judged at.
        assert_eq!(
            code(feed_rate(&p, &feed(0), &ok, 9)),
            Err(Code::FeedInvalid)
        );
        assert_eq!(
            code(feed_rate(&p, &feed(0), &[], 12)),
            Err(Code::FeedUnreadable)
        );
        let no_decimals = [round(1, 10, [None, Some(6), Some(18)])];
        assert_eq!(
            code(feed_rate(&p, &feed(0), &no_decimals, 12)),
            Err(Code::FeedUnreadable)
        );
        // With a scale, the decimals are not needed.
        assert!(feed_rate(&p, &feed(3), &no_decimals, 12).is_ok());
    }

    #[test]
    fn a_scale_that_disagrees_with_the_decimals_is_found() {
        let policy = |scale| Policy {
            price_oracles: vec![feed(scale)],
            ..Policy::default()
        };
        let rounds = [round(1, 10, [Some(8), Some(18), Some(18)])];
        assert!(scale_mismatches(&policy(100_000_000), &rounds).is_empty());
        assert!(scale_mismatches(&policy(0), &rounds).is_empty());
        let bad = scale_mismatches(&policy(1_000_000), &rounds);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].code, Code::FeedScaleMismatch);
        // A negative exponent has no whole scale: any scale disagrees.
        assert_eq!(
            scale_mismatches(&policy(1), &[round(1, 10, DECIMALS)]).len(),
            1
        );
        // Unknown decimals: nothing to compare.
        assert!(scale_mismatches(&policy(9), &[round(1, 10, [None, None, None])]).is_empty());
    }

    #[test]
    fn divergence_is_relative_to_the_twap() {
        let u = U256::from;
        assert_eq!(divergence_bps(u(101u8), u(1u8), u(100u8), u(1u8)), 100);
        assert_eq!(divergence_bps(u(99u8), u(1u8), u(100u8), u(1u8)), 100);
        assert_eq!(divergence_bps(u(202u8), u(2u8), u(100u8), u(1u8)), 100);
        assert_eq!(
            divergence_bps(u(1u8), u(1u8), u(0u8), u(1u8)),
            u64::from(u32::MAX)
        );
    }
}
