//! AggregatorV3 feeds: the latest round of every feed the policy names, read before the calls,
//! with `decimals()` of the feed and of the asset it prices and its quote (ether: 18), so the
//! verifier can judge the answer's sign, the round's completeness, its age against the
//! simulated block and the scale the policy gives (or compute it).
//!
//! A feed without `latestRoundData` gives no round (its age is unknown: the verifier refuses
//! it); a decimals read that fails is recorded as unknown.

use alloy_primitives::{Address, I256};
use pace_abi::{bindings::IERC20, protocols::IAggregatorV3};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{ETH, FeedRound, OraclePrice};

use super::view;
use crate::{error::Result, fork::Viewer};

/// The rounds of `oracles`, one per distinct (feed, token, quote), in policy order.
pub(super) fn rounds<D: DatabaseRef<Error = ForkError>>(
    oracles: &[OraclePrice],
    before: &mut Viewer<'_, '_, D>,
) -> Result<Vec<FeedRound>> {
    let mut out: Vec<FeedRound> = Vec::new();
    for entry in oracles {
        let seen = out
            .iter()
            .any(|r| r.oracle == entry.oracle && r.token == entry.token && r.quote == entry.quote);
        if seen {
            continue;
        }
        let Some(round) = view(before, entry.oracle, &IAggregatorV3::latestRoundDataCall {})?
        else {
            continue;
        };
        let decimals = view(before, entry.oracle, &IAggregatorV3::decimalsCall {})?;
        out.push(FeedRound {
            oracle: entry.oracle,
            token: entry.token,
            quote: entry.quote,
            decimals,
            token_decimals: token_decimals(before, entry.token)?,
            quote_decimals: token_decimals(before, entry.quote)?,
            round_id: alloy_primitives::U256::from(round.roundId),
            answer: I256::from_raw(round.answer.into_raw()),
            started_at: round.startedAt,
            updated_at: round.updatedAt,
            answered_in_round: alloy_primitives::U256::from(round.answeredInRound),
        });
    }
    Ok(out)
}

/// `decimals()` of a token (18 for ether).
fn token_decimals<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    token: Address,
) -> Result<Option<u8>> {
    if token == ETH {
        return Ok(Some(18));
    }
    view(viewer, token, &IERC20::decimalsCall {})
}

/// The read-only calls made to a feed, for [`crate::prefetch`].
pub(crate) fn probes() -> Vec<Vec<u8>> {
    use alloy_sol_types::SolCall;
    vec![
        IAggregatorV3::latestRoundDataCall {}.abi_encode(),
        IAggregatorV3::decimalsCall {}.abi_encode(),
    ]
}
