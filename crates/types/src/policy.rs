//! The user's [`Policy`] and its load-time compiled form, [`CompiledPolicy`].
//!
//! The policy is the only trusted input that shapes a decision. Allowlists that are empty
//! allow nothing. Omitted booleans default to the safe side (`forbid_unlimited_approval` and
//! `require_simulation` default to `true`, every check switch to on); numeric bounds must be
//! written out.

use crate::{
    amount::u256_dec,
    checks::CheckSwitches,
    error::{Error, Result, one_line},
    hash::{POLICY_DOMAIN, content_hash},
    intent::TokenAmount,
    load,
    units::Bps,
};
use alloy_primitives::{Address, B256, FixedBytes, U256};
use regex::{RegexSet, RegexSetBuilder};
use serde::{Deserialize, Serialize};

/// A 4-byte function selector.
pub type Selector = FixedBytes<4>;

/// A user policy: what the agent may do. Versioned by [`Policy::policy_hash`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The policy file format this document is written in ([`POLICY_SCHEMA`] when omitted).
    /// A build refuses any other version at [`Policy::compile`] rather than reading it wrongly.
    /// Not serialised when it is the current one, so it leaves the policy hash of a current
    /// document unchanged.
    #[serde(default = "current_schema", skip_serializing_if = "is_current_schema")]
    pub schema: u32,
    /// A human label; part of the hash.
    #[serde(default)]
    pub name: Option<String>,
    /// The chain the policy governs. When set, an intent for any other chain is rejected
    /// (`CHAIN_MISMATCH`), so a PDR can never be signed for a chain the policy was not written
    /// for. Unset: any chain.
    #[serde(default)]
    pub chain_id: Option<u64>,
    /// The smart account the policy governs. When set, an intent for any other account is
    /// rejected (`ACCOUNT_MISMATCH`): one verifier key serving several accounts cannot have a
    /// lax account's policy approve a strict account's intent. Unset: any account.
    #[serde(default)]
    #[serde(with = "crate::strict::opt")]
    pub account: Option<Address>,
    /// Contracts the account may call.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub allowed_targets: Vec<Address>,
    /// Function selectors the account may call (0x-hex, 4 bytes).
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub allowed_selectors: Vec<Selector>,
    /// ERC-20 tokens the intent may touch. Ether ([`crate::ETH`]) is governed by
    /// `max_value_wei` instead and is always allowed here.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub allowed_tokens: Vec<Address>,
    /// Selectors that are never allowed, whatever the allowlist says.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub blocked_selectors: Vec<Selector>,
    /// Per-token maximum gross outflow per intent. A token without a cap may not leave the
    /// account at all (ether is capped by `max_value_wei`, and also here if listed).
    #[serde(default)]
    pub spend_caps: Vec<TokenAmount>,
    /// Spending budgets across intents: at most `limit` of a token may leave the account
    /// through PDRs per period. The verifier cannot remember past intents, so a budget must be
    /// enforced on-chain by the account (`PaceAccount.setBudget`), at least as strictly; the
    /// simulation report carries the account's on-chain budgets, and an intent is rejected
    /// when a budget is not enforced (`BUDGET_NOT_ENFORCED`) or when its outflow would exceed
    /// what is left of the current period (`BUDGET_EXCEEDED`).
    #[serde(default)]
    pub budgets: Vec<PeriodBudget>,
    /// Maximum wei per intent: the sum of call values, and the traced ether outflow.
    #[serde(with = "u256_dec")]
    pub max_value_wei: U256,
    /// Reject unlimited approvals (>= 2^128) and approvals above the token's spend cap.
    #[serde(default = "yes")]
    pub forbid_unlimited_approval: bool,
    /// Maximum slippage tolerance, in bps.
    pub max_slippage_bps: Bps,
    /// Maximum price impact of a swap (shortfall against the pre-trade mid price), in bps.
    pub max_price_impact_bps: Bps,
    /// Reject intents that come without a simulation report.
    #[serde(default = "yes")]
    pub require_simulation: bool,
    /// Maximum age of the simulated state at decision time, in seconds.
    pub max_simulation_age_secs: u64,
    /// Contracts the execution may touch besides the allowed targets, the allowed tokens and
    /// the account itself (pools, for instance). Also the allowed approval spenders and token
    /// recipients besides the allowed targets.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub allowed_touched: Vec<Address>,
    /// Contracts the user trusts to record things under opaque values the account passes
    /// them (an order book's pre-signed order digests, any record keyed by a hash the calls
    /// supply whole): the user has read what such a record authorises, which the simulator
    /// cannot. Elsewhere such a record is refused (`OPAQUE_AUTHORIZATION`). Empty by default.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "crate::strict::list"
    )]
    pub opaque_key_targets: Vec<Address>,
    /// Routers whose plans may hold commands the decoder does not read (Universal Router
    /// transfers, V4 swaps, position and sub-plan commands, commands allowed to revert): the
    /// user accepts that such a plan is judged by the general rules alone (movements, value,
    /// outcome bounds), with no minimum or recipient read from it. Elsewhere such a plan is
    /// refused (`PLAN_NOT_DECODED`). Empty by default.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "crate::strict::list"
    )]
    pub opaque_plan_routers: Vec<Address>,
    /// Contracts the user trusts to keep positions keyed by the account that no adapter reads
    /// (a lending market, a staking or reward contract): the user has read what such a
    /// position owes, which the simulator cannot. Elsewhere a contract that pays the account
    /// out while a slot it keys by the account grows is refused as unread debt
    /// (`DEBT_UNREADABLE`), and one whose slot falls, under `min_health_factor_bps`, as a
    /// health factor that cannot be read. Empty by default.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "crate::strict::list"
    )]
    pub unread_position_targets: Vec<Address>,
    /// Who the account may pay directly: the recipients of its `transfer` / `transferFrom`
    /// calls and of plain ether payments (payees). A direct transfer to anyone else is refused even if they are an allowed
    /// target or touched contract (a token sent straight into a pool or a router can be taken
    /// by whoever asks next). Recipients in the trace (a pool receiving a swap's input) are
    /// judged against the targets, the touched contracts and these.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub allowed_recipients: Vec<Address>,
    /// Protocol fee collectors (a Uniswap V2 `feeTo`, a fee-on-transfer token's treasury, a
    /// vault's fee sink): movements to them are allowed, and their value counts as a loss in
    /// value conservation. Any other receiver outside the account, the counterparties and the
    /// payees is a stranger.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub fee_recipients: Vec<Address>,
    /// Prices the user sets: the first source of value conservation.
    #[serde(default)]
    pub prices: Vec<TablePrice>,
    /// Price feeds the user trusts (second source).
    #[serde(default)]
    pub price_oracles: Vec<OraclePrice>,
    /// ERC-4626 vaults whose `convertToAssets` the user trusts to value their shares (third
    /// source).
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub price_vaults: Vec<Address>,
    /// Constant-product pools whose pre-execution reserves the user trusts to price one side
    /// in the other, and to value their LP tokens (fourth source). A pool not listed here,
    /// for instance one an attacker seeded, prices nothing.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub price_pools: Vec<Address>,
    // Protocol valuation (adapters).
    /// Uniswap V3 pools whose prices the user trusts (after `price_pools`): each prices its
    /// two tokens at its 30-minute time-weighted average (`observe`), or at its current
    /// `slot0` price when marked `spot`. A pool without the observations has no TWAP; one whose
    /// `slot0` and TWAP differ by more than `max_price_impact_bps` is refused
    /// (`POOL_PRICE_DIVERGES`). Omitted: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub price_v3_pools: Vec<V3PoolPrice>,
    /// The oldest a feed's answer may be (the simulated block's timestamp minus the round's
    /// `updatedAt`), in seconds, for every feed of `price_oracles` that sets no
    /// `max_age_secs` of its own. Unset: [`DEFAULT_MAX_FEED_AGE_SECS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_feed_age_secs: Option<u64>,
    /// Minimum health factor after execution, in bps (1.0 = 10 000), when a lending position
    /// is involved.
    #[serde(default)]
    pub min_health_factor_bps: Option<Bps>,
    // Rights and lending health (adapters).
    /// ERC-721 collections: an `approve(address,uint256)` on one approves one item (the
    /// argument is its id), not an amount of a fungible token. For a target not listed, the
    /// state after the calls decides (`getApproved(id)` against `allowance`), and an approval
    /// that stays ambiguous is judged both ways. Omitted: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(with = "crate::strict::list")]
    pub nft_collections: Vec<Address>,
    /// Maximum loss of value, in bps of the notional (the pre-execution value of what leaves
    /// the account): the bound of value conservation over the account's whole delta, and of
    /// a measured swap's loss. Unset: [`DEFAULT_MAX_LOSS_BPS`].
    #[serde(default)]
    pub max_loss_bps: Option<Bps>,
    /// Regexes (Rust `regex` syntax) that no metadata key or value may match.
    #[serde(default)]
    pub metadata_patterns: Vec<String>,
    /// How far, in bps, the realised on-chain outcome may fall short of the simulated one
    /// before the account reverts (used when the signed outcome bounds are set).
    #[serde(default)]
    pub outcome_tolerance_bps: Bps,
    /// Protocols the user trusts by descriptor ([`crate::descriptor`]), each pinned by its
    /// content hash: their entry points are allowed targets and selectors, their roots and
    /// members allowed counterparties, and a pinned root whose code changed refuses
    /// (`PROTOCOL_CODE_CHANGED`). Omitted: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protocols: Vec<ProtocolPin>,
    /// Which checks run (all by default).
    #[serde(default)]
    pub checks: CheckSwitches,
}

/// A protocol descriptor a policy trusts, pinned by its content hash.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolPin {
    /// The descriptor's file, relative to the policy's (`pace` reads it into `descriptor`
    /// when it loads the policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// [`crate::descriptor::Descriptor::hash`] of the descriptor trusted.
    pub hash: B256,
    /// The descriptor, written inline or read from `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptor: Option<crate::descriptor::Descriptor>,
}

impl From<crate::descriptor::Descriptor> for ProtocolPin {
    /// The descriptor written inline, pinned by its own hash.
    fn from(descriptor: crate::descriptor::Descriptor) -> Self {
        Self {
            file: None,
            hash: descriptor.hash(),
            descriptor: Some(descriptor),
        }
    }
}

/// A spending budget: at most `limit` of `token` (ether: [`crate::ETH`]) leaves the account
/// through PDRs per `period_secs`, in total.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodBudget {
    /// The token.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The most that may leave per period, in the token's smallest unit (decimal string; at
    /// most 2^128 - 1, the account's limit type).
    #[serde(with = "u256_dec")]
    pub limit: U256,
    /// The period, in seconds (at least 1).
    pub period_secs: u64,
}

/// The loss bound of a policy that sets no `max_loss_bps`: 1 %.
pub const DEFAULT_MAX_LOSS_BPS: Bps = 100;

/// The feed age bound of a policy that sets no `max_feed_age_secs`: one day.
pub const DEFAULT_MAX_FEED_AGE_SECS: u64 = 86_400;

/// A Uniswap V3 pool the user trusts to price its tokens (see [`Policy::price_v3_pools`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct V3PoolPrice {
    /// The pool.
    #[serde(with = "crate::strict::one")]
    pub pool: Address,
    /// Price at `slot0` instead of the TWAP (for a pool without the observations; a price
    /// anyone can move within the block, so only for pools the user accepts that of).
    #[serde(default, skip_serializing_if = "is_false")]
    pub spot: bool,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
const fn is_false(b: &bool) -> bool {
    !*b
}

/// A price the user sets: `amount` of `token` (smallest units) is worth `value` wei. Ether is
/// always worth itself; wrapped ether needs an entry (`amount` = `value`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablePrice {
    /// The asset.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// How much of it (decimal string, not 0).
    #[serde(with = "u256_dec")]
    pub amount: U256,
    /// Its worth in wei (decimal string).
    #[serde(with = "u256_dec")]
    pub value: U256,
}

/// A price feed the user trusts: `scale` of `token` (smallest units) is worth the feed's
/// answer in `quote` (smallest units). For a Chainlink feed of `token`/`quote` with `d`
/// decimals, `scale` is `10^(d + token decimals - quote decimals)` when that is whole; omitted
/// (or 0), it is computed from the decimals the feed and the tokens report, and a `scale` that
/// disagrees with them refuses every intent (`FEED_SCALE_MISMATCH`). Only AggregatorV3 feeds
/// price: an answer must be positive, its round complete and at most `max_age_secs` old.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OraclePrice {
    /// The feed: an AggregatorV3 (`latestRoundData()`, `decimals()`); a feed that answers
    /// only `latestAnswer()` or `price()` prices nothing (`FEED_UNREADABLE`).
    #[serde(with = "crate::strict::one")]
    pub oracle: Address,
    /// The asset priced.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// What the answer is in ([`crate::ETH`] for wei).
    #[serde(with = "crate::strict::one")]
    pub quote: Address,
    /// How much of `token` the answer is for (decimal string); omitted or 0: from the
    /// decimals.
    #[serde(default, skip_serializing_if = "U256::is_zero", with = "u256_dec")]
    pub scale: U256,
    // Protocol valuation (adapters).
    /// The oldest this feed's answer may be, in seconds. Unset: the policy's
    /// `max_feed_age_secs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_secs: Option<u64>,
}

const fn yes() -> bool {
    true
}

/// The policy file format this build reads: the `schema` field of a policy document. It moves
/// with [`POLICY_DOMAIN`]'s version (`PACE-RS/policy/v3`), which keeps policies of different
/// formats from sharing a hash.
pub const POLICY_SCHEMA: u32 = 3;

const fn current_schema() -> u32 {
    POLICY_SCHEMA
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
const fn is_current_schema(schema: &u32) -> bool {
    *schema == POLICY_SCHEMA
}

impl Policy {
    /// The descriptors the policy trusts.
    pub fn descriptors(&self) -> impl Iterator<Item = &crate::descriptor::Descriptor> {
        self.protocols.iter().filter_map(|p| p.descriptor.as_ref())
    }

    /// Reads the descriptor of every `protocols` pin that names a `file` and has none inline,
    /// the file relative to `dir` (the policy's own directory). Compiling checks each against
    /// its pinned hash.
    pub fn read_protocol_files(&mut self, dir: &std::path::Path) -> Result<()> {
        for (i, pin) in self.protocols.iter_mut().enumerate() {
            if let (Some(file), None) = (&pin.file, &pin.descriptor) {
                let path = dir.join(file);
                let field = format!("protocols[{i}].file");
                let bytes = std::fs::read(&path).map_err(|e| {
                    Error::invalid(&field, format!("{}: cannot read: {e}", path.display()))
                })?;
                let descriptor = crate::descriptor::Descriptor::from_json_slice(&bytes)
                    .map_err(|e| Error::invalid(&field, format!("{}: {e}", path.display())))?;
                pin.descriptor = Some(descriptor);
            }
        }
        Ok(())
    }

    /// Whether the user lets the agent call `a`: one of `allowed_targets`, or an entry point's
    /// root of a trusted descriptor (and so trusts it to report what it holds for the account,
    /// as a lending market does).
    pub fn is_target(&self, a: &Address) -> bool {
        self.allowed_targets.contains(a)
            || self.descriptors().any(|d| {
                d.entry_points
                    .iter()
                    .any(|e| d.root(&e.root).is_some_and(|r| r.address == *a))
            })
    }
}

impl Default for Policy {
    /// The strictest policy: nothing allowed, every bound zero, every check on.
    fn default() -> Self {
        Self {
            schema: POLICY_SCHEMA,
            name: None,
            chain_id: None,
            account: None,
            allowed_targets: Vec::new(),
            allowed_selectors: Vec::new(),
            allowed_tokens: Vec::new(),
            blocked_selectors: Vec::new(),
            spend_caps: Vec::new(),
            budgets: Vec::new(),
            max_value_wei: U256::ZERO,
            forbid_unlimited_approval: true,
            max_slippage_bps: 0,
            max_price_impact_bps: 0,
            require_simulation: true,
            max_simulation_age_secs: 0,
            allowed_touched: Vec::new(),
            opaque_key_targets: Vec::new(),
            opaque_plan_routers: Vec::new(),
            unread_position_targets: Vec::new(),
            allowed_recipients: Vec::new(),
            fee_recipients: Vec::new(),
            prices: Vec::new(),
            price_oracles: Vec::new(),
            price_vaults: Vec::new(),
            price_pools: Vec::new(),
            price_v3_pools: Vec::new(),
            max_feed_age_secs: None,
            min_health_factor_bps: None,
            nft_collections: Vec::new(),
            protocols: Vec::new(),
            max_loss_bps: None,
            metadata_patterns: Vec::new(),
            outcome_tolerance_bps: 0,
            checks: CheckSwitches::all_on(),
        }
    }
}

impl Policy {
    /// The content hash `keccak256("PACE-RS/policy/v3\n" || canonical JSON)`; see [`crate::hash`].
    pub fn policy_hash(&self) -> B256 {
        content_hash(POLICY_DOMAIN, self)
    }

    /// Parses a policy from JSON text (without compiling its patterns).
    pub fn from_json_str(json: &str) -> Result<Self> {
        load::from_str(json)
    }

    /// Parses a policy from JSON bytes (without compiling its patterns).
    pub fn from_json_slice(json: &[u8]) -> Result<Self> {
        load::from_slice(json)
    }

    /// The spend cap for `token`, if the policy lists one.
    pub fn spend_cap(&self, token: Address) -> Option<U256> {
        self.spend_caps
            .iter()
            .find(|c| c.token == token)
            .map(|c| c.amount)
    }

    /// The loss bound of value conservation: `max_loss_bps`, or [`DEFAULT_MAX_LOSS_BPS`].
    pub fn loss_bound_bps(&self) -> Bps {
        self.max_loss_bps.unwrap_or(DEFAULT_MAX_LOSS_BPS)
    }

    /// The addresses a valuation source may be: the feeds, vaults and pools (V2 and V3) the
    /// policy names (for the simulator to read their rates).
    pub fn price_sources(&self) -> impl Iterator<Item = Address> + '_ {
        self.price_oracles
            .iter()
            .map(|o| o.oracle)
            .chain(self.price_vaults.iter().copied())
            .chain(self.price_pools.iter().copied())
            .chain(self.price_v3_pools.iter().map(|p| p.pool))
    }

    /// The age bound of `feed` (an entry of `price_oracles`): its own `max_age_secs`, else
    /// `max_feed_age_secs`, else [`DEFAULT_MAX_FEED_AGE_SECS`].
    pub fn feed_age_bound_secs(&self, feed: &OraclePrice) -> u64 {
        feed.max_age_secs
            .or(self.max_feed_age_secs)
            .unwrap_or(DEFAULT_MAX_FEED_AGE_SECS)
    }

    /// The budget of `token`, if the policy sets one.
    pub fn budget(&self, token: Address) -> Option<&PeriodBudget> {
        self.budgets.iter().find(|b| b.token == token)
    }

    /// Validates the policy and compiles its metadata patterns, once.
    pub fn compile(self) -> Result<CompiledPolicy> {
        if self.schema != POLICY_SCHEMA {
            return Err(Error::invalid(
                "schema",
                format!(
                    "policy schema {} is not the one this build reads ({POLICY_SCHEMA}); see the \
                     README's migration notes",
                    self.schema
                ),
            ));
        }
        for (i, cap) in self.spend_caps.iter().enumerate() {
            if self.spend_caps[..i].iter().any(|c| c.token == cap.token) {
                return Err(Error::invalid(
                    format!("spend_caps[{i}].token"),
                    format!("duplicate spend cap for token {}", cap.token),
                ));
            }
        }
        for (i, budget) in self.budgets.iter().enumerate() {
            if self.budgets[..i].iter().any(|b| b.token == budget.token) {
                return Err(Error::invalid(
                    format!("budgets[{i}].token"),
                    format!("duplicate budget for token {}", budget.token),
                ));
            }
            if budget.period_secs == 0 {
                return Err(Error::invalid(
                    format!("budgets[{i}].period_secs"),
                    "a budget period must be at least 1 second",
                ));
            }
            if budget.limit > U256::from(u128::MAX) {
                return Err(Error::invalid(
                    format!("budgets[{i}].limit"),
                    "a budget limit must fit the account's uint128",
                ));
            }
        }
        for (i, price) in self.prices.iter().enumerate() {
            if price.amount.is_zero() {
                return Err(Error::invalid(
                    format!("prices[{i}].amount"),
                    "a price is for a non-zero amount",
                ));
            }
            if self.prices[..i].iter().any(|p| p.token == price.token) {
                return Err(Error::invalid(
                    format!("prices[{i}].token"),
                    format!("duplicate price for token {}", price.token),
                ));
            }
        }
        for (i, feed) in self.price_oracles.iter().enumerate() {
            if feed.max_age_secs == Some(0) {
                return Err(Error::invalid(
                    format!("price_oracles[{i}].max_age_secs"),
                    "a feed's age bound is at least 1 second",
                ));
            }
        }
        for (i, v3) in self.price_v3_pools.iter().enumerate() {
            if self.price_v3_pools[..i].iter().any(|p| p.pool == v3.pool) {
                return Err(Error::invalid(
                    format!("price_v3_pools[{i}].pool"),
                    format!("duplicate V3 pool {}", v3.pool),
                ));
            }
        }
        for (i, pin) in self.protocols.iter().enumerate() {
            let Some(descriptor) = &pin.descriptor else {
                return Err(Error::invalid(
                    format!("protocols[{i}].descriptor"),
                    "the descriptor is neither inline nor read from its file (pace reads \
                     `file` when it loads the policy)",
                ));
            };
            descriptor
                .validate()
                .map_err(|e| Error::invalid(format!("protocols[{i}].descriptor"), e.to_string()))?;
            if descriptor.hash() != pin.hash {
                return Err(Error::invalid(
                    format!("protocols[{i}].hash"),
                    format!(
                        "descriptor {} hashes to {}, not the pinned {}: review it again before \
                         trusting it",
                        descriptor.id,
                        descriptor.hash(),
                        pin.hash
                    ),
                ));
            }
            if let (Some(ours), Some(theirs)) = (self.chain_id, descriptor.chain_id)
                && ours != theirs
            {
                return Err(Error::invalid(
                    format!("protocols[{i}].descriptor.chain_id"),
                    format!(
                        "descriptor {} is for chain {theirs}, the policy for {ours}",
                        descriptor.id
                    ),
                ));
            }
            if self.protocols[..i]
                .iter()
                .any(|p| p.descriptor.as_ref().is_some_and(|d| d.id == descriptor.id))
            {
                return Err(Error::invalid(
                    format!("protocols[{i}].descriptor.id"),
                    format!("duplicate protocol {}", descriptor.id),
                ));
            }
        }
        // Validate each pattern on its own first, to name the bad one.
        for (index, pattern) in self.metadata_patterns.iter().enumerate() {
            if let Err(e) = RegexSetBuilder::new([pattern]).build() {
                return Err(Error::Pattern {
                    index,
                    pattern: one_line(pattern),
                    message: regex_message(&e),
                });
            }
        }
        let metadata = RegexSet::new(&self.metadata_patterns).map_err(|e| Error::Pattern {
            index: 0,
            pattern: String::new(),
            message: regex_message(&e),
        })?;
        let hash = self.policy_hash();
        Ok(CompiledPolicy {
            policy: self,
            hash,
            metadata,
        })
    }
}

/// The one-line gist of a regex error (the crate prints a multi-line diagram).
fn regex_message(e: &regex::Error) -> String {
    let text = e.to_string();
    let gist = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .unwrap_or(text.trim());
    one_line(gist)
}

/// A validated policy with its hash computed and its regexes compiled, ready for the
/// verifier. Immutable, so the hash always matches the policy.
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    policy: Policy,
    hash: B256,
    metadata: RegexSet,
}

impl CompiledPolicy {
    /// Parses, validates and compiles a policy from JSON text.
    pub fn from_json_str(json: &str) -> Result<Self> {
        Policy::from_json_str(json)?.compile()
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The policy's hash, computed once at compile time.
    pub fn policy_hash(&self) -> B256 {
        self.hash
    }

    /// The compiled `metadata_patterns`, in order.
    pub fn metadata_patterns(&self) -> &RegexSet {
        &self.metadata
    }

    /// Gives the policy back.
    pub fn into_policy(self) -> Policy {
        self.policy
    }
}

impl core::ops::Deref for CompiledPolicy {
    type Target = Policy;

    fn deref(&self) -> &Policy {
        &self.policy
    }
}

impl TryFrom<Policy> for CompiledPolicy {
    type Error = Error;

    fn try_from(policy: Policy) -> Result<Self> {
        policy.compile()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{"max_value_wei":"0","max_slippage_bps":50,
        "max_price_impact_bps":100,"max_simulation_age_secs":60}"#;

    #[test]
    fn minimal_policy_is_strict() {
        let p = Policy::from_json_str(MINIMAL).unwrap();
        assert!(p.forbid_unlimited_approval && p.require_simulation);
        assert_eq!(p.checks, CheckSwitches::all_on());
        assert!(p.allowed_targets.is_empty());
    }

    #[test]
    fn the_schema_is_the_current_one_by_default_and_leaves_the_hash_alone() {
        let omitted = Policy::from_json_str(MINIMAL).unwrap();
        assert_eq!(omitted.schema, POLICY_SCHEMA);
        let explicit = MINIMAL.replacen('{', &format!(r#"{{"schema":{POLICY_SCHEMA},"#), 1);
        let explicit = Policy::from_json_str(&explicit).unwrap();
        assert_eq!(explicit, omitted);
        assert_eq!(explicit.policy_hash(), omitted.policy_hash());
        assert!(!serde_json::to_string(&omitted).unwrap().contains("schema"));
        explicit.compile().unwrap();
    }

    #[test]
    fn another_schema_is_refused_by_name() {
        for other in [0, POLICY_SCHEMA - 1, POLICY_SCHEMA + 1] {
            let json = MINIMAL.replacen('{', &format!(r#"{{"schema":{other},"#), 1);
            let policy = Policy::from_json_str(&json).unwrap();
            // It would hash apart from a current document, and it is never compiled.
            let current = Policy::from_json_str(MINIMAL).unwrap();
            assert_ne!(policy.policy_hash(), current.policy_hash());
            let err = policy.compile().unwrap_err().to_string();
            assert!(err.contains("schema"), "{err}");
            assert!(err.contains(&format!("policy schema {other} ")), "{err}");
            assert!(err.contains(&POLICY_SCHEMA.to_string()), "{err}");
        }
    }

    #[test]
    fn bounds_are_required() {
        let err = Policy::from_json_str(r#"{"max_value_wei":"0"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing field `max_slippage_bps`"), "{err}");
    }

    #[test]
    fn bad_regex_is_a_load_error() {
        let json = MINIMAL.replace('{', r#"{"metadata_patterns":["ok","(unclosed"],"#);
        let err = CompiledPolicy::from_json_str(&json).unwrap_err();
        assert!(matches!(err, Error::Pattern { index: 1, .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with("metadata_patterns[1]: invalid regex \"(unclosed\": "),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
    }

    #[test]
    fn case_insensitive_patterns_work() {
        let json = MINIMAL.replace('{', r#"{"metadata_patterns":["(?i)ignore previous"],"#);
        let p = CompiledPolicy::from_json_str(&json).unwrap();
        assert!(
            p.metadata_patterns()
                .is_match("IGNORE PREVIOUS instructions")
        );
    }

    #[test]
    fn duplicate_caps_are_rejected() {
        let cap = r#"{"token":"0x0000000000000000000000000000000000000001","amount":"1"}"#;
        let json = MINIMAL.replace('{', &format!(r#"{{"spend_caps":[{cap},{cap}],"#));
        let err = CompiledPolicy::from_json_str(&json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("spend_caps[1].token: duplicate"), "{err}");
    }

    // Protocol valuation (adapters).
    #[test]
    fn adapter_fields_are_optional_and_leave_the_hash_alone() {
        let feed = r#"{"oracle":"0x0000000000000000000000000000000000000003","token":"0x0000000000000000000000000000000000000004","quote":"0x0000000000000000000000000000000000000000","scale":"1000"}"#;
        let json = MINIMAL.replace('{', &format!(r#"{{"price_oracles":[{feed}],"#));
        let p = Policy::from_json_str(&json).unwrap();
        let out = serde_json::to_string(&p).unwrap();
        assert!(out.contains(r#""scale":"1000"}]"#), "{out}");
        for field in [
            "price_v3_pools",
            "max_feed_age_secs",
            "max_age_secs",
            "spot",
        ] {
            assert!(!out.contains(field), "{out}");
        }
        assert_eq!(
            p.feed_age_bound_secs(&p.price_oracles[0]),
            DEFAULT_MAX_FEED_AGE_SECS
        );
        // A feed without a scale (from its decimals), with its own age bound, and a V3 pool.
        let feed = r#"{"oracle":"0x0000000000000000000000000000000000000003","token":"0x0000000000000000000000000000000000000004","quote":"0x0000000000000000000000000000000000000000","max_age_secs":3600}"#;
        let pools = r#"[{"pool":"0x0000000000000000000000000000000000000005"},{"pool":"0x0000000000000000000000000000000000000006","spot":true}]"#;
        let json = MINIMAL.replace(
            '{',
            &format!(
                r#"{{"price_oracles":[{feed}],"price_v3_pools":{pools},"max_feed_age_secs":60,"#
            ),
        );
        let p = Policy::from_json_str(&json).unwrap().compile().unwrap();
        assert!(p.price_oracles[0].scale.is_zero());
        assert_eq!(p.feed_age_bound_secs(&p.price_oracles[0]), 3_600);
        assert!(!p.price_v3_pools[0].spot && p.price_v3_pools[1].spot);
        assert_eq!(p.price_sources().count(), 3);
        let again = Policy::from_json_str(&serde_json::to_string(p.policy()).unwrap()).unwrap();
        assert_eq!(&again, p.policy());
        // A duplicate pool and a zero age bound are refused.
        let dup = json.replace(
            "0x0000000000000000000000000000000000000006",
            "0x0000000000000000000000000000000000000005",
        );
        let err = CompiledPolicy::from_json_str(&dup).unwrap_err().to_string();
        assert!(
            err.starts_with("price_v3_pools[1].pool: duplicate"),
            "{err}"
        );
        let zero = json.replace("3600", "0");
        let err = CompiledPolicy::from_json_str(&zero)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("price_oracles[0].max_age_secs"), "{err}");
    }

    #[test]
    fn hash_is_cached_and_covers_switches() {
        let p = Policy::from_json_str(MINIMAL).unwrap();
        let compiled = p.clone().compile().unwrap();
        assert_eq!(compiled.policy_hash(), p.policy_hash());
        let mut ablated = p.clone();
        ablated.checks.slippage = false;
        assert_ne!(ablated.policy_hash(), p.policy_hash());
    }
}
