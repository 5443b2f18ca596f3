//! [`ExecutionResult`]: what the chain did with a submission, and never more than it showed.

use alloy_primitives::B256;
use alloy_sol_types::SolInterface;
use pace_abi::{
    bindings::PaceAccount,
    revert::{account_revert_meaning, describe_account_revert},
};
use pace_node::TxOutcome;
use pace_types::BalanceChange;

/// What the chain did with a submission.
///
/// Execution-fidelity invariants: `Executed` only with the transaction's own successful result
/// (a receipt with status 1 on a node), `Reverted` only when the transaction is known to have
/// reverted, and `Uncertain` whenever it may have landed but no result was seen.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ExecutionResult {
    /// The transaction succeeded.
    Executed {
        /// The transaction hash (`None` in process, where transactions have no hash).
        tx_hash: Option<B256>,
        /// Gas used by the whole transaction.
        gas_used: u64,
        /// The account's realised balance changes in the tokens the submitter watched.
        balance_changes: Vec<BalanceChange>,
    },
    /// The transaction reverted; nothing it did persists.
    Reverted {
        /// The transaction hash (`None` in process).
        tx_hash: Option<B256>,
        /// Gas used.
        gas_used: u64,
        /// Who refused.
        cause: RevertCause,
        /// The decoded revert, e.g. `PaceAccountInvalidSigner(recovered: 0x…)`.
        error: String,
        /// What it means, for one of the account's errors
        /// ([`pace_abi::revert::account_revert_meaning`]): the bounds held, the nonce was
        /// already used (someone else landed the PDR), the target reverted, ...
        #[serde(default, skip_serializing_if = "Option::is_none")]
        explanation: Option<String>,
    },
    /// The transaction may or may not have landed.
    Uncertain {
        /// The hash, if the transaction was broadcast.
        tx_hash: Option<B256>,
        /// Why the outcome is unknown.
        reason: String,
    },
}

/// Who stopped a reverted transaction, from its revert data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RevertCause {
    /// The account refused the submission itself (signature, nonce, validity window,
    /// simulation age, gas floor, outcome bounds, budget, pause, owner checks): for a PDR, the
    /// on-chain re-check rejected it.
    Account,
    /// A call the account made failed (`PaceAccountCallFailed`).
    Call,
    /// Revert data that is not one of the account's errors.
    Other,
    /// The revert data could not be recovered.
    Unknown,
}

impl RevertCause {
    /// Classifies revert `data`.
    pub fn of(data: &[u8]) -> Self {
        use PaceAccount::PaceAccountErrors as E;
        match E::abi_decode(data) {
            Ok(E::PaceAccountCallFailed(_)) => Self::Call,
            Ok(_) => Self::Account,
            Err(_) => Self::Other,
        }
    }
}

impl ExecutionResult {
    /// For a revert, the name of the error as [`describe_account_revert`] renders it (the
    /// account error's name, e.g. `PaceAccountOutcomeOutOfBounds`, or the whole reason of
    /// anything else): what an audit log records as the outcome's code.
    pub fn revert_name(&self) -> Option<&str> {
        match self {
            Self::Reverted { error, .. } => error.split('(').next(),
            _ => None,
        }
    }

    /// The outcome of a transaction that reverted with `data` (`None` when the node could not
    /// recover it), decoded and classified.
    pub(crate) fn reverted(tx_hash: Option<B256>, gas_used: u64, data: Option<&[u8]>) -> Self {
        let (cause, error, explanation) = match data {
            Some(data) => (
                RevertCause::of(data),
                describe_account_revert(data),
                account_revert_meaning(data),
            ),
            None => (
                RevertCause::Unknown,
                "reverted (revert data unavailable)".to_owned(),
                None,
            ),
        };
        Self::Reverted {
            tx_hash,
            gas_used,
            cause,
            error,
            explanation,
        }
    }
}

/// What a node's [`TxOutcome`] means, without balance changes (a submission adds them): the
/// one mapping for every [`crate::Chain`] on a node, a revert's data decoded and classified.
impl From<TxOutcome> for ExecutionResult {
    fn from(outcome: TxOutcome) -> Self {
        match outcome {
            TxOutcome::Executed {
                tx_hash, gas_used, ..
            } => Self::Executed {
                tx_hash: Some(tx_hash),
                gas_used,
                balance_changes: Vec::new(),
            },
            TxOutcome::Reverted {
                tx_hash,
                gas_used,
                revert_data,
                ..
            } => Self::reverted(
                Some(tx_hash),
                gas_used,
                revert_data.as_ref().map(|d| &d[..]),
            ),
            TxOutcome::Uncertain { tx_hash, reason } => Self::Uncertain {
                tx_hash,
                reason: reason.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, Bytes};
    use alloy_sol_types::SolError;

    #[test]
    fn classifies_who_refused() {
        let signer = PaceAccount::PaceAccountInvalidSigner {
            recovered: Address::ZERO,
        }
        .abi_encode();
        let call = PaceAccount::PaceAccountCallFailed {
            index: alloy_primitives::U256::ZERO,
            reason: Bytes::new(),
        }
        .abi_encode();
        assert_eq!(RevertCause::of(&signer), RevertCause::Account);
        assert_eq!(RevertCause::of(&call), RevertCause::Call);
        assert_eq!(RevertCause::of(b"\x08\xc3\x79\xa0"), RevertCause::Other);
        assert_eq!(RevertCause::of(&[]), RevertCause::Other);
        let ExecutionResult::Reverted { cause, error, .. } =
            ExecutionResult::reverted(None, 1, None)
        else {
            panic!("a revert")
        };
        assert_eq!(cause, RevertCause::Unknown);
        assert!(error.contains("unavailable"));
    }
}
