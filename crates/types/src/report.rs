//! What the trusted simulator observed: the [`SimulationReport`].
//!
//! Produced by trusted code from the EVM trace (call frames, logs, balance and allowance
//! diffs), never by the agent. The facts below are about the intent's `account`. Every field
//! the trace fills is optional or defaults to empty, so an older or partial report still
//! parses; the verifier treats an empty list as "the report carries no such facts" where that
//! matters (see `docs/violation-codes.md`).

use crate::{
    amount::{i256_dec, u256_dec},
    error::Result,
    hash::{SIMULATION_DOMAIN, content_hash},
    intent::TokenAmount,
    load,
    protocols::{DebtToken, ProtocolFacts},
    rights::{ItemApproval, LendingFact, RightFact, UnreadPosition},
    units::Bps,
};
use alloy_primitives::{Address, B256, I256, U256};
use serde::{Deserialize, Serialize};

/// One fungible movement seen in the trace, at any call depth and whoever pays it: an ERC-20
/// `Transfer` of any token (a mint comes `from` the zero address, a burn goes `to` it), a
/// wrapped-ether `Deposit` (a mint of the wrapper to `dst`) or `Withdrawal` (a burn from
/// `src`), or ether (token [`crate::ETH`]) moved by call value, creation or `SELFDESTRUCT`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenFlow {
    /// The token moved.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Who sent it.
    #[serde(with = "crate::strict::one")]
    pub from: Address,
    /// Who received it.
    #[serde(with = "crate::strict::one")]
    pub to: Address,
    /// How much (decimal string).
    #[serde(with = "u256_dec")]
    pub amount: U256,
}

/// An allowance the account set during the simulation (an `approve` it made, seen as an
/// `Approval` event or an allowance diff). Allowance decreases caused by `transferFrom`
/// are not approvals and should not be listed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalFact {
    /// The token.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The owner of the allowance (facts with another owner are ignored).
    #[serde(with = "crate::strict::one")]
    pub owner: Address,
    /// Who may spend it.
    #[serde(with = "crate::strict::one")]
    pub spender: Address,
    /// The allowance set (decimal string).
    #[serde(with = "u256_dec")]
    pub amount: U256,
}

/// A token no right the account granted can reach, and the grant-filter bits that say so
/// (the token's and those of every contract its balance read ran).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UngrantedAsset {
    /// The token.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The grant-filter bits its being out of reach rests on.
    pub bits: u16,
}

/// The account's net balance change of one token over the simulation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalanceChange {
    /// The token ([`crate::ETH`] for ether).
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Net change (decimal string, negative when the balance fell).
    #[serde(with = "i256_dec")]
    pub delta: I256,
}

/// One non-fungible movement seen in the trace: an ERC-721 `Transfer` (amount 1) or an
/// ERC-1155 `TransferSingle` / `TransferBatch` entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NftFlow {
    /// The collection (the emitting contract).
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Who sent it (the zero address for a mint).
    #[serde(with = "crate::strict::one")]
    pub from: Address,
    /// Who received it (the zero address for a burn).
    #[serde(with = "crate::strict::one")]
    pub to: Address,
    /// The token id (decimal string).
    #[serde(with = "u256_dec")]
    pub id: U256,
    /// How many (1 for ERC-721; decimal string).
    #[serde(with = "u256_dec")]
    pub amount: U256,
    /// Whether it is a multi-token movement (ERC-1155 `TransferSingle` / `TransferBatch`, or an
    /// ERC-6909 claim ledger's `Transfer`) rather than an ERC-721 `Transfer`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multi: bool,
}

/// Where a [`PriceFact`] comes from. The verifier trusts a source only when the policy names
/// it (`price_oracles`, `price_vaults`, `price_pools`, `price_v3_pools`, a market among its
/// targets); see `pace_verifier`'s value module for the order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceSource {
    /// A price feed's answer (`latestRoundData`, `latestAnswer` or `price`), as the policy's
    /// `price_oracles` entry for the feed describes it.
    Oracle,
    /// An ERC-4626 vault's `convertToAssets`: shares of the vault in its underlying asset.
    Vault,
    /// A constant-product pool's reserves (Uniswap V2 `getReserves`): the mid price of one
    /// side in the other.
    Pool,
    /// A pool's own share token (an LP token): its part of both reserves.
    PoolShare,
    // Protocol valuation (adapters).
    /// A claim on a lending market's underlying (an Aave aToken, 1:1; a Compound-style cToken,
    /// at its exchange rate), read from the market (`via`) the policy names as a target.
    Claim,
    /// A Uniswap V3 pool's time-weighted average price over the last 30 minutes (`observe`):
    /// trusted for pools in the policy's `price_v3_pools`.
    V3Twap,
    /// A Uniswap V3 pool's current price (`slot0`): trusted only for pools the policy's
    /// `price_v3_pools` marks `spot`; for every pool, compared with its TWAP.
    V3Spot,
    /// A token's own rate as a protocol descriptor's `rates` read it from the token (a wrapper
    /// of a rebasing token): trusted for the descriptors the policy pins that declare it.
    Rate,
}

/// An exchange rate read from the state *before* the calls ran: `amount` of `token` is
/// worth `worth` (the sum of the listed amounts of other assets), according to `source`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceFact {
    /// The asset priced.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The kind of source.
    pub source: PriceSource,
    /// The contract that gave the rate (the feed, the vault, the pool).
    #[serde(with = "crate::strict::one")]
    pub via: Address,
    /// How much of `token` the rate is for (decimal string, never 0).
    #[serde(with = "u256_dec")]
    pub amount: U256,
    /// What that much is worth.
    pub worth: Vec<TokenAmount>,
}

/// A change of the account's position in a lending market, read through the generic
/// lending-position views (`collateralToken`, `collateralOf`, `debtToken`, `debtOf`) before
/// and after the calls. Collateral counts as an asset of the account, debt as a liability:
/// `delta` is the collateral's change, or minus the debt's change.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionChange {
    /// The lending market.
    #[serde(with = "crate::strict::one")]
    pub market: Address,
    /// The asset of the collateral or the debt.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The change in the account's favour (decimal string, negative when it fell).
    #[serde(with = "i256_dec")]
    pub delta: I256,
}

/// What the simulator measured about a swap.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwapFacts {
    /// The pool that executed it (the first pool for a multi-hop route).
    #[serde(with = "crate::strict::one")]
    pub pool: Address,
    /// The token sold.
    #[serde(with = "crate::strict::one")]
    pub token_in: Address,
    /// The token bought.
    #[serde(with = "crate::strict::one")]
    pub token_out: Address,
    /// Amount sold (decimal string).
    #[serde(with = "u256_dec")]
    pub amount_in: U256,
    /// Amount bought (decimal string).
    #[serde(with = "u256_dec")]
    pub amount_out: U256,
    /// What `amount_in` would buy at the pre-trade mid price, with no fee and no impact.
    #[serde(with = "u256_dec")]
    pub quoted_out: U256,
    /// The minimum output the calldata accepts (decimal string).
    #[serde(with = "u256_dec")]
    pub min_out: U256,
    /// The order's own price impact in bps, rounded up, as the simulator measures it (for
    /// instance the move of the route's mid price). The verifier judges the larger of this
    /// and the shortfall of `amount_out` against `quoted_out`
    /// ([`crate::units::shortfall_bps`], fee included).
    pub price_impact_bps: Bps,
    /// `floor((amount_out - min_out) * 10_000 / amount_out)`: the slippage tolerance the
    /// calldata leaves open, in bps rounded down (see [`crate::units::min_out_tolerance_bps`]).
    pub slippage_bps: Bps,
}

/// The facts of a swap call after the intent's first.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaterSwap {
    /// The call (0-based index into the intent's calls).
    pub call: usize,
    /// What was measured around it.
    pub facts: SwapFacts,
}

/// A simulation of one intent at one block.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationReport {
    /// The hash of the intent that was simulated.
    #[serde(with = "crate::strict::one")]
    pub intent_hash: B256,
    /// The block whose state was simulated.
    pub block_number: u64,
    /// That block's timestamp (unix seconds).
    pub timestamp: u64,
    /// Whether every call succeeded.
    pub success: bool,
    /// The decoded revert reason when it did not.
    #[serde(default)]
    pub revert_reason: Option<String>,
    /// Gas used by the whole batch.
    #[serde(default)]
    pub gas_used: u64,
    /// Every contract the execution touched (call targets, delegates, created contracts),
    /// in first-touch order, precompiles excluded.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub touched_contracts: Vec<Address>,
    /// The precompiles the execution called.
    #[serde(default)]
    #[serde(with = "crate::strict::list")]
    pub precompiles: Vec<Address>,
    /// Every fungible movement of the execution, whoever paid it, in execution order.
    #[serde(default)]
    pub token_flows: Vec<TokenFlow>,
    /// Every non-fungible movement of the execution, in execution order.
    #[serde(default)]
    pub nft_flows: Vec<NftFlow>,
    /// Allowances the account set.
    #[serde(default)]
    pub approvals: Vec<ApprovalFact>,
    /// The account's net balance changes.
    #[serde(default)]
    pub balance_changes: Vec<BalanceChange>,
    /// The swap, when the intent swaps: its first swap call's facts.
    #[serde(default)]
    pub swap: Option<SwapFacts>,
    /// The facts of its later swap calls, each measured around its own call (absent when the
    /// intent swaps at most once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub later_swaps: Vec<LaterSwap>,
    /// The value lost by the intent, in bps of the value put in, when the simulator can price it.
    #[serde(default)]
    pub loss_bps: Option<Bps>,
    /// The account's lending health factor before execution (bps), when it has a position.
    #[serde(default)]
    pub health_factor_before_bps: Option<Bps>,
    /// The account's lending health factor after execution (bps), when it has a position.
    #[serde(default)]
    pub health_factor_after_bps: Option<Bps>,
    /// The account's on-chain spending budgets in the simulated state, read from the account
    /// (`PaceAccount.budgetTokens` / `budget`) before the calls ran. Empty when it has none or
    /// is not a PACE account.
    #[serde(default)]
    pub budgets: Vec<BudgetState>,
    /// Exchange rates read before the calls ran for the assets that moved (and what they are
    /// priced in), from every source the simulator could read; the verifier picks the ones
    /// the policy trusts.
    #[serde(default)]
    pub prices: Vec<PriceFact>,
    /// The account's lending positions that the calls changed.
    #[serde(default)]
    pub positions: Vec<PositionChange>,
    /// Who caused each mint: the `msg.sender` of the frame in which a token minted (a pool
    /// minting its LP token, a shop asking a collection to mint). A contract that made a mint
    /// happen gave something back for what it received.
    #[serde(default)]
    pub minters: Vec<Minter>,
    /// Who caused each burn: the `msg.sender` of the frame in which a token burned (a pool
    /// burning its shares on an exit its Vault runs). What the burn took from its holder went to
    /// that contract, which may pay it on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub burners: Vec<Burner>,
    /// The transaction the simulation ran, when it ran the intent as the account's submission
    /// will (inside the account's frame, from the relayer, in the next block): its
    /// environment. `block_number` and `timestamp` above stay the simulated state's, the ones a
    /// PDR names and freshness measures. Absent when each call ran as a transaction of its
    /// own (an account that cannot take a PDR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ExecutionEnv>,
    /// Every ERC-20 (or token answering `balanceOf`) whose balance of the account the
    /// simulation read before and after, changed or not, with its balance before: what can
    /// leave the account through this execution, which the signed bounds hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub balances_read: Vec<TokenAmount>,
    /// What the payees (the policy's `allowed_recipients`) together gained of each token
    /// (ether included) as their balances show, for tokens whose gain was positive. A payment
    /// to a payee is credited with at most this: a token that skims a fee without logging it,
    /// or a log without a transfer, pays the payee less than the log says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub payee_receipts: Vec<TokenAmount>,
    /// Reads a decision may rest on that the execution can change (what a received share is
    /// worth, ...), each with its answer on the simulated state before and after the calls:
    /// the signer re-checks those the verifier relied on after the calls on-chain
    /// ([`FactRead`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<FactRead>,
    /// Tokens among `balances_read` that name an underlying asset (`UNDERLYING_ASSET_ADDRESS()`
    /// answers an address, as an Aave debt token or aToken does), trusted or not: a rise of one
    /// the simulation did not move may be debt taken on behind the account (a standing credit
    /// delegation), so the signer caps its rise as well as its fall. Only ever stricter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub debt_like: Vec<Address>,
    /// The account's grant filter as the simulation found it (`grantFilter()`: bit `a & 15`
    /// set once the account called an address `a` in a way that may have left a right
    /// behind), absent for an account that keeps none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_filter: Option<u16>,
    /// Tokens among `balances_read` that no right the account granted can reach: the
    /// execution did not touch them, the intent signs nothing, no touched contract holds an
    /// allowance of them, and every contract their balance read ran is untouched with its
    /// grant-filter bit clear. Each comes with those bits, which must still be clear when
    /// the PDR runs (the signer leaves these tokens unread under an `UNGRANTED` bound).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ungranted: Vec<UngrantedAsset>,
    // Protocol valuation (adapters).
    /// Tokens whose balance is a liability of the account (Aave V3 variable and stable debt
    /// tokens), as the lending markets among the intent's targets declare them: a rise of one
    /// in `balance_changes` is debt taken on. Value conservation counts each as minus its
    /// underlying (when the policy trusts the market); the signer bounds how much of it may
    /// arrive.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub debt_tokens: Vec<DebtToken>,
    /// What the protocol adapters read besides prices and debt tokens: feed rounds, V3
    /// positions, Compound-style debts, counterparty groups and failed reads (see
    /// [`ProtocolFacts`]).
    #[serde(default, skip_serializing_if = "ProtocolFacts::is_empty")]
    pub protocols: ProtocolFacts,
    // Rights and lending health (adapters).
    /// The account's lending positions as the protocol adapters read them, with their health
    /// factor before and after: Aave V3 pools (`getUserAccountData`), Compound-style
    /// comptrollers (`getAccountLiquidity`), and generic markets whose position changed that
    /// `health_factor_*_bps` above does not cover.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lending: Vec<LendingFact>,
    /// Rights over the account's value that the execution granted outside ERC-20 allowances:
    /// Permit2 allowances, credit delegation, and control handed over in storage (see
    /// [`crate::rights::RightKind`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rights: Vec<RightFact>,
    /// The `approve(address,uint256)` calls that approved one item of a collection, as the
    /// state after the calls shows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub item_approvals: Vec<ItemApproval>,
    /// Slots keyed by the account, changed in contracts that paid value out during the calls,
    /// that no view of theirs explains ([`UnreadPosition`]): positions nothing reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread_positions: Vec<UnreadPosition>,
    /// What code outside the account read of the transaction and block the calls ran in
    /// ([`crate::EnvRead`]), sorted, each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environment: Vec<crate::EnvRead>,
}

/// The environment of the one transaction a simulation ran (see
/// [`SimulationReport::execution`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutionEnv {
    /// `tx.origin`: who submits (the relayer).
    #[serde(with = "crate::strict::one")]
    pub origin: Address,
    /// The block it ran in (the simulated state's next block).
    pub block_number: u64,
    /// That block's timestamp.
    pub timestamp: u64,
    /// That block's base fee, in wei.
    #[serde(with = "u256_dec")]
    pub base_fee: U256,
    /// The gas price the transaction paid, in wei.
    #[serde(with = "u256_dec")]
    pub gas_price: U256,
    /// The transaction's gas limit.
    pub gas_limit: u64,
    /// The gas the whole transaction used (the account's own frames included).
    pub gas_used: u64,
    /// The kind of account the transaction went to (absent: `pace-account`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub account_kind: crate::AccountKind,
    /// How the signed PDR will reach it (absent: `direct`). On the EntryPoint path the
    /// simulated transaction is still the account's own frame; the bundle runs in pass 2.
    #[serde(default, skip_serializing_if = "is_default")]
    pub entry: crate::Entry,
    /// On the EntryPoint path, the most the user operation's gas may cost the account's
    /// EntryPoint deposit (its gas limits, `preVerificationGas` included, times
    /// `maxFeePerGas`), in wei: what the verifier counts against `max_value_wei`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::amount::u256_dec_opt"
    )]
    pub max_gas_cost: Option<U256>,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// What a [`FactRead`] tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadKind {
    /// What a share or claim of the asset `subject` is worth (its issuer's own rate, e.g. an
    /// ERC-4626 vault's `convertToAssets` of a fixed amount of shares).
    Valuation,
    /// A lending market's health factor of the account (WAD: 1e18 is 1.0), for the market
    /// `subject` (an Aave V3 pool's `getUserAccountData`, a generic market's `healthFactor`).
    HealthFactor,
    /// The account's debt in a lending market whose position is read by its own views, in the
    /// market's unit, for the market `subject` (a generic market's `debtOf`): debt booked on
    /// the account at execution that the simulation did not book is a loss no balance shows.
    Debt,
    /// The market's price in a health factor computed from a protocol descriptor's health
    /// model, which must not fall for the health factor to hold, for the market `subject` (the
    /// collateral term is a [`ReadKind::Holding`] read, the debt term a [`ReadKind::Debt`] one).
    HealthTerm,
    /// An amount of the account's position in a protocol that the account holds, read by a
    /// protocol descriptor's position view of the root `subject` (an internal balance, a
    /// collateral): counted in its value like a token balance, so it must not fall at execution
    /// below what the decision counted.
    Holding,
    /// A right over the account's value that `subject` holds, read by the recording
    /// contract's own view with the key the execution read it by: an ERC-20
    /// `allowance(account, subject)`, `isApprovedForAll(account, subject)`, Permit2's
    /// `allowance(account, token, subject)`, a debt token's `borrowAllowance(account,
    /// subject)`. A right of a party the policy does not name must not grow at execution.
    Right,
    /// Control of the contract `subject` that the account held before the calls: its ERC-173
    /// `owner()` answered the account. Who owns it after the calls must be who the simulation
    /// left owning it.
    Control,
    /// A fact a protocol descriptor declares (`checks`, [`crate::descriptor::CheckView`]) for
    /// the root `subject`: at execution at least its simulated answer after the calls, less
    /// the policy's tolerance.
    DeclaredFloor,
    /// As [`ReadKind::DeclaredFloor`]: at most its simulated answer after the calls, plus the
    /// policy's tolerance.
    DeclaredCeiling,
    /// As [`ReadKind::DeclaredFloor`]: exactly its simulated answer after the calls.
    DeclaredExact,
}

/// A static call whose answer a decision rests on and the execution can change: `data` sent
/// to `target`, word `word` of the answer, as the simulation read it before and after the
/// calls. The signer turns the ones the verifier relied on into post-conditions the account
/// checks after the calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactRead {
    /// What it tells.
    pub kind: ReadKind,
    /// What it is about (the asset valued).
    #[serde(with = "crate::strict::one")]
    pub subject: Address,
    /// The contract called.
    #[serde(with = "crate::strict::one")]
    pub target: Address,
    /// The call data.
    #[serde(with = "crate::strict::one")]
    pub data: alloy_primitives::Bytes,
    /// The word of the answer read (0: the first).
    pub word: u16,
    /// Its answer before the calls (decimal string), if the read succeeded.
    #[serde(default, with = "crate::amount::u256_dec_opt")]
    pub before: Option<U256>,
    /// Its answer after the calls (decimal string), if the read succeeded.
    #[serde(default, with = "crate::amount::u256_dec_opt")]
    pub after: Option<U256>,
}

/// A burn and the contract that asked for it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Burner {
    /// The token that burned.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Whose tokens burned.
    #[serde(with = "crate::strict::one")]
    pub from: Address,
    /// The caller of the burning frame.
    #[serde(with = "crate::strict::one")]
    pub by: Address,
}

/// A mint and the contract that asked for it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Minter {
    /// The token that minted.
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// Who received the mint.
    #[serde(with = "crate::strict::one")]
    pub to: Address,
    /// The caller of the minting frame.
    #[serde(with = "crate::strict::one")]
    pub by: Address,
}

/// One on-chain spending budget of the account, as `PaceAccount.budget(token)` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetState {
    /// The token (ether: [`crate::ETH`]).
    #[serde(with = "crate::strict::one")]
    pub token: Address,
    /// The most that may leave per period (decimal string).
    #[serde(with = "u256_dec")]
    pub limit: U256,
    /// The period, in seconds.
    pub period_secs: u64,
    /// When the current period started (unix seconds).
    pub window_start: u64,
    /// What left during PDR executions in that period (decimal string).
    #[serde(with = "u256_dec")]
    pub spent: U256,
}

impl BudgetState {
    /// What has been spent in the period that is current at `now`: nothing once the period
    /// has ended (the account starts a new one at the next execution).
    pub fn spent_at(&self, now: u64) -> U256 {
        if now >= self.window_start.saturating_add(self.period_secs) {
            U256::ZERO
        } else {
            self.spent
        }
    }
}

impl SimulationReport {
    /// The content hash `keccak256("PACE-RS/simulation/v3\n" || canonical JSON)`; see
    /// [`crate::hash`].
    pub fn simulation_hash(&self) -> B256 {
        content_hash(SIMULATION_DOMAIN, self)
    }

    /// Whether an adapter reads `contract`: a lending market it read, a debt token or aToken,
    /// a Compound-style market with a read debt, a generic or descriptor position's market, or
    /// a member of a protocol's counterparty group. What such a contract keeps under the account
    /// is judged by what the adapter read, not as a record nothing reads.
    pub fn adapter_reads(&self, contract: Address) -> bool {
        self.lending.iter().any(|f| f.market == contract)
            || self.positions.iter().any(|p| p.market == contract)
            || self.debt_like.contains(&contract)
            || self
                .debt_tokens
                .iter()
                .any(|d| d.token == contract || d.market == contract)
            || self
                .protocols
                .lending_debts
                .iter()
                .any(|d| d.market == contract)
            || self
                .protocols
                .groups
                .iter()
                .any(|g| g.members.contains(&contract))
    }

    /// Whether the execution touched `contract`, moved a token of it, or was seen granting a
    /// right over its records (an allowance, an item approval, any right fact): such a
    /// contract is never left unread as `ungranted`.
    pub fn names_right_over(&self, contract: Address) -> bool {
        self.touched_contracts.contains(&contract)
            || self.token_flows.iter().any(|f| f.token == contract)
            || self.approvals.iter().any(|a| a.token == contract)
            || self.item_approvals.iter().any(|a| a.token == contract)
            || self
                .rights
                .iter()
                .any(|r| r.contract == contract || r.token == Some(contract))
    }

    /// Parses a report from JSON text.
    pub fn from_json_str(json: &str) -> Result<Self> {
        load::from_str(json)
    }

    /// Parses a report from JSON bytes.
    pub fn from_json_slice(json: &[u8]) -> Result<Self> {
        load::from_slice(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_report_parses() {
        let json = r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000001",
            "block_number":1,"timestamp":2,"success":true}"#;
        let r = SimulationReport::from_json_str(json).unwrap();
        assert!(r.touched_contracts.is_empty() && r.swap.is_none() && r.loss_bps.is_none());
    }

    #[test]
    fn signed_delta_round_trips() {
        let json = r#"{"token":"0x0000000000000000000000000000000000000000","delta":"-15"}"#;
        let c: BalanceChange = serde_json::from_str(json).unwrap();
        assert_eq!(c.delta, I256::try_from(-15i64).unwrap());
        assert_eq!(serde_json::to_string(&c).unwrap(), json);
    }
}
