//! Chainlink-style USD price feeds ([`MockAggregatorV3`], 8 decimals) for the world's tokens,
//! shared by Aave's oracle and the Compound-style comptroller.

use super::{
    bindings::MockAggregatorV3,
    chain::{Chain, Context as _, Result},
};
use alloy_primitives::{Address, I256, U256};
use alloy_sol_types::SolConstructor;

/// Decimals of every feed's answer (Chainlink's USD feeds have 8).
pub const FEED_DECIMALS: u8 = 8;
/// The starting USD price of one WETH (the world's oracle and Uniswap V2 pair: 1,000 DAI).
pub const ETH_USD: i64 = 1_000;

/// The deployed feeds and their owner (who may set their rounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feeds {
    /// May call `updateAnswer` and `setRoundData`.
    pub owner: Address,
    /// ETH / USD, starting at [`ETH_USD`].
    pub eth_usd: Address,
    /// DAI / USD, starting at 1.
    pub dai_usd: Address,
    /// USDC / USD, starting at 1.
    pub usdc_usd: Address,
}

/// `usd` whole dollars as an answer with [`FEED_DECIMALS`].
pub fn usd(usd: i64) -> I256 {
    I256::try_from(usd).expect("i64 fits")
        * I256::try_from(10i64.pow(u32::from(FEED_DECIMALS))).expect("fits")
}

impl Feeds {
    /// Deploys the three feeds from `owner`, each with a fresh round 1.
    pub fn deploy<C: Chain>(chain: &mut C, owner: Address) -> Result<Self> {
        let mut feed = |description: &str, dollars: i64| {
            let ctor = MockAggregatorV3::constructorCall {
                decimals_: FEED_DECIMALS,
                description_: description.into(),
                initialAnswer: usd(dollars),
            };
            let code = super::embedded("MockAggregatorV3")?.deploy_code(&ctor.abi_encode());
            chain
                .deploy(owner, code)
                .step(format!("deploy the {description} feed"))
        };
        Ok(Self {
            owner,
            eth_usd: feed("ETH / USD", ETH_USD)?,
            dai_usd: feed("DAI / USD", 1)?,
            usdc_usd: feed("USDC / USD", 1)?,
        })
    }

    /// Opens the next round of `feed` with `answer` (8 decimals), now: a fresh, complete round.
    pub fn update<C: Chain>(&self, chain: &mut C, feed: Address, answer: I256) -> Result<()> {
        chain
            .send_sol(
                self.owner,
                feed,
                &MockAggregatorV3::updateAnswerCall { answer },
            )
            .step("update a feed")
    }

    /// Writes a round of `feed` with exactly these fields and makes it the latest (a stale,
    /// incomplete or non-positive round).
    pub fn set_round<C: Chain>(&self, chain: &mut C, feed: Address, round: Round) -> Result<()> {
        let call = MockAggregatorV3::setRoundDataCall {
            roundId: alloy_primitives::Uint::from(round.round_id),
            answer: round.answer,
            startedAt: U256::from(round.started_at),
            updatedAt: U256::from(round.updated_at),
            answeredInRound: alloy_primitives::Uint::from(round.answered_in_round),
        };
        chain
            .send_sol(self.owner, feed, &call)
            .step("set a feed round")
    }

    /// The latest round of `feed`.
    pub fn latest<C: Chain>(chain: &C, feed: Address) -> Result<Round> {
        let r = chain.view_sol(feed, &MockAggregatorV3::latestRoundDataCall {})?;
        Ok(Round {
            round_id: r.roundId.to(),
            answer: r.answer,
            started_at: r.startedAt.to(),
            updated_at: r.updatedAt.to(),
            answered_in_round: r.answeredInRound.to(),
        })
    }
}

/// One round of a feed, as `latestRoundData` returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    /// The round id.
    pub round_id: u64,
    /// The answer ([`FEED_DECIMALS`] decimals).
    pub answer: I256,
    /// When the round started.
    pub started_at: u64,
    /// When it was answered (0: incomplete).
    pub updated_at: u64,
    /// The round the answer was computed in.
    pub answered_in_round: u64,
}
