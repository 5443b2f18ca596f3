//! PACE-rs data model: what an agent proposes ([`Intent`]), what the user allows
//! ([`Policy`]), what the simulator saw ([`SimulationReport`]) and what the verifier decided
//! ([`Decision`]), with their strict JSON forms and canonical content hashes.
//!
//! Conventions, everywhere:
//!
//! - Token amounts are integers in the token's smallest unit, written in JSON as decimal
//!   strings (`"1000000"`); signed amounts may start with `-`. Hex or JSON numbers are rejected
//!   for amounts ([`amount`]).
//! - Rates and ratios are integer basis points ([`Bps`]); a health factor of 1.0 is 10 000.
//!   There are no floats.
//! - Ether is the token [`ETH`], the zero address.
//! - Addresses, hashes, selectors and calldata are `0x`-hex.
//! - Every struct rejects unknown fields; optional trace data defaults to empty.
//! - [`Intent::intent_hash`], [`Policy::policy_hash`], [`SimulationReport::simulation_hash`] and
//!   [`Decision::decision_hash`] are domain-separated keccak256 hashes of a canonical JSON
//!   encoding described in [`hash`].
//!
//! This crate only defines data: it does no I/O and never reads a clock.

pub mod account;
pub mod address;
pub mod amount;
pub mod checks;
pub mod decision;
pub mod descriptor;
pub mod environment;
pub mod error;
pub mod hash;
pub mod intent;
mod load;
pub mod pdr;
pub mod policy;
pub mod protocols;
pub mod report;
pub mod rights;
pub mod strict;
pub mod units;
pub mod user_op;

pub use account::{AccountKind, Entry};
pub use checks::{Check, CheckSwitches};
pub use decision::{Decision, Violation, ViolationCode};
pub use environment::EnvRead;
pub use error::{Error, Result};
pub use hash::{ContentHash, Hashed};
pub use intent::{Approval, Call, Claims, Intent, TokenAmount};
pub use policy::{
    CompiledPolicy, DEFAULT_MAX_LOSS_BPS, OraclePrice, POLICY_SCHEMA, PeriodBudget, Policy,
    ProtocolPin, Selector, TablePrice,
};
pub use report::{
    ApprovalFact, BalanceChange, BudgetState, Burner, ExecutionEnv, FactRead, LaterSwap, Minter,
    NftFlow, PositionChange, PriceFact, PriceSource, ReadKind, SimulationReport, SwapFacts,
    TokenFlow, UngrantedAsset,
};
// Protocol valuation (adapters).
pub use policy::{DEFAULT_MAX_FEED_AGE_SECS, V3PoolPrice};
pub use protocols::{
    AdapterGap, CounterpartyGroup, DebtToken, FeedRound, LendingDebt, ProtocolFacts,
    ProtocolMember, RootCode, V3Liquidity, V3Position,
};
// Rights and lending health (adapters).
pub use rights::{
    ItemApproval, LendingFact, LendingProtocol, LendingState, RightFact, RightKind, UnreadPosition,
};
pub use units::{BPS_SCALE, Bps, ETH, UNLIMITED_APPROVAL_THRESHOLD};
