//! [`Discrepancy`]: where two trusted views of the same execution disagree.

use alloy_primitives::{Address, I256, U256};
use core::fmt;

/// A disagreement between the logs of the execution and the state it left.
///
/// Honest ERC-20 tokens never produce one. A token that moves balances without logging it,
/// logs transfers it does not make, or changes allowances silently does; so does a
/// fee-on-transfer or rebasing token that does not log its fee. The report keeps the
/// state-derived facts (balance changes, allowance diffs); the discrepancy says that the
/// log-derived ones (token flows, approvals) do not tell the whole story.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Discrepancy {
    /// The account's net flow of `token` in the logs (ERC-20 `Transfer`s; for ether
    /// ([`pace_types::ETH`]) the traced value transfers) differs from the change of its
    /// balance.
    FlowBalanceMismatch {
        /// The token.
        token: Address,
        /// Inflows minus outflows of the account in the logs.
        logged_net: I256,
        /// `balanceOf(account)` after minus before.
        balance_delta: I256,
    },
    /// An allowance of the account moved in a way its `Approval` logs do not explain: it ended
    /// above the last logged amount (or above its start without a log), or fell by more than
    /// the account's logged outflow of the token.
    AllowanceMismatch {
        /// The token.
        token: Address,
        /// The spender.
        spender: Address,
        /// `allowance(account, spender)` before execution.
        before: U256,
        /// The allowance after execution.
        after: U256,
        /// The last amount an `Approval` log of the account set for this spender, if any.
        logged: Option<U256>,
    },
    /// The logs move `token` for the account, but `balanceOf(account)` could not be read
    /// before or after execution, so no balance change is reported for it.
    BalanceUnreadable {
        /// The token.
        token: Address,
    },
    /// The inspector and the execution result disagree on the number of logs a call emitted
    /// (an internal inconsistency; the approvals of that call are then all listed).
    TraceLogMismatch {
        /// Index of the call in the intent.
        call: usize,
        /// Logs the inspector kept.
        traced: usize,
        /// Logs of the execution result.
        logged: usize,
    },
    /// A swap call's pools could not be identified (no matching `Swap` log, no factory
    /// `getPair`) or have no reserves: the report has no swap facts for it.
    SwapUnpriced {
        /// Index of the call in the intent.
        call: usize,
        /// The first hop's input token.
        token_a: Address,
        /// The first hop's output token.
        token_b: Address,
    },
}

impl fmt::Display for Discrepancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FlowBalanceMismatch {
                token,
                logged_net,
                balance_delta,
            } => write!(
                f,
                "token {token}: the logs move {logged_net} for the account, its balance changed by {balance_delta}"
            ),
            Self::AllowanceMismatch {
                token,
                spender,
                before,
                after,
                logged,
            } => {
                write!(
                    f,
                    "token {token}, spender {spender}: allowance went from {before} to {after}"
                )?;
                match logged {
                    Some(amount) => write!(f, ", but the last Approval log set {amount}"),
                    None => f.write_str(" without an Approval log"),
                }
            }
            Self::BalanceUnreadable { token } => {
                write!(
                    f,
                    "token {token}: the logs move it for the account, but balanceOf cannot be read"
                )
            }
            Self::TraceLogMismatch {
                call,
                traced,
                logged,
            } => {
                write!(
                    f,
                    "call {call}: the inspector kept {traced} logs, the execution returned {logged}"
                )
            }
            Self::SwapUnpriced {
                call,
                token_a,
                token_b,
            } => {
                write!(
                    f,
                    "call {call}: no pool with reserves found for the swap {token_a} -> {token_b}"
                )
            }
        }
    }
}
