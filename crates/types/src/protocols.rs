//! What the simulator's protocol adapters read about the account's value in real protocols:
//! feed rounds with their age, Uniswap V3 positions, debts that are not token balances, the
//! addresses one protocol acts through, and the reads an adapter needed but could not make.
//!
//! Every fact names the contract it was read from (`oracle`, `manager`, `market`). The verifier
//! trusts a fact only when the policy trusts that contract (a feed it names in
//! `price_oracles`, a market or position manager among its `allowed_targets`); the simulator
//! reads what it can and judges nothing. Carried by [`crate::SimulationReport::protocols`]; an
//! older report without them parses with every list empty.

use crate::amount::{i256_dec, u256_dec};
use alloy_primitives::{Address, I256, U256};
use serde::{Deserialize, Serialize};

/// A token whose balance is a liability of the account, as a lending market says (an Aave V3
/// reserve's variable or stable debt token): a rise of its balance is debt taken on, a fall
/// debt repaid. Value conservation counts it as minus its `underlying`; the signer bounds how
/// much of it may arrive.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DebtToken {
    /// The debt token (its `balanceOf(account)` is what the account owes).
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// What is owed, one smallest unit per unit of the debt token.
    #[serde(with = "crate::strict::one")]
    pub underlying: Address,
    /// The market that says so (an Aave pool).
    #[serde(with = "crate::strict::one")]
    pub market: Address,
}

/// The latest round of an AggregatorV3 feed the policy names, read before the calls
/// (`decimals()`, `latestRoundData()`), with the decimals of the asset it prices and of its
/// quote (`decimals()` of each token; ether has 18). A decimals read that fails is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedRound {
    /// The feed.
    #[serde(with = "crate::strict::one")]
    pub oracle: Address,
    /// The asset the policy's entry says it prices.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// What the entry says the answer is in.
    #[serde(with = "crate::strict::one")]
    pub quote: Address,
    /// The feed's `decimals()`.
    #[serde(default)]
    pub decimals: Option<u8>,
    /// `token`'s `decimals()`.
    #[serde(default)]
    pub token_decimals: Option<u8>,
    /// `quote`'s `decimals()` (18 for ether).
    #[serde(default)]
    pub quote_decimals: Option<u8>,
    /// `roundId` (decimal string).
    #[serde(with = "u256_dec")]
    pub round_id: U256,
    /// `answer` (signed decimal string).
    #[serde(with = "i256_dec")]
    pub answer: I256,
    /// `startedAt` (decimal string).
    #[serde(with = "u256_dec")]
    pub started_at: U256,
    /// `updatedAt`, unix seconds (decimal string; 0 for a round not answered yet).
    #[serde(with = "u256_dec")]
    pub updated_at: U256,
    /// `answeredInRound` (decimal string).
    #[serde(with = "u256_dec")]
    pub answered_in_round: U256,
}

/// What one Uniswap V3 position holds at one moment: its liquidity, and what it is owed
/// (`tokensOwed` plus the fees earned since its last update, from the pool's fee growth).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct V3Liquidity {
    /// The position's liquidity (decimal string).
    #[serde(with = "u256_dec")]
    pub liquidity: U256,
    /// Token0 owed to it, uncollected fees included (decimal string).
    #[serde(with = "u256_dec")]
    pub owed0: U256,
    /// Token1 owed to it, uncollected fees included (decimal string).
    #[serde(with = "u256_dec")]
    pub owed1: U256,
}

/// A Uniswap V3 position NFT the account held before the calls, after them, or both, read from
/// its position manager (`positions(id)`) and its pool (fee growth).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct V3Position {
    /// The position manager (the NFT collection).
    #[serde(with = "crate::strict::one")]
    pub manager: Address,
    /// The NFT id (decimal string).
    #[serde(with = "u256_dec")]
    pub id: U256,
    /// The pool the liquidity is in (the manager's factory's pool for the position's tokens and fee).
    #[serde(with = "crate::strict::one")]
    pub pool: Address,
    /// The pool's token0.
    #[serde(with = "crate::strict::one")]
    pub token0: Address,
    /// The pool's token1.
    #[serde(with = "crate::strict::one")]
    pub token1: Address,
    /// The lower tick of the range.
    pub tick_lower: i32,
    /// The upper tick of the range.
    pub tick_upper: i32,
    /// `√(1.0001^tick_lower)` in Q64.96 (decimal string).
    #[serde(with = "u256_dec")]
    pub sqrt_lower_x96: U256,
    /// `√(1.0001^tick_upper)` in Q64.96 (decimal string).
    #[serde(with = "u256_dec")]
    pub sqrt_upper_x96: U256,
    /// What it held before the calls, if the account owned it then.
    #[serde(default)]
    pub before: Option<V3Liquidity>,
    /// What it holds after the calls, if the account owns it then.
    #[serde(default)]
    pub after: Option<V3Liquidity>,
}

/// A debt of the account that is no token balance (a Compound-style market's
/// `borrowBalanceCurrent`), before and after the calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LendingDebt {
    /// The market (a cToken).
    #[serde(with = "crate::strict::one")]
    pub market: Address,
    /// What is owed (the market's underlying).
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The debt before the calls (decimal string).
    #[serde(with = "u256_dec")]
    pub before: U256,
    /// The debt after the calls (decimal string).
    #[serde(with = "u256_dec")]
    pub after: U256,
}

/// The addresses one protocol acts through, which are one counterparty of the account: an Aave
/// market's pool and every reserve's aToken and debt tokens (a repay pays the aToken and
/// burns the debt token; a borrow mints the one and pays out of the other).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterpartyGroup {
    /// The market that declares the group (one of `members`).
    #[serde(with = "crate::strict::one")]
    pub market: Address,
    /// Every address of the group.
    #[serde(with = "crate::strict::list")]
    pub members: Vec<Address>,
}

/// A read an adapter needed and could not make (a position manager whose positions or pool
/// cannot be read, a market with more reserves than the simulator reads). What depends on it
/// is unknown, and unknown is refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterGap {
    /// The contract the adapter was reading.
    #[serde(with = "crate::strict::one")]
    pub via: Address,
    /// What could not be read.
    pub what: String,
}

/// Everything the protocol adapters read; see the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolFacts {
    /// The latest round of every feed the policy names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub feeds: Vec<FeedRound>,
    /// The account's Uniswap V3 positions in the position managers it called.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub v3_positions: Vec<V3Position>,
    /// The account's debts in Compound-style markets it called.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lending_debts: Vec<LendingDebt>,
    /// Protocols that act through several addresses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<CounterpartyGroup>,
    /// Reads that failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<AdapterGap>,
    /// Touched contracts that belong to a protocol the policy trusts by descriptor, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<ProtocolMember>,
    /// The code at each root of a trusted descriptor that pins it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub root_code: Vec<RootCode>,
}

/// A contract that belongs to a protocol by its descriptor's rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolMember {
    /// The contract.
    #[serde(with = "crate::strict::one")]
    pub contract: Address,
    /// The descriptor's id.
    pub protocol: String,
    /// The rule that admits it: `code_hash`, `implementation` or `registry`.
    pub rule: String,
}

/// What code runs at a pinned root, as the simulated state has it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RootCode {
    /// The descriptor's id.
    pub protocol: String,
    /// The root's name.
    pub root: String,
    /// Its address.
    #[serde(with = "crate::strict::one")]
    pub address: Address,
    /// `keccak256` of its code (`None`: no code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_hash: Option<alloy_primitives::B256>,
    /// `keccak256` of its EIP-1967 implementation's code (`None`: no implementation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation_code_hash: Option<alloy_primitives::B256>,
}

impl ProtocolFacts {
    /// Whether the adapters read nothing (the report then omits the field).
    pub fn is_empty(&self) -> bool {
        self.feeds.is_empty()
            && self.v3_positions.is_empty()
            && self.lending_debts.is_empty()
            && self.groups.is_empty()
            && self.gaps.is_empty()
            && self.members.is_empty()
            && self.root_code.is_empty()
    }

    /// The longest of the lists, for the verifier's size bound.
    pub fn longest(&self) -> usize {
        let members = self.groups.iter().map(|g| g.members.len()).max();
        [
            self.feeds.len(),
            self.v3_positions.len(),
            self.lending_debts.len(),
            self.groups.len(),
            self.gaps.len(),
            self.members.len(),
            self.root_code.len(),
            members.unwrap_or(0),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_facts_are_omitted_and_a_round_trips() {
        let empty = ProtocolFacts::default();
        assert!(empty.is_empty());
        assert_eq!(serde_json::to_string(&empty).unwrap(), "{}");
        let json = r#"{"feeds":[{"oracle":"0x0000000000000000000000000000000000000001","token":"0x0000000000000000000000000000000000000002","quote":"0x0000000000000000000000000000000000000000","decimals":8,"token_decimals":18,"quote_decimals":18,"round_id":"3","answer":"-5","started_at":"9","updated_at":"9","answered_in_round":"3"}]}"#;
        let facts: ProtocolFacts = serde_json::from_str(json).unwrap();
        assert_eq!(facts.feeds[0].answer, I256::try_from(-5).unwrap());
        assert_eq!(serde_json::to_string(&facts).unwrap(), json);
        assert_eq!(facts.longest(), 1);
    }
}
