//! The accounts a PDR can go to and how it reaches them, in one room: a `PaceAccount`, an
//! EOA delegated to `PaceDelegate` (EIP-7702), directly or through the ERC-4337 EntryPoint
//! v0.8, or a Safe through its `PaceModule`, directly (`docs/accounts.md`). The kinds, entries and routes themselves are data in
//! `pace_types::account`; this module reads and reaches the account:
//!
//! - [`AccountState`]: the account's state on one EVM state, read once ([`state`]);
//! - the nonce a PDR consumes ([`sequence`]);
//! - the transaction that carries a PDR, on every path ([`calldata`]);
//! - the EntryPoint's bundle and what its events say (`bundle.rs`);
//! - the route a PDR is signed for ([`route_for`]).
//!
//! What differs between the paths, and nothing else does: where the account keeps its state,
//! the EIP-712 domain the PDR is signed in (the delegate's carries its set-up salt, the
//! EntryPoint path's the user operation's hash), where the nonce's sequence is read (the
//! account's lane, or the EntryPoint's nonce), and the transaction that carries the PDR (a call
//! to the account, or `handleOps` to the EntryPoint).

pub(crate) mod bundle;
pub mod calldata;
pub(crate) mod module;
pub mod sequence;
pub mod state;

pub use state::{AccountState, account_state_reads};

use crate::Relayer;
use alloy_primitives::Address;
use pace_types::{Entry, Intent, SimulationReport, account::Route, user_op::UserOpGas};

/// The EntryPoint v0.8 both accounts trust.
pub const ENTRY_POINT: Address = pace_types::user_op::ENTRY_POINT_V08;

/// Gas a PDR user operation's validation may use: the batch's hashing, one signature recovery,
/// two storage reads and the prefund (measured under 40,000 for small batches; the rest is
/// headroom for large ones).
pub const VERIFICATION_GAS_LIMIT: u128 = 150_000;

/// The route a PDR for `intent` to `account` is signed for: the account's salt, and
/// on the EntryPoint path the user operation's gas: validation [`VERIFICATION_GAS_LIMIT`],
/// execution 1.5x the simulated calls' gas plus room for the account's own work (10,000 per
/// bound and held asset, `bounded`, and 60,000 besides), the operation's calldata priced at 16
/// gas a byte on top of the bundle's fixed 50,000 for `preVerificationGas`, and the relayer's
/// fees.
pub fn route_for(
    account: &AccountState,
    intent: &Intent,
    entry: Entry,
    relayer: &Relayer,
    report: &SimulationReport,
    bounded: usize,
) -> Route {
    let entry_point = match entry {
        Entry::Direct => None,
        Entry::EntryPoint => Some((ENTRY_POINT, user_op_gas(intent, relayer, report, bounded))),
    };
    Route {
        delegate_salt: account.salt(),
        module: account.module(),
        entry_point,
    }
}

/// The gas terms of the user operation that carries a PDR for `intent` on the EntryPoint path
/// (see [`route_for`]), with `bounded` bounds and held assets.
pub fn user_op_gas(
    intent: &Intent,
    relayer: &Relayer,
    report: &SimulationReport,
    bounded: usize,
) -> UserOpGas {
    let call_gas =
        u128::from(report.gas_used).saturating_mul(3) / 2 + 60_000 + 10_000 * bounded as u128;
    UserOpGas {
        verification_gas_limit: VERIFICATION_GAS_LIMIT,
        call_gas_limit: call_gas,
        pre_verification_gas: 50_000 + 16 * op_bytes(intent, bounded),
        max_priority_fee_per_gas: relayer.priority_fee_per_gas,
        max_fee_per_gas: relayer.max_fee_per_gas,
    }
}

/// The most a user operation with `gas` may cost its sender's deposit: every gas limit,
/// `preVerificationGas` included (the EntryPoint charges it whole), times `maxFeePerGas`.
pub fn max_gas_cost(gas: &UserOpGas) -> alloy_primitives::U256 {
    let limits = gas
        .verification_gas_limit
        .saturating_add(gas.call_gas_limit)
        .saturating_add(gas.pre_verification_gas);
    alloy_primitives::U256::from(limits) * alloy_primitives::U256::from(gas.max_fee_per_gas)
}

/// Bounds and held assets a PDR for `report` may carry: every balance the report read, what
/// moved, and ether.
pub(crate) fn bounded(report: &SimulationReport) -> usize {
    report.balances_read.len() + report.balance_changes.len() + 1
}

/// At most the bytes a PDR user operation for `intent` with `bounded` bounds and held assets
/// takes in `handleOps`: each call's data and its head (5 words), each bound (6 words), the
/// signature (4 words), the operation's fixed fields and offsets (20 words).
fn op_bytes(intent: &Intent, bounded: usize) -> u128 {
    let calls: usize = intent.calls.iter().map(|c| c.data.len() + 160).sum();
    (calls + 192 * bounded + 128 + 640) as u128
}
