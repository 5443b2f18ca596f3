//! The EntryPoint path: the relayer bundles the PDR's user operation itself (`handleOps`, one
//! operation, the relayer its beneficiary), since a PDR needs no public bundler; pass 2 runs
//! that exact bundle, and the chain's outcome is read from the EntryPoint's own events.

use super::ENTRY_POINT;
use crate::{Error, ExecutionResult, Relayer, Result, RevertCause};
use alloy_primitives::{Address, B256, Bytes, I256, Log, U256};
use alloy_sol_types::{SolCall, SolError, SolEvent};
use pace_abi::bindings::IERC20;
use pace_evm::InProcessEvm;
use pace_types::{BalanceChange, ETH, SimulationReport};

alloy_sol_types::sol! {
    /// The EntryPoint v0.8's bundle entry point and the events it reports each operation with.
    interface IEntryPointBundle {
        function balanceOf(address account) external view returns (uint256);

        event UserOperationEvent(
            bytes32 indexed userOpHash,
            address indexed sender,
            address indexed paymaster,
            uint256 nonce,
            bool success,
            uint256 actualGasCost,
            uint256 actualGasUsed
        );
        error FailedOp(uint256 opIndex, string reason);
        error FailedOpWithRevert(uint256 opIndex, string reason, bytes inner);

        event UserOperationRevertReason(
            bytes32 indexed userOpHash,
            address indexed sender,
            uint256 nonce,
            bytes revertReason
        );
    }
}

/// What the EntryPoint's events say about operation `user_op_hash` of a landed bundle:
/// `Some(Ok(gas cost))` when it ran and succeeded, `Some(Err(revert data))` when its execution
/// reverted, `None` when the logs do not report it.
pub(crate) fn op_outcome(logs: &[Log], user_op_hash: B256) -> Option<Result<U256, Bytes>> {
    let from_entry_point = |log: &&Log| log.address == ENTRY_POINT;
    let event = logs.iter().filter(from_entry_point).find_map(|log| {
        IEntryPointBundle::UserOperationEvent::decode_log(log)
            .ok()
            .filter(|e| e.userOpHash == user_op_hash)
    })?;
    if event.success {
        return Some(Ok(event.actualGasCost));
    }
    let reason = logs
        .iter()
        .filter(from_entry_point)
        .find_map(|log| {
            IEntryPointBundle::UserOperationRevertReason::decode_log(log)
                .ok()
                .filter(|e| e.userOpHash == user_op_hash)
                .map(|e| e.data.revertReason)
        })
        .unwrap_or_default();
    Some(Err(reason))
}

/// The chain's outcome of a bundle that landed (`landed`, what the transaction itself did),
/// judged by the operation's own event: executed only when the EntryPoint reports it
/// succeeded, reverted when it reports a revert, uncertain when it reports nothing.
pub(crate) fn bundle_result(
    landed: ExecutionResult,
    logs: &[Log],
    user_op_hash: B256,
) -> ExecutionResult {
    let ExecutionResult::Executed {
        tx_hash, gas_used, ..
    } = landed
    else {
        return landed;
    };
    match op_outcome(logs, user_op_hash) {
        Some(Ok(_)) => landed,
        Some(Err(reason)) => {
            let mut result = ExecutionResult::reverted(tx_hash, gas_used, Some(&reason));
            if let ExecutionResult::Reverted { cause, error, .. } = &mut result
                && reason.is_empty()
            {
                *cause = RevertCause::Unknown;
                *error = "the user operation's execution reverted".into();
            }
            result
        }
        None => ExecutionResult::Uncertain {
            tx_hash,
            reason: format!("the bundle landed without an event for user operation {user_op_hash}"),
        },
    }
}

/// Pass 2 on the EntryPoint path: runs the bundle `data` from `relayer` on a copy of `state`
/// in the next block (no earlier than `valid_after`), and returns the account's balance
/// changes in the tokens `expected` moved, with ether counted before the operation's gas (its
/// balance and EntryPoint deposit together, plus the gas the operation paid). Errors with
/// [`Error::Diverged`] when the bundle or the operation fails.
pub(crate) fn run_bundle(
    state: &InProcessEvm,
    relayer: &Relayer,
    account: Address,
    data: Bytes,
    user_op_hash: B256,
    valid_after: u64,
    expected: &SimulationReport,
) -> Result<Vec<BalanceChange>> {
    let mut fork = state.clone();
    let next = pace_simulator::SubmissionBlock::after(state);
    fork.set_block(next.number, next.timestamp.max(valid_after));
    fork.set_tx_gas_limit(relayer.gas_limit);
    let tokens: Vec<Address> = expected.balance_changes.iter().map(|c| c.token).collect();
    let before = balances(&fork, account, &tokens)?;
    let outcome = fork.call(relayer.address, ENTRY_POINT, U256::ZERO, data)?;
    if !outcome.success {
        let reason = outcome.revert.unwrap_or_default();
        return Err(Error::Diverged(format!(
            "the bundle reverts: {}",
            bundle_revert(&reason)
        )));
    }
    let gas_cost = match op_outcome(&outcome.logs, user_op_hash) {
        Some(Ok(cost)) => cost,
        Some(Err(reason)) => {
            return Err(Error::Diverged(format!(
                "the user operation reverts: {}",
                pace_abi::revert::decode_revert_reason(&reason)
            )));
        }
        None => {
            return Err(Error::Diverged(
                "the bundle reports no event for the user operation".into(),
            ));
        }
    };
    let after = balances(&fork, account, &tokens)?;
    let mut changes = Vec::new();
    for ((&token, b), a) in tokens.iter().zip(before).zip(after) {
        let mut delta = I256::from_raw(a.wrapping_sub(b));
        if token == ETH {
            delta += I256::from_raw(gas_cost);
        }
        if delta != I256::ZERO {
            changes.push(BalanceChange { token, delta });
        }
    }
    Ok(changes)
}

/// A reverted bundle's reason: the EntryPoint's `FailedOp` / `FailedOpWithRevert` (its
/// `AAxx` code and text, and the account's own revert), or the generic decoding.
pub(crate) fn bundle_revert(data: &[u8]) -> String {
    use IEntryPointBundle::{FailedOp, FailedOpWithRevert};
    if let Ok(e) = FailedOp::abi_decode(data) {
        return format!("FailedOp({})", e.reason);
    }
    if let Ok(e) = FailedOpWithRevert::abi_decode(data) {
        return format!(
            "FailedOpWithRevert({}, {})",
            e.reason,
            pace_abi::revert::describe_account_revert(&e.inner)
        );
    }
    pace_abi::revert::decode_revert_reason(data)
}

/// `account`'s balance of each of `tokens`; for ether, its balance plus its EntryPoint deposit.
fn balances(world: &InProcessEvm, account: Address, tokens: &[Address]) -> Result<Vec<U256>> {
    let read = |to: Address, data: Vec<u8>| -> Result<U256> {
        let out = world.view(to, data.into())?;
        Ok(U256::try_from_be_slice(out.get(..32).unwrap_or_default()).unwrap_or_default())
    };
    tokens
        .iter()
        .map(|&token| {
            if token == ETH {
                let deposit = read(
                    ENTRY_POINT,
                    IEntryPointBundle::balanceOfCall { account }.abi_encode(),
                )?;
                let ether = world.balance(account).map_err(pace_evm::Error::Fork)?;
                Ok(ether.saturating_add(deposit))
            } else {
                read(token, IERC20::balanceOfCall { account }.abi_encode())
            }
        })
        .collect()
}
