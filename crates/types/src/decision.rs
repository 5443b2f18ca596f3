//! The verifier's output: a [`Decision`] with every [`Violation`] it found.
//!
//! A rejection is data, not an error. Each violation carries a stable [`ViolationCode`]
//! (documented in `docs/violation-codes.md`) and a human message.

use crate::{
    checks::Check,
    error::{Error, Result},
    hash::{DECISION_DOMAIN, content_hash},
    load,
};
use alloy_primitives::B256;
use serde::{Deserialize, Serialize};

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal => $check:expr, )*) => {
        /// Why an intent was rejected. Serialized as a stable `SCREAMING_SNAKE_CASE` string.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum ViolationCode {
            $( $(#[$doc])* #[serde(rename = $name)] $variant, )*
        }

        impl ViolationCode {
            /// Every code, grouped in check order.
            pub const ALL: &'static [ViolationCode] = &[$(ViolationCode::$variant,)*];

            /// The stable string form, e.g. `"TARGET_NOT_ALLOWED"`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ViolationCode::$variant => $name,)* }
            }

            /// The check that emits this code; `None` for the structural checks that always run.
            pub const fn check(self) -> Option<Check> {
                match self { $(ViolationCode::$variant => $check,)* }
            }
        }
    };
}

codes! {
    /// The intent has no calls.
    NoCalls = "NO_CALLS" => None,
    /// The intent has more calls, claims or metadata entries than the verifier accepts.
    TooLarge = "TOO_LARGE" => None,
    /// A call's calldata is 1-3 bytes long, or a known function's arguments do not decode.
    MalformedCalldata = "MALFORMED_CALLDATA" => None,
    /// The intent is for another chain than the policy's `chain_id`.
    ChainMismatch = "CHAIN_MISMATCH" => Some(Check::Scope),
    /// The intent is for another account than the policy's `account`.
    AccountMismatch = "ACCOUNT_MISMATCH" => Some(Check::Scope),
    /// A call's target is not in `allowed_targets`.
    TargetNotAllowed = "TARGET_NOT_ALLOWED" => Some(Check::TargetAllowlist),
    /// A call's selector is not in `allowed_selectors`.
    SelectorNotAllowed = "SELECTOR_NOT_ALLOWED" => Some(Check::SelectorAllowlist),
    /// A call's selector is in `blocked_selectors`.
    SelectorBlocked = "SELECTOR_BLOCKED" => Some(Check::BlockedSelectors),
    /// A token the intent touches is not in `allowed_tokens`.
    TokenNotAllowed = "TOKEN_NOT_ALLOWED" => Some(Check::TokenAllowlist),
    /// A token's derived outflow exceeds its spend cap (or it has none).
    SpendCapExceeded = "SPEND_CAP_EXCEEDED" => Some(Check::SpendCaps),
    /// The ether sent exceeds `max_value_wei`.
    MaxValueExceeded = "MAX_VALUE_EXCEEDED" => Some(Check::MaxValue),
    /// An approval of at least 2^128.
    UnlimitedApproval = "UNLIMITED_APPROVAL" => Some(Check::UnlimitedApproval),
    /// An approval above the token's spend cap.
    ApprovalExceedsCap = "APPROVAL_EXCEEDS_CAP" => Some(Check::UnlimitedApproval),
    /// The slippage tolerance exceeds `max_slippage_bps`.
    SlippageExceeded = "SLIPPAGE_EXCEEDED" => Some(Check::Slippage),
    /// A decoded swap's slippage cannot be derived (no matching swap facts in the report).
    SlippageUnverifiable = "SLIPPAGE_UNVERIFIABLE" => Some(Check::Slippage),
    /// A router plan holds a command the decoder does not read (a Universal Router transfer,
    /// V4 swap, position or sub-plan command, or one allowed to revert), so its trade's bounds
    /// and recipients cannot be derived; refused unless the policy names the router in
    /// `opaque_plan_routers`.
    PlanNotDecoded = "PLAN_NOT_DECODED" => Some(Check::Slippage),
    /// The simulated swap delivered the account less than the swap's own minimum output (a
    /// fee-on-transfer or rebasing output token): the minimum-output protection is illusory.
    SwapOutputBelowMinimum = "SWAP_OUTPUT_BELOW_MINIMUM" => Some(Check::Slippage),
    /// A metadata key or value matches a forbidden pattern.
    MetadataPatternMatched = "METADATA_PATTERN_MATCHED" => Some(Check::MetadataPatterns),
    /// No simulation report, but the policy requires one.
    SimulationMissing = "SIMULATION_MISSING" => Some(Check::SimulationRequired),
    /// The simulation reverted.
    SimulationFailed = "SIMULATION_FAILED" => Some(Check::SimulationSuccess),
    /// The simulation is older than `max_simulation_age_secs`.
    SimulationStale = "SIMULATION_STALE" => Some(Check::Freshness),
    /// The simulation's timestamp is after the decision time.
    SimulationFromFuture = "SIMULATION_FROM_FUTURE" => Some(Check::FutureTimestamp),
    /// The report was made for different intent bytes.
    IntentHashMismatch = "INTENT_HASH_MISMATCH" => Some(Check::IntentHash),
    /// The execution touched a contract that is not allowed.
    TouchedNotAllowed = "TOUCHED_NOT_ALLOWED" => Some(Check::TouchedAllowlist),
    /// A root of a protocol the policy trusts by descriptor runs other code than the
    /// descriptor pins (an upgraded proxy, replaced code), or its code was not read.
    ProtocolCodeChanged = "PROTOCOL_CODE_CHANGED" => Some(Check::TouchedAllowlist),
    /// The health factor after execution is below `min_health_factor_bps`.
    HealthFactorTooLow = "HEALTH_FACTOR_TOO_LOW" => Some(Check::HealthFactor),
    // Rights and lending health (adapters).
    /// `min_health_factor_bps` is set, the execution moves a lending position in a way that
    /// can lower its health factor (collateral out, debt in, a market left), and the health
    /// factor after it cannot be read.
    HealthFactorUnreadable = "HEALTH_FACTOR_UNREADABLE" => Some(Check::HealthFactor),
    /// A contract paid value out while a slot it keys by the account grew, and nothing reads
    /// that position (no adapter, no balance or allowance view explains the slot): debt taken
    /// on that nothing measures. Refused whatever `min_health_factor_bps` says, unless the
    /// policy names the contract in `unread_position_targets`.
    DebtUnreadable = "DEBT_UNREADABLE" => Some(Check::HealthFactor),
    /// The account's whole delta, valued at pre-execution prices net of payments to payees,
    /// falls by more than `max_loss_bps` of the notional (or a measured swap loses more).
    LossExceeded = "LOSS_EXCEEDED" => Some(Check::MaxLoss),
    /// An asset in the account's delta has no price from a source the policy trusts.
    UnpricedAsset = "UNPRICED_ASSET" => Some(Check::MaxLoss),
    // Protocol valuation (adapters).
    /// A feed that prices an asset of the delta answered longer ago than its age bound.
    FeedStale = "FEED_STALE" => Some(Check::MaxLoss),
    /// A feed that prices an asset of the delta has a non-positive answer or an incomplete
    /// round.
    FeedInvalid = "FEED_INVALID" => Some(Check::MaxLoss),
    /// A feed that prices an asset of the delta cannot be read as an AggregatorV3 feed, or
    /// its scale cannot be computed from the decimals.
    FeedUnreadable = "FEED_UNREADABLE" => Some(Check::MaxLoss),
    /// A feed's `scale` in the policy disagrees with the decimals the feed and its tokens
    /// report.
    FeedScaleMismatch = "FEED_SCALE_MISMATCH" => Some(Check::MaxLoss),
    /// A trusted Uniswap V3 pool that prices an asset of the delta has a `slot0` price more
    /// than `max_price_impact_bps` away from its TWAP.
    PoolPriceDiverges = "POOL_PRICE_DIVERGES" => Some(Check::MaxLoss),
    /// A position or market of a protocol the policy trusts could not be read, so its value is
    /// unknown.
    PositionUnreadable = "POSITION_UNREADABLE" => Some(Check::MaxLoss),
    /// Only inflows from counterparties that were not paid for them keep the account's delta
    /// within `max_loss_bps`: an inflow from a counterparty offsets a loss only up to the value
    /// that reached it from the account.
    UnpaidInflow = "UNPAID_INFLOW" => Some(Check::MaxLoss),
    /// The swap's price impact exceeds `max_price_impact_bps`.
    PriceImpactExceeded = "PRICE_IMPACT_EXCEEDED" => Some(Check::PriceImpact),
    /// A decoded swap's price impact cannot be derived (no matching swap facts in the report).
    PriceImpactUnverifiable = "PRICE_IMPACT_UNVERIFIABLE" => Some(Check::PriceImpact),
    /// Claimed approvals disagree with the decoded or traced ones.
    ApprovalClaimMismatch = "APPROVAL_CLAIM_MISMATCH" => Some(Check::Claims),
    /// Claimed outflows disagree with the decoded or traced ones.
    OutflowClaimMismatch = "OUTFLOW_CLAIM_MISMATCH" => Some(Check::Claims),
    /// Claimed touched contracts disagree with the traced ones.
    TouchedClaimMismatch = "TOUCHED_CLAIM_MISMATCH" => Some(Check::Claims),
    /// A swap sends its output somewhere other than the account.
    SwapRecipientNotAccount = "SWAP_RECIPIENT_NOT_ACCOUNT" => Some(Check::SwapRecipient),
    /// An approval's spender is not an allowed counterparty.
    SpenderNotAllowed = "SPENDER_NOT_ALLOWED" => Some(Check::Counterparties),
    /// An asset moves, in the account's transaction and whoever pays it, to a receiver that is
    /// not the account, an allowed counterparty, a payee or a fee recipient; or the account
    /// pays a non-payee directly.
    RecipientNotAllowed = "RECIPIENT_NOT_ALLOWED" => Some(Check::Counterparties),
    // Rights and lending health (adapters).
    /// A storage slot of a contract held the account's address before the execution and
    /// holds, after it, an address that is no known party: control (an owner, a beneficiary,
    /// an admin) handed away.
    ControllerNotAllowed = "CONTROLLER_NOT_ALLOWED" => Some(Check::Counterparties),
    /// An address that a call the decoder does not know, or an indexed event argument, names
    /// and that a contract recorded in its storage is no known party: a role handed to a
    /// stranger.
    RoleHolderNotAllowed = "ROLE_HOLDER_NOT_ALLOWED" => Some(Check::Counterparties),
    /// The calls made a contract record something under an opaque value they passed (an
    /// order's digest, a pre-signature) that the policy does not trust that contract with.
    OpaqueAuthorization = "OPAQUE_AUTHORIZATION" => Some(Check::Counterparties),
    /// A contract created during the execution names, in its storage or code, an address
    /// that is no known party: a wallet deployed in the account's transaction but controlled
    /// by someone else.
    WalletOwnerNotAllowed = "WALLET_OWNER_NOT_ALLOWED" => Some(Check::Counterparties),
    /// A contract the execution touches is already an operator of a collection the account
    /// holds items of (a standing `setApprovalForAll`): at execution it could swap or take
    /// items the bounds cannot name.
    StandingOperator = "STANDING_OPERATOR" => Some(Check::Counterparties),
    /// A policy budget is not enforced on-chain at least as strictly (or cannot be read).
    BudgetNotEnforced = "BUDGET_NOT_ENFORCED" => Some(Check::Budgets),
    /// The intent's outflow would exceed what is left of a budget's current period.
    BudgetExceeded = "BUDGET_EXCEEDED" => Some(Check::Budgets),
}

impl core::fmt::Display for ViolationCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One reason for rejection.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Violation {
    /// The stable code.
    pub code: ViolationCode,
    /// A human explanation naming the offending call, token or value.
    pub message: String,
}

impl Violation {
    /// A violation with `code` and `message`.
    pub fn new(code: ViolationCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

/// The verdict on one intent under one policy, with the hashes it was computed over.
///
/// A decision is a record: it can be read back from an audit file, and it authorizes nothing.
/// Whether it approves is fixed when it is made ([`Decision::new`]: iff there are no
/// violations) and can only be read ([`Decision::approved`]). What a PDR is signed for is
/// the verifier's `ApprovedIntent` (in `pace-verifier`), which only the verifier can make.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// `true` iff there are no violations. Serialized as `"outcome": "approve" | "reject"`.
    #[serde(rename = "outcome", with = "outcome")]
    approved: bool,
    /// The hash of the intent judged.
    #[serde(with = "crate::strict::one")]
    pub intent_hash: B256,
    /// The hash of the policy applied.
    #[serde(with = "crate::strict::one")]
    pub policy_hash: B256,
    /// The hash of the simulation report judged, if there was one.
    #[serde(default, with = "crate::strict::opt")]
    pub simulation_hash: Option<B256>,
    /// Every violation found, in check order.
    #[serde(default)]
    pub violations: Vec<Violation>,
}

impl Decision {
    /// A decision over these hashes: approved iff `violations` is empty.
    pub fn new(
        intent_hash: B256,
        policy_hash: B256,
        simulation_hash: Option<B256>,
        violations: Vec<Violation>,
    ) -> Self {
        Self {
            approved: violations.is_empty(),
            intent_hash,
            policy_hash,
            simulation_hash,
            violations,
        }
    }

    /// Whether the decision approves: it had no violations when it was made.
    pub fn approved(&self) -> bool {
        self.approved
    }

    /// The violation codes, in order.
    pub fn codes(&self) -> impl Iterator<Item = ViolationCode> + '_ {
        self.violations.iter().map(|v| v.code)
    }

    /// Whether some violation has `code`.
    pub fn has(&self, code: ViolationCode) -> bool {
        self.codes().any(|c| c == code)
    }

    /// The content hash `keccak256("PACE-RS/decision/v1\n" || canonical JSON)`; see
    /// [`crate::hash`].
    pub fn decision_hash(&self) -> B256 {
        content_hash(DECISION_DOMAIN, self)
    }

    /// Parses a decision from JSON text; `outcome` must agree with `violations`.
    pub fn from_json_str(json: &str) -> Result<Self> {
        let decision: Self = load::from_str(json)?;
        if decision.approved != decision.violations.is_empty() {
            return Err(Error::invalid(
                "outcome",
                "an approved decision has no violations and a rejected one has some",
            ));
        }
        Ok(decision)
    }
}

/// `approved: bool` <-> `"approve" | "reject"`.
mod outcome {
    use serde::{Deserialize, Deserializer, Serializer, de};

    pub(super) fn serialize<S: Serializer>(approved: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if *approved { "approve" } else { "reject" })
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        match String::deserialize(d)?.as_str() {
            "approve" => Ok(true),
            "reject" => Ok(false),
            other => Err(de::Error::invalid_value(
                de::Unexpected::Str(other),
                &"\"approve\" or \"reject\"",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_stable_strings() {
        for &code in ViolationCode::ALL {
            assert_eq!(
                serde_json::to_string(&code).unwrap(),
                format!("\"{}\"", code.as_str())
            );
            let s = code.as_str();
            assert!(
                s.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'),
                "{s}"
            );
        }
    }

    #[test]
    fn every_check_has_a_code() {
        for &check in Check::ALL {
            assert!(
                ViolationCode::ALL.iter().any(|c| c.check() == Some(check)),
                "{check:?}"
            );
        }
    }

    #[test]
    fn outcome_round_trip() {
        let d = Decision::new(
            B256::ZERO,
            B256::ZERO,
            None,
            vec![Violation::new(ViolationCode::NoCalls, "x")],
        );
        let json = serde_json::to_string(&d).unwrap();
        assert!(json.starts_with(r#"{"outcome":"reject","#), "{json}");
        assert_eq!(Decision::from_json_str(&json).unwrap(), d);
        let lying = json.replace("reject", "approve");
        assert!(Decision::from_json_str(&lying).is_err());
    }
}
