//! What became of a transaction, told only from receipts ([`TxOutcome`]), and the record of a
//! broadcast ([`Submission`]).

use alloy_primitives::{Address, B256, Bytes, Log, U256};
use alloy_sol_types::{SolEvent, SolInterface};
use std::{fmt, time::Duration};

/// A transaction to sign and send: a call, or a contract creation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tx {
    /// The callee; `None` creates a contract from `input`.
    pub to: Option<Address>,
    /// Wei sent along.
    pub value: U256,
    /// Calldata, or init code for a creation.
    pub input: Bytes,
    /// The gas limit; `None` asks the node (`eth_estimateGas`, which refuses a transaction
    /// that would revert).
    pub gas_limit: Option<u64>,
    /// EIP-1559 `(maxFeePerGas, maxPriorityFeePerGas)`; `None` asks the node
    /// (`eth_feeHistory`), under the client's fee cap either way.
    pub fees: Option<(u128, u128)>,
}

impl Tx {
    /// A call of `to` with `value` and `data`.
    pub fn call(to: Address, value: U256, data: Bytes) -> Self {
        Self {
            to: Some(to),
            value,
            input: data,
            gas_limit: None,
            fees: None,
        }
    }

    /// A contract creation running `init_code` (creation code and constructor arguments).
    pub fn create(init_code: Bytes) -> Self {
        Self {
            to: None,
            value: U256::ZERO,
            input: init_code,
            gas_limit: None,
            fees: None,
        }
    }

    /// The same transaction with an explicit gas limit (no estimation: it is sent even if it
    /// will revert).
    pub fn with_gas_limit(mut self, gas_limit: u64) -> Self {
        self.gas_limit = Some(gas_limit);
        self
    }

    /// The same transaction with explicit EIP-1559 fees (the client's fee cap still applies).
    pub fn with_fees(mut self, max_fee_per_gas: u128, max_priority_fee_per_gas: u128) -> Self {
        self.fees = Some((max_fee_per_gas, max_priority_fee_per_gas));
        self
    }
}

/// A signed transaction handed to the node. Its hash is computed locally before the
/// broadcast, so it is known even when the broadcast's answer is lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The transaction hash.
    pub tx_hash: B256,
    /// The sender.
    pub from: Address,
    /// The sender's nonce it uses.
    pub nonce: u64,
    /// The gas limit it was signed with.
    pub gas_limit: u64,
    /// What was sent.
    pub tx: Tx,
    /// Set when the broadcast request itself failed in a way that does not prove the node
    /// never got it (connection dropped, no answer in time, an error for a transaction the
    /// node nevertheless knows): the transaction may be pending, so this is not a failure.
    pub broadcast_error: Option<String>,
}

/// What became of a broadcast transaction.
///
/// Success is claimed only from a receipt with status 1, failure only from a receipt with
/// status 0. Everything else, however likely a failure looks, is [`TxOutcome::Uncertain`]: the
/// transaction may still land, so re-sending it could execute it twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxOutcome {
    /// Mined with status 1.
    Executed {
        /// The transaction hash.
        tx_hash: B256,
        /// Gas charged (the receipt's `gasUsed`).
        gas_used: u64,
        /// The block it was mined in.
        block_number: u64,
        /// Its logs, in order.
        logs: Vec<Log>,
        /// The created contract, for a creation.
        contract_address: Option<Address>,
    },
    /// Mined with status 0: it reverted on-chain (and was charged gas).
    Reverted {
        /// The transaction hash.
        tx_hash: B256,
        /// Gas charged.
        gas_used: u64,
        /// The block it was mined in.
        block_number: u64,
        /// The revert data, recovered by replaying the transaction with `eth_call` on the
        /// parent block's state (best effort: `None` when the replay did not revert, e.g.
        /// because an earlier transaction of the same block set up the failure).
        revert_data: Option<Bytes>,
    },
    /// No receipt: the transaction may be pending, dropped, or mined where this client cannot
    /// see. Do not resend it before its absence is established.
    Uncertain {
        /// The transaction hash. Always known for transactions [`crate::NodeClient`] signs
        /// (it is computed before the broadcast); `None` is for a transaction whose hash was
        /// never learned.
        tx_hash: Option<B256>,
        /// Why nothing more is known.
        reason: Uncertainty,
    },
}

/// Why a transaction's outcome is unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Uncertainty {
    /// The node kept answering but had no receipt within the timeout.
    NoReceipt {
        /// How long receipts were polled for.
        waited: Duration,
        /// The broadcast's own error, if it had one ([`Submission::broadcast_error`]).
        broadcast_error: Option<String>,
    },
    /// The node stopped answering while the receipt was awaited.
    NodeUnreachable {
        /// How long receipts were polled for.
        waited: Duration,
        /// The last error.
        error: String,
    },
}

impl fmt::Display for Uncertainty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoReceipt {
                waited,
                broadcast_error,
            } => {
                write!(f, "no receipt after {waited:?}")?;
                if let Some(e) = broadcast_error {
                    write!(f, " (the broadcast reported: {e})")?;
                }
                Ok(())
            }
            Self::NodeUnreachable { waited, error } => {
                write!(
                    f,
                    "node unreachable while waiting {waited:?} for the receipt: {error}"
                )
            }
        }
    }
}

impl fmt::Display for TxOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Executed {
                tx_hash,
                gas_used,
                block_number,
                ..
            } => write!(
                f,
                "{tx_hash} executed in block {block_number} ({gas_used} gas)"
            ),
            Self::Reverted {
                tx_hash,
                gas_used,
                block_number,
                revert_data,
            } => {
                write!(
                    f,
                    "{tx_hash} reverted in block {block_number} ({gas_used} gas)"
                )?;
                match revert_data {
                    Some(data) => write!(f, " with data {data}"),
                    None => Ok(()),
                }
            }
            Self::Uncertain { tx_hash, reason } => match tx_hash {
                Some(hash) => write!(f, "{hash} uncertain: {reason}"),
                None => write!(f, "uncertain: {reason}"),
            },
        }
    }
}

impl TxOutcome {
    /// The transaction hash, when known.
    pub fn tx_hash(&self) -> Option<B256> {
        match self {
            Self::Executed { tx_hash, .. } | Self::Reverted { tx_hash, .. } => Some(*tx_hash),
            Self::Uncertain { tx_hash, .. } => *tx_hash,
        }
    }

    /// Whether a receipt with status 1 was seen.
    pub fn is_executed(&self) -> bool {
        matches!(self, Self::Executed { .. })
    }

    /// Whether a receipt with status 0 was seen.
    pub fn is_reverted(&self) -> bool {
        matches!(self, Self::Reverted { .. })
    }

    /// Whether no receipt was seen.
    pub fn is_uncertain(&self) -> bool {
        matches!(self, Self::Uncertain { .. })
    }

    /// The revert data decoded as one of the custom errors of `E` (a `sol!` `XErrors` enum).
    pub fn decode_revert<E: SolInterface>(&self) -> Option<E> {
        match self {
            Self::Reverted {
                revert_data: Some(data),
                ..
            } => E::abi_decode(data).ok(),
            _ => None,
        }
    }

    /// Every log of an executed transaction that decodes as event `E`, with its emitter.
    pub fn events<E: SolEvent>(&self) -> Vec<(Address, E)> {
        match self {
            Self::Executed { logs, .. } => logs
                .iter()
                .filter_map(|log| E::decode_log(log).ok().map(|d| (log.address, d.data)))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The result of an `eth_call`: a revert is data here, not an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallOutcome {
    /// The call returned.
    Returned(Bytes),
    /// The call reverted with this data.
    Reverted(Bytes),
}
