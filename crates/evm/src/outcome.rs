//! [`Outcome`]: what a transaction did, as data.

use crate::error::{Error, Result, Revert};
use alloy_primitives::{Address, Bytes, Log};
use alloy_sol_types::{SolCall, SolEvent, SolInterface};
use revm::context::result::{ExecutionResult, HaltReason};

/// The result of one executed transaction. A revert or a halt is an outcome, not an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Whether the transaction succeeded (EIP-658 status 1).
    pub success: bool,
    /// Return data on success, revert data on revert, empty on a halt. For a successful
    /// deployment, the deployed runtime code.
    pub output: Bytes,
    /// Gas charged to the transaction after refunds, intrinsic gas included (`tx_gas_used`,
    /// what a receipt's `gasUsed` reports).
    pub gas_used: u64,
    /// Logs emitted, in order, as a receipt lists them: a failed transaction has none. (An
    /// inspector also sees the logs of frames that later reverted.)
    pub logs: Vec<Log>,
    /// The revert data when the transaction reverted.
    pub revert: Option<Bytes>,
    /// revm's reason when execution halted exceptionally (out of gas, invalid opcode, ...).
    pub halt: Option<HaltReason>,
    /// The created contract of a successful deployment.
    pub created: Option<Address>,
}

impl Outcome {
    pub(crate) fn from_result(result: ExecutionResult<HaltReason>) -> Self {
        let gas_used = result.tx_gas_used();
        match result {
            ExecutionResult::Success { logs, output, .. } => Self {
                success: true,
                created: output.address().copied(),
                output: output.into_data(),
                gas_used,
                logs,
                revert: None,
                halt: None,
            },
            ExecutionResult::Revert { logs, output, .. } => Self {
                success: false,
                revert: Some(output.clone()),
                output,
                gas_used,
                logs,
                halt: None,
                created: None,
            },
            ExecutionResult::Halt { reason, logs, .. } => Self {
                success: false,
                output: Bytes::new(),
                gas_used,
                logs,
                revert: None,
                halt: Some(reason),
                created: None,
            },
        }
    }

    /// `Ok(self)` on success, else [`Error::Reverted`] or [`Error::Halted`].
    pub fn into_result(self) -> Result<Self> {
        if self.success {
            return Ok(self);
        }
        Err(self.failure())
    }

    fn failure(&self) -> Error {
        match (&self.revert, &self.halt) {
            (_, Some(reason)) => Error::Halted {
                reason: reason.clone(),
                gas_used: self.gas_used,
            },
            (revert, None) => Error::Reverted(Revert {
                output: revert.clone().unwrap_or_default(),
                gas_used: self.gas_used,
            }),
        }
    }

    /// The return data decoded as the return type of `C`; a revert or halt is an error.
    pub fn decode_return<C: SolCall>(&self) -> Result<C::Return> {
        if !self.success {
            return Err(self.failure());
        }
        C::abi_decode_returns(&self.output).map_err(|source| Error::Decode {
            signature: C::SIGNATURE,
            source,
        })
    }

    /// The revert data decoded as one of the custom errors of `E` (a `sol!` `XErrors` enum).
    pub fn decode_revert<E: SolInterface>(&self) -> Option<E> {
        self.revert
            .as_ref()
            .and_then(|data| E::abi_decode(data).ok())
    }

    /// The message of an `Error(string)` / `Panic(uint256)` revert.
    pub fn revert_reason(&self) -> Option<String> {
        self.revert
            .as_ref()
            .and_then(|data| alloy_sol_types::decode_revert_reason(data))
    }

    /// Every log that decodes as event `E`, with the address that emitted it, in order.
    pub fn events<E: SolEvent>(&self) -> Vec<(Address, E)> {
        self.logs
            .iter()
            .filter_map(|log| {
                E::decode_log(log)
                    .ok()
                    .map(|decoded| (log.address, decoded.data))
            })
            .collect()
    }
}
