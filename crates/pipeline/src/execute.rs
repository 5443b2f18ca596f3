//! Submitting a signed PDR and reporting honestly what happened.

use crate::{
    Error, Result,
    chain::{Chain, InProcessChain, in_process, submit},
    submit::submission_calldata_for,
};
use alloy_primitives::{Address, B256, Bytes};
use alloy_sol_types::{SolCall, SolInterface};
use pace_contracts::bindings::PaceAccount;
use pace_evm::InProcessEvm;
use pace_node::NodeClient;
use pace_signer::SignedPdr;
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
        /// The account's realised balance changes in the tokens the simulation saw move.
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

/// Submits `signed` to its account on `chain` and reports the result, with the account's
/// realised balance changes in `tokens` (zero address = ETH). Uses the cheap `executePDR` path
/// when the PDR and the account (no spending budgets, read from the chain) allow it.
pub async fn submit_pdr<C: Chain>(
    chain: &mut C,
    signed: &SignedPdr,
    tokens: &[Address],
) -> Result<ExecutionResult> {
    let data = PaceAccount::budgetTokensCall {}.abi_encode();
    let out = chain.read(signed.account, data.into()).await?;
    let budgeted = !PaceAccount::budgetTokensCall::abi_decode_returns(&out)
        .map_err(|e| Error::NotPaceAccount {
            account: signed.account,
            reason: e.to_string(),
        })?
        .is_empty();
    let calldata = submission_calldata_for(signed, budgeted);
    submit(chain, signed.account, calldata, tokens).await
}

/// [`submit_pdr`] on the in-process chain, sent from `relayer`.
pub fn execute(
    world: &mut InProcessEvm,
    relayer: Address,
    signed: &SignedPdr,
    tokens: &[Address],
) -> Result<ExecutionResult> {
    in_process(submit_pdr(
        &mut InProcessChain::new(world, relayer),
        signed,
        tokens,
    ))
}

/// [`submit_pdr`] on a node, sent from the client's key.
pub async fn execute_on_node(
    client: &NodeClient,
    signed: &SignedPdr,
    tokens: &[Address],
) -> Result<ExecutionResult> {
    submit_pdr(&mut { client }, signed, tokens).await
}

/// Sends arbitrary `calldata` to `account` from `sender` on the in-process chain (the owner's
/// own call, or what a tampering relayer would send), reporting the result like [`execute`].
pub fn execute_calldata(
    world: &mut InProcessEvm,
    sender: Address,
    account: Address,
    calldata: Bytes,
    tokens: &[Address],
) -> Result<ExecutionResult> {
    in_process(submit(
        &mut InProcessChain::new(world, sender),
        account,
        calldata,
        tokens,
    ))
}

/// The outcome of a transaction that reverted with `data` (`None` when the node could not
/// recover it), decoded and classified.
pub(crate) fn reverted(
    tx_hash: Option<B256>,
    gas_used: u64,
    data: Option<&[u8]>,
) -> ExecutionResult {
    let (cause, error) = match data {
        Some(data) => (RevertCause::of(data), describe_revert(data)),
        None => (
            RevertCause::Unknown,
            "reverted (revert data unavailable)".to_owned(),
        ),
    };
    ExecutionResult::Reverted {
        tx_hash,
        gas_used,
        cause,
        error,
    }
}

/// Names the account's custom errors with their arguments; anything else is decoded by the
/// simulator's generic revert decoder.
pub(crate) fn describe_revert(data: &[u8]) -> String {
    use PaceAccount::PaceAccountErrors as E;
    match E::abi_decode(data) {
        Ok(E::PaceAccountInvalidSigner(e)) => {
            format!("PaceAccountInvalidSigner(recovered: {})", e.recovered)
        }
        Ok(E::PaceAccountInvalidNonce(e)) => {
            format!(
                "PaceAccountInvalidNonce(key: {}, expected: {}, got: {})",
                e.key, e.expected, e.got
            )
        }
        Ok(E::PaceAccountExpired(e)) => format!(
            "PaceAccountExpired(validUntil: {}, now: {})",
            e.validUntil, e.timestamp
        ),
        Ok(E::PaceAccountNotYetValid(e)) => {
            format!(
                "PaceAccountNotYetValid(validAfter: {}, now: {})",
                e.validAfter, e.timestamp
            )
        }
        Ok(E::PaceAccountStaleSimulation(e)) => format!(
            "PaceAccountStaleSimulation(simulationBlock: {}, maxAge: {}, block: {})",
            e.simulationBlock, e.maxSimulationAge, e.blockNumber
        ),
        Ok(E::PaceAccountOutcomeOutOfBounds(e)) => format!(
            "PaceAccountOutcomeOutOfBounds(token: {}, before: {}, after: {})",
            e.token, e.balanceBefore, e.balanceAfter
        ),
        Ok(E::PaceAccountCallFailed(e)) => {
            format!(
                "PaceAccountCallFailed(index: {}, reason: {})",
                e.index,
                pace_simulator::decode_revert_reason(&e.reason)
            )
        }
        Ok(other) => format!("{other:?}"),
        Err(_) => pace_simulator::decode_revert_reason(data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::SolError;

    #[test]
    fn names_account_errors() {
        let data = PaceAccount::PaceAccountInvalidSigner {
            recovered: Address::repeat_byte(1),
        }
        .abi_encode();
        assert!(describe_revert(&data).starts_with("PaceAccountInvalidSigner(recovered: 0x0101"));
    }

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
        let ExecutionResult::Reverted { cause, error, .. } = reverted(None, 1, None) else {
            panic!("a revert")
        };
        assert_eq!(cause, RevertCause::Unknown);
        assert!(error.contains("unavailable"));
    }
}
