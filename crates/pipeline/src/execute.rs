//! Submitting a signed PDR and reporting honestly what happened.

use crate::{Result, submit::submission_calldata_for};
use alloy_primitives::{Address, B256, Bytes, I256, U256};
use alloy_sol_types::SolInterface;
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_evm::InProcessEvm;
use pace_signer::SignedPdr;
use pace_types::{BalanceChange, ETH};

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

/// Submits `signed` to the account from `relayer` on the in-process chain and reports the
/// result, with the account's realised balance changes in `tokens` (zero address = ETH). Uses
/// the cheap `executePDR` path when the PDR and the account (no spending budgets) allow it.
pub fn execute(
    world: &mut InProcessEvm,
    relayer: Address,
    signed: &SignedPdr,
    tokens: &[Address],
) -> Result<ExecutionResult> {
    let budgeted = !world
        .view_sol(signed.account, &PaceAccount::budgetTokensCall {})?
        .is_empty();
    execute_calldata(
        world,
        relayer,
        signed.account,
        submission_calldata_for(signed, budgeted),
        tokens,
    )
}

/// Sends arbitrary `calldata` to `account` from `relayer` (what a tampering agent would do),
/// reporting the result like [`execute`].
pub fn execute_calldata(
    world: &mut InProcessEvm,
    relayer: Address,
    account: Address,
    calldata: Bytes,
    tokens: &[Address],
) -> Result<ExecutionResult> {
    let before: Vec<U256> = tokens.iter().map(|&t| balance(world, t, account)).collect();
    let outcome = world.call(relayer, account, U256::ZERO, calldata)?;
    if !outcome.success {
        let data = outcome.revert.clone().unwrap_or_default();
        return Ok(ExecutionResult::Reverted {
            tx_hash: None,
            gas_used: outcome.gas_used,
            error: describe_revert(&data),
        });
    }
    let balance_changes = tokens
        .iter()
        .zip(before)
        .filter_map(|(&token, before)| {
            let after = balance(world, token, account);
            let delta = I256::from_raw(after.wrapping_sub(before));
            (delta != I256::ZERO).then_some(BalanceChange { token, delta })
        })
        .collect();
    Ok(ExecutionResult::Executed {
        tx_hash: None,
        gas_used: outcome.gas_used,
        balance_changes,
    })
}

fn balance(world: &InProcessEvm, token: Address, who: Address) -> U256 {
    if token == ETH {
        return world.balance(who);
    }
    world
        .view_sol(token, &IERC20::balanceOfCall { account: who })
        .unwrap_or_default()
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
}
