//! [`Submission`]: the transaction that will carry the intent, as the simulator runs it.
//!
//! An intent for a PACE account executes as one transaction: a relayer (`tx.origin`) calls the
//! account's `executeBatchPDR`, and the account makes the intent's calls from its own frame,
//! after its checks and between its balance reads. The simulator runs exactly that
//! transaction, in the block it will land in, so that what a contract can see of the
//! environment (gas price, base fee, origin, block number and time, gas left, what is warm,
//! transient storage between calls) is what it will see for real.

use alloy_primitives::{Address, B256, Bytes, U256};
use pace_evm::InProcessEvm;

/// Seconds between blocks the next block is assumed to come after (12 s, Ethereum's slot).
pub const BLOCK_TIME_SECS: u64 = 12;

/// The block a submission runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubmissionBlock {
    /// `block.number`.
    pub number: u64,
    /// `block.timestamp`.
    pub timestamp: u64,
    /// `block.basefee`, in wei.
    pub base_fee: u64,
    /// `block.coinbase`.
    pub coinbase: Address,
    /// `block.prevrandao`.
    pub prevrandao: B256,
    /// `block.gaslimit`.
    pub gas_limit: u64,
}

impl SubmissionBlock {
    /// The block after `world`'s current one: the next number, [`BLOCK_TIME_SECS`] later, the
    /// base fee EIP-1559 gives it after the forked block ([`InProcessEvm::next_base_fee`]),
    /// and the current block's coinbase, prevrandao and gas limit (what the including block
    /// will have cannot be known in advance).
    pub fn after(world: &InProcessEvm) -> Self {
        let env = world.block_env();
        Self {
            number: world.block_number().saturating_add(1),
            timestamp: world.timestamp().saturating_add(BLOCK_TIME_SECS),
            base_fee: world.next_base_fee(),
            coinbase: env.beneficiary,
            prevrandao: env.prevrandao.unwrap_or_default(),
            gas_limit: env.gas_limit,
        }
    }
}

/// One transaction to the account that runs the intent's calls from the account's frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Who sends it (`tx.origin`, `msg.sender` of the account's frame): the relayer.
    pub origin: Address,
    /// The contract it calls: `None` for the account itself; the EntryPoint for a bundle
    /// (`handleOps`) that carries the intent as a user operation.
    pub to: Option<Address>,
    /// The calldata (`executeBatchPDR(...)` to the account, `handleOps(...)` to the EntryPoint).
    pub data: Bytes,
    /// The transaction's gas limit.
    pub gas_limit: u64,
    /// EIP-1559 `maxFeePerGas`, in wei (0 with a zero base fee: no fees).
    pub max_fee_per_gas: u128,
    /// EIP-1559 `maxPriorityFeePerGas`, in wei.
    pub priority_fee_per_gas: u128,
    /// The block it runs in.
    pub block: SubmissionBlock,
    /// Storage slots set before it runs, on the simulation's copy of the state only: `(address,
    /// slot, value)`. Empty for the exact transaction that will be sent.
    pub overrides: Vec<(Address, U256, U256)>,
}

impl Submission {
    /// The gas price the transaction pays: `min(maxFeePerGas, baseFee + maxPriorityFeePerGas)`.
    pub fn gas_price(&self) -> u128 {
        self.max_fee_per_gas
            .min(u128::from(self.block.base_fee).saturating_add(self.priority_fee_per_gas))
    }
}
