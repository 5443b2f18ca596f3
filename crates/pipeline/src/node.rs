//! Submitting a signed PDR to a real node over JSON-RPC.

use crate::{ExecutionResult, execute::describe_revert, submit::submission_calldata_for};
use alloy_primitives::{Address, I256, U256};
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_node::{NodeClient, Tx, TxOutcome};
use pace_signer::SignedPdr;
use pace_types::{BalanceChange, ETH};

/// Gas limit of PDR submissions: set explicitly so that a submission the node would revert is
/// still mined and its revert recorded on-chain, instead of being refused by gas estimation.
pub const SUBMISSION_GAS_LIMIT: u64 = 3_000_000;

/// Submits `signed` through `client` and waits for the receipt.
///
/// `Executed` only with a receipt of status 1, `Reverted` only with a receipt of status 0;
/// a transaction that may have been broadcast but has no receipt is `Uncertain` with its hash.
/// Balance changes are read at the latest block before and after, for `tokens` (zero = ETH).
/// An error means nothing was broadcast.
pub async fn execute_on_node(
    client: &NodeClient,
    signed: &SignedPdr,
    tokens: &[Address],
) -> Result<ExecutionResult, pace_node::Error> {
    let account = signed.account;
    let mut before = Vec::with_capacity(tokens.len());
    for &t in tokens {
        before.push(balance(client, t, account).await?);
    }
    let budgeted = !client
        .call_sol(account, &PaceAccount::budgetTokensCall {})
        .await?
        .is_empty();
    let tx = Tx::call(
        account,
        U256::ZERO,
        submission_calldata_for(signed, budgeted),
    )
    .with_gas_limit(SUBMISSION_GAS_LIMIT);
    Ok(match client.execute(tx).await? {
        TxOutcome::Executed {
            tx_hash, gas_used, ..
        } => {
            let mut balance_changes = Vec::new();
            for (&token, before) in tokens.iter().zip(before) {
                // A failed read after a landed transaction must not turn success into failure.
                let Ok(after) = balance(client, token, account).await else {
                    continue;
                };
                let delta = I256::from_raw(after.wrapping_sub(before));
                if delta != I256::ZERO {
                    balance_changes.push(BalanceChange { token, delta });
                }
            }
            ExecutionResult::Executed {
                tx_hash: Some(tx_hash),
                gas_used,
                balance_changes,
            }
        }
        TxOutcome::Reverted {
            tx_hash,
            gas_used,
            revert_data,
            ..
        } => ExecutionResult::Reverted {
            tx_hash: Some(tx_hash),
            gas_used,
            error: revert_data.map_or_else(
                || "reverted (revert data unavailable)".to_owned(),
                |d| describe_revert(&d),
            ),
        },
        TxOutcome::Uncertain { tx_hash, reason } => ExecutionResult::Uncertain {
            tx_hash,
            reason: reason.to_string(),
        },
    })
}

async fn balance(
    client: &NodeClient,
    token: Address,
    who: Address,
) -> Result<U256, pace_node::Error> {
    if token == ETH {
        return client.balance(who).await;
    }
    client
        .call_sol(token, &IERC20::balanceOfCall { account: who })
        .await
}
