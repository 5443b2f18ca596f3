//! Replacing a stuck transaction: the same nonce and call, higher fees.

use super::NodeClient;
use crate::{
    error::{Error, Result},
    outcome::{Submission, Tx},
};
use alloy::{
    consensus::Transaction as _,
    eips::eip2718::Encodable2718,
    network::{NetworkTransactionBuilder, TransactionBuilder},
    providers::Provider,
    rpc::types::TransactionRequest,
};
use alloy_primitives::{B256, TxKind};

/// How much a replacement raises both fees, in basis points (nodes require at least 10 %).
pub const REPLACEMENT_BUMP_BPS: u128 = 1_250;

/// The smallest raise a node accepts for a replacement, in basis points.
const NODE_MIN_BUMP_BPS: u128 = 1_000;

/// `fee` raised by `bps` basis points, rounded up.
fn raised(fee: u128, bps: u128) -> u128 {
    fee.saturating_mul(10_000 + bps).div_ceil(10_000)
}

impl NodeClient {
    /// Replaces this account's pending transaction `tx_hash`: the same nonce, callee, value,
    /// input and gas limit, with `maxFeePerGas` and `maxPriorityFeePerGas` raised by
    /// [`REPLACEMENT_BUMP_BPS`] (or to the current estimate when that is higher), never above
    /// the fee cap. One nonce: the original or the replacement can land, never both.
    ///
    /// `before_broadcast` gets the replacement's [`Submission`] before it is broadcast, as in
    /// [`Self::submit_recorded`]. `Err` means nothing was broadcast: the transaction is
    /// unknown, already mined or another account's, or the cap leaves no room for the raise
    /// ([`Error::NotReplaceable`]), or the node refused.
    pub async fn replace(
        &self,
        tx_hash: B256,
        before_broadcast: impl FnOnce(&Submission) -> std::result::Result<(), String>,
    ) -> Result<Submission> {
        let _one_at_a_time = self.sending.lock().await;
        let old = self
            .rpc(
                "eth_getTransactionByHash",
                self.provider.get_transaction_by_hash(tx_hash),
            )
            .await?
            .ok_or_else(|| Error::NotReplaceable(format!("{tx_hash} is unknown to the node")))?;
        if old.block_number.is_some() {
            return Err(Error::NotReplaceable(format!("{tx_hash} is already mined")));
        }
        if old.inner.signer() != self.from {
            return Err(Error::NotReplaceable(format!(
                "{tx_hash} was sent by {}, not {}",
                old.inner.signer(),
                self.from
            )));
        }
        let (old_max, old_tip) = (
            old.max_fee_per_gas(),
            old.max_priority_fee_per_gas().unwrap_or_default(),
        );
        let fees = self
            .rpc("eth_feeHistory", self.provider.estimate_eip1559_fees())
            .await?;
        let cap = self.max_fee_cap.unwrap_or(u128::MAX);
        let max_fee = raised(old_max, REPLACEMENT_BUMP_BPS)
            .max(fees.max_fee_per_gas)
            .min(cap);
        let tip = raised(old_tip, REPLACEMENT_BUMP_BPS)
            .max(fees.max_priority_fee_per_gas)
            .min(max_fee);
        if max_fee < raised(old_max, NODE_MIN_BUMP_BPS) || tip < raised(old_tip, NODE_MIN_BUMP_BPS)
        {
            return Err(Error::NotReplaceable(format!(
                "the fee cap of {cap} wei per gas leaves no room to raise {tx_hash}'s fees \
                 ({old_max} max, {old_tip} priority) by 10 %"
            )));
        }
        let tx = Tx {
            to: match old.kind() {
                TxKind::Call(to) => Some(to),
                TxKind::Create => None,
            },
            value: old.value(),
            input: old.input().clone(),
            gas_limit: Some(old.gas_limit()),
            fees: Some((max_fee, tip)),
        };
        let mut request = TransactionRequest::default()
            .with_from(self.from)
            .with_chain_id(self.chain_id)
            .with_nonce(old.nonce())
            .with_value(tx.value)
            .with_input(tx.input.clone())
            .with_gas_limit(old.gas_limit())
            .with_max_fee_per_gas(max_fee)
            .with_max_priority_fee_per_gas(tip);
        request = match tx.to {
            Some(to) => request.with_to(to),
            None => request.into_create(),
        };
        let envelope = request
            .build(&self.wallet)
            .await
            .map_err(|e| Error::Sign(e.to_string()))?;
        let raw = envelope.encoded_2718();
        let submission = Submission {
            tx_hash: *envelope.tx_hash(),
            from: self.from,
            nonce: old.nonce(),
            gas_limit: old.gas_limit(),
            tx,
            broadcast_error: None,
        };
        before_broadcast(&submission).map_err(Error::NotBroadcast)?;
        self.broadcast(submission, &raw).await
    }
}
