//! One submission path over every chain: the in-process world ([`InProcessChain`]) and a
//! node ([`pace_node::NodeClient`]) behind the [`Chain`] trait. [`crate::Pipeline::submit`]
//! measures the account's balances around a transaction the same way on both.

use crate::{Checked, ExecutionResult, Pipeline, Relayer, Result};
use alloy_primitives::{Address, B256, Bytes, I256, Log, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::IERC20;
use pace_evm::InProcessEvm;
use pace_node::{NodeClient, Tx};
use pace_types::{BalanceChange, ETH};
use std::{
    future::Future,
    pin::pin,
    task::{Context, Poll, Waker},
};

/// Gas limit of PDR submissions on a node: set explicitly so that a submission the node would
/// revert is still mined and its revert recorded on-chain, instead of being refused by gas
/// estimation.
pub const SUBMISSION_GAS_LIMIT: u64 = 3_000_000;

/// A chain transactions are submitted to, from one sender.
///
/// [`Chain::send`] reports what the chain did with the pipeline's one outcome type, without
/// balance changes ([`Pipeline::submit`] adds them): `Executed` only from the transaction's
/// own success, `Reverted` only from its own failure, `Uncertain` when it may have landed.
pub trait Chain {
    /// Whether nothing else changes the chain between a read and a send (the in-process
    /// world): then the balances read just before and just after a send are its own changes.
    const ALONE: bool = false;

    /// Reads `to` with `data` (an `eth_call`) on the latest state.
    fn read(&self, to: Address, data: Bytes) -> impl Future<Output = Result<Bytes>>;

    /// The ether balance of `who` on the latest state.
    fn ether(&self, who: Address) -> impl Future<Output = Result<U256>>;

    /// Who this chain's transactions come from.
    fn sender(&self) -> Address;

    /// How this chain's sender would submit now: its address, gas limit and fees (what the
    /// pipeline simulates for, and [`Chain::send`] is then given).
    fn relayer(&self) -> impl Future<Output = Result<Relayer>>;

    /// Sends `data` to `to`, without value, from this chain's sender with `relayer`'s gas
    /// limit and fees, and waits for the outcome. An error means nothing was sent.
    fn send(
        &mut self,
        to: Address,
        data: Bytes,
        relayer: &Relayer,
    ) -> impl Future<Output = Result<ExecutionResult>>;

    /// [`Chain::send`], with the logs of a transaction that landed (what the EntryPoint path
    /// reads its operation's outcome from). A chain that cannot show them returns none, and an
    /// EntryPoint submission on it is then `Uncertain`, never `Executed`.
    fn send_logged(
        &mut self,
        to: Address,
        data: Bytes,
        relayer: &Relayer,
    ) -> impl Future<Output = Result<(ExecutionResult, Vec<Log>)>> {
        async move { Ok((self.send(to, data, relayer).await?, Vec::new())) }
    }

    /// The landed transaction `tx_hash` at its own position in its block
    /// ([`pace_evm::AtTransaction`]): what its balance changes and its revert are measured on.
    /// `None` where the chain has no other transactions between a read and a send (the
    /// in-process world: its reads around a send are exact) or cannot replay it.
    fn at_position(&self, tx_hash: B256) -> impl Future<Output = Option<pace_evm::AtTransaction>> {
        let _ = tx_hash;
        async { None }
    }
}

/// The in-process EVM seen from one sender. Its futures complete without waiting, so it also
/// offers them as plain calls ([`Self::submit`], [`Self::send_now`]).
#[derive(Debug)]
pub struct InProcessChain<'a> {
    /// The chain.
    pub evm: &'a mut InProcessEvm,
    /// Who sends the transactions.
    pub sender: Address,
}

impl<'a> InProcessChain<'a> {
    /// `evm`, sending from `sender`.
    pub fn new(evm: &'a mut InProcessEvm, sender: Address) -> Self {
        Self { evm, sender }
    }

    /// How this chain's sender submits: the world's gas limit, no fees (gas is free here).
    pub fn free_relayer(&self) -> Relayer {
        Relayer::free(self.sender, self.evm.tx_gas_limit())
    }

    /// [`Pipeline::submit`] on this chain.
    pub fn submit(&mut self, checked: &Checked, watch: &[Address]) -> Result<ExecutionResult> {
        in_process(Pipeline::submit(self, checked, watch))
    }

    /// [`Chain::send`] on this chain: arbitrary `data` to `to` (the owner's own call, or what
    /// a tampering relayer sends), without balance changes.
    pub fn send_now(&mut self, to: Address, data: Bytes) -> Result<ExecutionResult> {
        let relayer = self.free_relayer();
        in_process(self.send(to, data, &relayer))
    }
}

impl Chain for InProcessChain<'_> {
    const ALONE: bool = true;

    async fn read(&self, to: Address, data: Bytes) -> Result<Bytes> {
        Ok(self.evm.view(to, data)?)
    }

    async fn ether(&self, who: Address) -> Result<U256> {
        Ok(self.evm.balance(who).map_err(pace_evm::Error::Fork)?)
    }

    fn sender(&self) -> Address {
        self.sender
    }

    async fn relayer(&self) -> Result<Relayer> {
        Ok(self.free_relayer())
    }

    async fn send(
        &mut self,
        to: Address,
        data: Bytes,
        relayer: &Relayer,
    ) -> Result<ExecutionResult> {
        Ok(self.send_logged(to, data, relayer).await?.0)
    }

    async fn send_logged(
        &mut self,
        to: Address,
        data: Bytes,
        relayer: &Relayer,
    ) -> Result<(ExecutionResult, Vec<Log>)> {
        // The world's transactions run with its own gas limit and no fees: a relayer that
        // assumes otherwise was not simulated for this chain.
        if *relayer != self.free_relayer() {
            return Err(crate::Error::WrongRelayer {
                checked: relayer.address,
                sending: self.sender,
            });
        }
        let outcome = self.evm.call(self.sender, to, U256::ZERO, data)?;
        Ok(if outcome.success {
            let result = ExecutionResult::Executed {
                tx_hash: None,
                gas_used: outcome.gas_used,
                balance_changes: Vec::new(),
            };
            (result, outcome.logs)
        } else {
            let result = ExecutionResult::reverted(
                None,
                outcome.gas_used,
                Some(&outcome.revert.unwrap_or_default()),
            );
            (result, Vec::new())
        })
    }
}

/// A node, sending from the client's key with [`SUBMISSION_GAS_LIMIT`]. Implemented for a
/// shared reference: sends from one client are serialised by the client itself.
impl Chain for &NodeClient {
    async fn read(&self, to: Address, data: Bytes) -> Result<Bytes> {
        Ok(self.call(to, data).await?)
    }

    async fn ether(&self, who: Address) -> Result<U256> {
        Ok(self.balance(who).await?)
    }

    fn sender(&self) -> Address {
        self.address()
    }

    async fn relayer(&self) -> Result<Relayer> {
        let fees = self.fees().await?;
        Ok(Relayer {
            address: self.address(),
            gas_limit: SUBMISSION_GAS_LIMIT,
            max_fee_per_gas: fees.max_fee_per_gas,
            priority_fee_per_gas: fees.max_priority_fee_per_gas,
        })
    }

    async fn send(
        &mut self,
        to: Address,
        data: Bytes,
        relayer: &Relayer,
    ) -> Result<ExecutionResult> {
        Ok(self.send_logged(to, data, relayer).await?.0)
    }

    async fn send_logged(
        &mut self,
        to: Address,
        data: Bytes,
        relayer: &Relayer,
    ) -> Result<(ExecutionResult, Vec<Log>)> {
        let tx = Tx::call(to, U256::ZERO, data)
            .with_gas_limit(relayer.gas_limit)
            .with_fees(relayer.max_fee_per_gas, relayer.priority_fee_per_gas);
        let outcome = self.execute(tx).await?;
        let logs = match &outcome {
            pace_node::TxOutcome::Executed { logs, .. } => logs.clone(),
            _ => Vec::new(),
        };
        Ok((outcome.into(), logs))
    }

    async fn at_position(&self, tx_hash: B256) -> Option<pace_evm::AtTransaction> {
        pace_evm::InProcessEvm::at_transaction(self.url(), tx_hash).ok()
    }
}

/// Sends `calldata` to `to` on `chain` and reports the outcome with `account`'s realised
/// balance changes in `tokens` (zero address = ether). On a node they are measured at the
/// transaction's own position in its block (the state just before it and just after it, see
/// [`Chain::at_position`]), where a revert's data is read too; in process, just before and
/// just after the send. A balance that cannot be read on either side is left out: a failed read
/// never turns a landed transaction into a failure, nor invents a change; a replay that does
/// not end as the receipt did measures nothing. With `user_op_hash` (the EntryPoint path), a
/// landed bundle counts as executed only when the EntryPoint reports that operation succeeded.
pub(crate) async fn send_measured<C: Chain>(
    chain: &mut C,
    (to, account): (Address, Address),
    calldata: Bytes,
    relayer: &Relayer,
    tokens: &[Address],
    user_op_hash: Option<B256>,
) -> Result<ExecutionResult> {
    let mut around = Vec::with_capacity(tokens.len());
    if C::ALONE {
        for &token in tokens {
            around.push(balance(chain, token, account).await);
        }
    }
    let (mut result, logs) = chain.send_logged(to, calldata, relayer).await?;
    if let Some(hash) = user_op_hash {
        result = crate::account::bundle::bundle_result(result, &logs, hash);
    }
    let landed = match &result {
        ExecutionResult::Executed { tx_hash, .. } | ExecutionResult::Reverted { tx_hash, .. } => {
            *tx_hash
        }
        ExecutionResult::Uncertain { .. } => None,
    };
    let changes = match landed {
        _ if C::ALONE => {
            let mut after = Vec::with_capacity(tokens.len());
            for &token in tokens {
                after.push(balance(chain, token, account).await);
            }
            deltas(tokens, &around, &after)
        }
        Some(hash) => at_position(chain, hash, account, tokens, &mut result).await,
        None => Vec::new(),
    };
    if let ExecutionResult::Executed {
        balance_changes, ..
    } = &mut result
    {
        *balance_changes = changes;
    }
    Ok(result)
}

/// The balance changes of `account` in `tokens` that the landed transaction `hash` made, at its
/// own position; a revert's data read there replaces a revert `result` recovered without it.
async fn at_position<C: Chain>(
    chain: &C,
    hash: B256,
    account: Address,
    tokens: &[Address],
    result: &mut ExecutionResult,
) -> Vec<BalanceChange> {
    let Some(mut at) = chain.at_position(hash).await else {
        return Vec::new();
    };
    let read = |state: &InProcessEvm| -> Vec<Option<U256>> {
        tokens
            .iter()
            .map(|&token| balance_on(state, token, account))
            .collect()
    };
    let before = read(at.state());
    let Ok(outcome) = at.run() else {
        return Vec::new();
    };
    if outcome.success != at.status() {
        return Vec::new();
    }
    if let (ExecutionResult::Reverted { gas_used, .. }, Some(data)) = (&*result, &outcome.revert) {
        *result = ExecutionResult::reverted(Some(hash), *gas_used, Some(data));
    }
    deltas(tokens, &before, &read(at.state()))
}

/// The non-zero changes of each of `tokens` from `before` to `after` (a read missing on either
/// side: left out).
fn deltas(
    tokens: &[Address],
    before: &[Option<U256>],
    after: &[Option<U256>],
) -> Vec<BalanceChange> {
    tokens
        .iter()
        .zip(before.iter().zip(after))
        .filter_map(|(&token, pair)| match pair {
            (Some(b), Some(a)) => {
                let delta = I256::from_raw(a.wrapping_sub(*b));
                (delta != I256::ZERO).then_some(BalanceChange { token, delta })
            }
            _ => None,
        })
        .collect()
}

/// `token`'s balance of `who` on `state` (ether for the zero address); `None` when it cannot
/// be read.
fn balance_on(state: &InProcessEvm, token: Address, who: Address) -> Option<U256> {
    if token == ETH {
        return state.balance(who).ok();
    }
    let out = state
        .view(
            token,
            IERC20::balanceOfCall { account: who }.abi_encode().into(),
        )
        .ok()?;
    IERC20::balanceOfCall::abi_decode_returns(&out).ok()
}

/// `token`'s balance of `who` (ether for the zero address); `None` when it cannot be read.
async fn balance<C: Chain>(chain: &C, token: Address, who: Address) -> Option<U256> {
    if token == ETH {
        return chain.ether(who).await.ok();
    }
    let data = IERC20::balanceOfCall { account: who }.abi_encode();
    let out = chain.read(token, data.into()).await.ok()?;
    IERC20::balanceOfCall::abi_decode_returns(&out).ok()
}

/// Runs a future over an [`InProcessChain`] to completion. Its methods never wait, so one poll
/// finishes it; this is private so that nothing else is ever polled this way.
fn in_process<T>(f: impl Future<Output = Result<T>>) -> Result<T> {
    match pin!(f).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        // Unreachable: no in-process chain method awaits anything that can be pending.
        Poll::Pending => Err(crate::Error::Pending),
    }
}
