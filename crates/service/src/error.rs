//! Service errors, each with a stable code that callers (agents) branch on.

use alloy_primitives::{Address, U256};

/// Why the service refused or failed a request. Nothing here is a verifier decision: a
/// rejected intent is a [`pace_types::Decision`] inside a successful preview.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request could not be parsed (field named in the message).
    #[error("bad request: {0}")]
    BadRequest(String),
    /// No API token, or one the service does not know.
    #[error("unauthorized: a valid API token is required")]
    Unauthorized,
    /// The caller's scopes do not admit this operation or transition (I5).
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The caller exceeded its request rate.
    #[error("rate limited: at most {per_minute} requests per minute for this token")]
    RateLimited {
        /// The token's limit.
        per_minute: u32,
    },
    /// No proposal with this id (for this caller).
    #[error("no proposal {0}")]
    NotFound(String),
    /// The proposal cannot be confirmed in its current state.
    #[error("proposal {id} is {state}; only a proposed, approved transition can be confirmed")]
    NotConfirmable {
        /// The proposal.
        id: String,
        /// Its state.
        state: String,
    },
    /// A confirmation was not given (`confirm` must be the JSON boolean `true`), or none is
    /// recorded for the rendered preview (I1).
    #[error("not confirmed: {0}")]
    NotConfirmed(String),
    /// The proposal's preview has expired.
    #[error("proposal {0} expired; propose again")]
    Expired(String),
    /// The account cannot cover an outflow on the latest state (I2).
    #[error(
        "insufficient balance of {token}: the account holds {balance}, the transition needs {needed} (shortfall {shortfall})"
    )]
    InsufficientBalance {
        /// The token (zero address: ether).
        token: Address,
        /// The account's balance on the latest block.
        balance: U256,
        /// The gross outflow the preview showed.
        needed: U256,
        /// `needed - balance`.
        shortfall: U256,
    },
    /// Re-simulation on fresh state moved past the preview's tolerance.
    #[error("preview changed: {0}")]
    PreviewChanged(String),
    /// The verifier rejected the transition on fresh state, with these violations.
    #[error("rejected on fresh state: {}", codes(.0))]
    Rejected(Vec<pace_types::ViolationCode>),
    /// An equal intent of this caller has an unreconciled, possibly landed transaction (I6).
    #[error("retry blocked: proposal {0} with the same intent is uncertain; reconcile it first")]
    RetryBlocked(String),
    /// An identical request is still being processed (I7).
    #[error("an identical request is in progress; retry later for its recorded response")]
    InProgress,
    /// The idempotency key was used before for a different request.
    #[error(
        "idempotency key reused: it was used for a different request; a new request needs a new key"
    )]
    IdempotencyKeyReused,
    /// The caller holds as many unexpired idempotency keys as it may.
    #[error(
        "idempotency keys full: this token holds {held} unexpired keys, its limit; retry once some expire"
    )]
    IdempotencyStoreFull {
        /// How many it holds.
        held: u64,
    },
    /// An unattended execution of an intent equal (same account, chain and calls) to one
    /// executed, or still executing, within the repeat window.
    #[error(
        "duplicate intent: proposal {0} runs the same calls from the same account within the repeat \
         window; check its status, or set allow_repeat to execute it again"
    )]
    DuplicateIntent(String),
    /// The proposal waits for a human's approval (the caller's approval threshold).
    #[error("approval required: {reason}; proposal {id} waits for a human's approval")]
    ApprovalRequired {
        /// The proposal.
        id: String,
        /// Why.
        reason: String,
        /// Where the human approves it, when the service knows its own address.
        url: Option<String>,
    },
    /// A human declined the proposal.
    #[error("proposal {0} was declined by a human")]
    Declined(String),
    /// The kill switch is on: every confirm is refused.
    #[error("halted: the kill switch refuses every confirm ({0})")]
    Halted(String),
    /// Pre-flight: the account is paused.
    #[error("account {0} is paused: it refuses every PDR; nothing was signed or sent")]
    AccountPaused(Address),
    /// Pre-flight: the account trusts another verifier key.
    #[error(
        "account {account} trusts verifier {trusted}, not this service's {ours}: nothing was signed or sent"
    )]
    VerifierNotTrusted {
        /// The account.
        account: Address,
        /// The verifier it trusts.
        trusted: Address,
        /// The pipeline's verifier.
        ours: Address,
    },
    /// Pre-flight: there is no contract at the account's address.
    #[error("no code at account {0}: nothing was signed or sent")]
    NoAccountCode(Address),
    /// Pre-flight: the account's views cannot be read as a PACE account's.
    #[error(
        "account {account} does not answer as a PACE account ({reason}): nothing was signed or sent"
    )]
    NotPaceAccount {
        /// The account.
        account: Address,
        /// What failed.
        reason: String,
    },
    /// The tenant's relayer gas budget for the last 24 h would be exceeded.
    #[error(
        "relayer gas budget of tenant {tenant}: {spent} of {budget} wei spent in 24 h, this \
         transaction may cost {needed}; nothing was signed"
    )]
    GasBudgetExceeded {
        /// The tenant.
        tenant: String,
        /// Its budget per 24 h.
        budget: U256,
        /// Charged in the last 24 h.
        spent: U256,
        /// The most this transaction may cost.
        needed: U256,
    },
    /// The router cannot quote the swap asked for (it reverted: no such pair, no liquidity,
    /// not a Uniswap V2 Router02).
    #[error(
        "no quote: router {router} could not quote the path ({reason}); name a Uniswap V2 \
         Router02 and a path whose every pair exists and holds enough liquidity"
    )]
    QuoteUnavailable {
        /// The router asked.
        router: Address,
        /// Why it could not answer.
        reason: String,
    },
    /// The intent is for another chain than the one the service runs on.
    #[error("wrong chain: the intent is for chain {intent}, this service runs on chain {chain}")]
    WrongChain {
        /// The intent's chain id.
        intent: u64,
        /// The service's.
        chain: u64,
    },
    /// The service is shutting down: it takes no new proposal or confirmation (nothing was
    /// signed for this request).
    #[error(
        "shutting down: this instance takes no new request; retry on another or after its restart"
    )]
    ShuttingDown,
    /// Every nonce lane this instance owns is held by a live PDR.
    #[error("no free nonce lane: every lane of this instance holds a live PDR")]
    NoFreeLane,
    /// The store failed.
    #[error("store: {0}")]
    Store(String),
    /// The store cannot be reached (the database is down, restarting, or out of connections):
    /// nothing was decided; retry after `Retry-After`.
    #[error("store unavailable: {0}; nothing was decided, retry shortly")]
    StoreUnavailable(String),
    /// The signed PDR would land after its `validUntil` (the node's pending block is past
    /// it): nothing was sent.
    #[error(
        "the PDR would land at {landing}, after its window closed at {valid_until}: nothing was \
         sent; propose again"
    )]
    LandsExpired {
        /// The PDR's `validUntil`.
        valid_until: u64,
        /// When it would land.
        landing: u64,
    },
    /// The signed PDR would land in a block past its simulation's freshness limit
    /// (`simulationBlock + maxSimulationAge`: the node's pending block is later): nothing was
    /// sent.
    #[error(
        "the PDR would land in block {landing_block}, past its simulation at block \
         {simulation_block} plus {max_age} blocks: nothing was sent; propose again"
    )]
    LandsStale {
        /// The block the PDR's simulation ran on.
        simulation_block: u64,
        /// Its `maxSimulationAge`, in blocks.
        max_age: u16,
        /// The block it would land in.
        landing_block: u64,
    },
    /// The tenants and policies published in the store are not the ones this instance runs
    /// (another instance started with others): it decides nothing until restarted with them.
    #[error(
        "this instance's tenants or policies are not the ones published in the store; it \
         decides nothing until it is restarted with them (retry on another instance)"
    )]
    ConfigStale,
    /// This instance lost a lease it signs or sends under (another instance took the lane or
    /// the relayer while this one was paused or cut off): nothing was signed or sent.
    #[error("fenced: {0}")]
    Fenced(String),
    /// The sequence is held by another signature: nothing was signed.
    #[error("sequence {sequence} of lane {lane} is held by another signature; nothing was signed")]
    SequenceTaken {
        /// The lane.
        lane: u32,
        /// The sequence.
        sequence: u64,
    },
    /// A charge would take a counter over its limit (the store's check; the service turns it
    /// into `APPROVAL_REQUIRED` or `GAS_BUDGET_EXCEEDED`).
    #[error("{kind} charged to {who} is at {spent} wei: over its limit")]
    ChargeOverLimit {
        /// `value` or `gas`.
        kind: String,
        /// Who is charged.
        who: String,
        /// What was charged within the window.
        spent: U256,
    },
    /// Another live instance holds the relayer's lease.
    #[error(
        "relayer {relayer} is in use by instance {holder} (its lease runs {for_ms} ms more): give \
         each instance its own relayer key"
    )]
    RelayerInUse {
        /// The relayer.
        relayer: Address,
        /// The instance holding it.
        holder: String,
        /// How long its lease still runs.
        for_ms: u64,
    },
    /// The pipeline (simulation, signing, submission) failed; nothing was submitted.
    #[error("pipeline: {0}")]
    Pipeline(pace_pipeline::Error),
    /// The node could not be read (nothing was signed or sent because of it).
    #[error("chain: {0}")]
    Chain(String),
    /// Bad configuration (keys, tokens, listener).
    #[error("config: {0}")]
    Config(String),
}

impl From<pace_pipeline::Error> for Error {
    /// An account whose state the pipeline cannot read as a PACE account's is the client's
    /// `NOT_A_PACE_ACCOUNT`, as pre-flight names it; anything else is the pipeline's.
    fn from(e: pace_pipeline::Error) -> Self {
        match e {
            pace_pipeline::Error::NotPaceAccount { account, reason } => {
                Self::NotPaceAccount { account, reason }
            }
            e => Self::Pipeline(e),
        }
    }
}

impl Error {
    /// The stable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadRequest(_) => "BAD_REQUEST",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Forbidden(_) => "FORBIDDEN_SCOPE",
            Self::RateLimited { .. } => "RATE_LIMITED",
            Self::NotFound(_) => "NOT_FOUND",
            Self::NotConfirmable { .. } => "NOT_CONFIRMABLE",
            Self::NotConfirmed(_) => "NOT_CONFIRMED",
            Self::Expired(_) => "EXPIRED",
            Self::InsufficientBalance { .. } => "INSUFFICIENT_BALANCE",
            Self::PreviewChanged(_) => "PREVIEW_CHANGED",
            Self::Rejected(_) => "REJECTED",
            Self::RetryBlocked(_) => "RETRY_BLOCKED",
            Self::InProgress => "IN_PROGRESS",
            Self::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            Self::IdempotencyStoreFull { .. } => "IDEMPOTENCY_STORE_FULL",
            Self::DuplicateIntent(_) => "DUPLICATE_INTENT",
            Self::ApprovalRequired { .. } => "APPROVAL_REQUIRED",
            Self::Declined(_) => "DECLINED",
            Self::Halted(_) => "HALTED",
            Self::AccountPaused(_) => "ACCOUNT_PAUSED",
            Self::VerifierNotTrusted { .. } => "VERIFIER_NOT_TRUSTED",
            Self::NoAccountCode(_) => "NO_ACCOUNT_CODE",
            Self::NotPaceAccount { .. } => "NOT_A_PACE_ACCOUNT",
            Self::GasBudgetExceeded { .. } => "GAS_BUDGET_EXCEEDED",
            Self::WrongChain { .. } => "WRONG_CHAIN",
            Self::QuoteUnavailable { .. } => "QUOTE_UNAVAILABLE",
            Self::ShuttingDown => "SHUTTING_DOWN",
            Self::NoFreeLane => "NO_FREE_LANE",
            Self::Store(_) => "STORE",
            Self::StoreUnavailable(_) => "STORE_UNAVAILABLE",
            Self::Fenced(_) => "FENCED",
            Self::ConfigStale => "CONFIG_STALE",
            Self::LandsExpired { .. } => "LANDS_EXPIRED",
            Self::LandsStale { .. } => "LANDS_STALE",
            Self::SequenceTaken { .. } => "SEQUENCE_TAKEN",
            Self::ChargeOverLimit { .. } => "STORE",
            Self::RelayerInUse { .. } => "CONFIG",
            Self::Pipeline(_) => "PIPELINE",
            Self::Chain(_) => "CHAIN",
            Self::Config(_) => "CONFIG",
        }
    }

    /// The HTTP status this error maps to.
    pub fn http_status(&self) -> u16 {
        match self {
            Self::BadRequest(_) | Self::NotConfirmed(_) => 400,
            Self::Unauthorized => 401,
            Self::Forbidden(_) => 403,
            Self::NotFound(_) => 404,
            Self::NotConfirmable { .. }
            | Self::LandsExpired { .. }
            | Self::LandsStale { .. }
            | Self::RetryBlocked(_)
            | Self::InProgress
            | Self::DuplicateIntent(_)
            | Self::Declined(_) => 409,
            Self::ApprovalRequired { .. } => 202,
            Self::Expired(_) => 410,
            Self::InsufficientBalance { .. }
            | Self::PreviewChanged(_)
            | Self::Rejected(_)
            | Self::IdempotencyKeyReused
            | Self::AccountPaused(_)
            | Self::VerifierNotTrusted { .. }
            | Self::NoAccountCode(_)
            | Self::NotPaceAccount { .. }
            | Self::WrongChain { .. }
            | Self::QuoteUnavailable { .. } => 422,
            Self::RateLimited { .. }
            | Self::IdempotencyStoreFull { .. }
            | Self::GasBudgetExceeded { .. } => 429,
            Self::NoFreeLane
            | Self::Halted(_)
            | Self::ShuttingDown
            | Self::StoreUnavailable(_)
            | Self::Fenced(_)
            | Self::ConfigStale
            | Self::SequenceTaken { .. } => 503,
            Self::Chain(_) => 502,
            Self::Store(_)
            | Self::Pipeline(_)
            | Self::Config(_)
            | Self::ChargeOverLimit { .. }
            | Self::RelayerInUse { .. } => 500,
        }
    }

    /// Seconds after which a retry may succeed, for every 429 and 503 (the HTTP
    /// `Retry-After` header, and `retry_after_secs` in the error body): when the rate window
    /// turns, when a lane or the store may be free again, when the kill switch may be lifted.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::RateLimited { .. } => Some(self.rate_window_left()),
            Self::IdempotencyStoreFull { .. } => Some(60),
            Self::GasBudgetExceeded { .. } => Some(3_600),
            Self::NoFreeLane | Self::SequenceTaken { .. } | Self::Fenced(_) => Some(2),
            Self::StoreUnavailable(_) => Some(2),
            Self::ShuttingDown => Some(1),
            Self::Halted(_) => Some(30),
            Self::InProgress => Some(1),
            _ if matches!(self.http_status(), 429 | 503) => Some(5),
            _ => None,
        }
    }

    /// Seconds left in the current minute's rate window.
    fn rate_window_left(&self) -> u64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        60 - now % 60
    }

    /// The JSON body of this error: `{"error": {"code", "message"}}`, plus `proposal_id` and
    /// `approval_url` for `APPROVAL_REQUIRED`, and `proposal_id` when the error names the
    /// proposal an agent should check (`DUPLICATE_INTENT`, `RETRY_BLOCKED`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut error = serde_json::json!({ "code": self.code(), "message": self.to_string() });
        if let Some(secs) = self.retry_after() {
            error["retry_after_secs"] = serde_json::json!(secs);
        }
        match self {
            Self::ApprovalRequired { id, url, .. } => {
                error["proposal_id"] = serde_json::json!(id);
                error["approval_url"] = serde_json::json!(url);
            }
            Self::DuplicateIntent(id) | Self::RetryBlocked(id) => {
                error["proposal_id"] = serde_json::json!(id);
            }
            _ => {}
        }
        serde_json::json!({ "error": error })
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Self::Store(e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Self::Store(format!("stored JSON: {e}"))
    }
}

/// `A, B`: the violation codes, as the error message shows them.
fn codes(codes: &[pace_types::ViolationCode]) -> String {
    let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
    codes.join(", ")
}

/// `Result` with the service's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

#[cfg(test)]
mod tests;
