//! Pass 2 again in another world: the exact signed transaction run once more with another
//! block producer (`block.coinbase`), another `block.prevrandao`, another sender (`tx.origin`,
//! the account frame's caller) and no fees (`tx.gasprice` 0, a zero base fee). An execution
//! that honest contracts run does not depend on any of them; one whose movements, balances,
//! approvals, rights or relied reads do is keyed on something that differs between the
//! simulation and whichever block and sender land the PDR (a contract honest only in
//! simulation, or only for the relayer), and is refused before anything is sent. The block's
//! number and time stay: interest accrues on them, so they cannot be told apart from a trigger.

use crate::{Error, Result};
use alloy_primitives::{Address, address, keccak256};
use pace_evm::{InProcessEvm, revm::DatabaseRef};
use pace_simulator::Submission;
use pace_types::SimulationReport;

/// The perturbed sender when the block's producer cannot be one: no one's key.
const ORIGIN: Address = address!("0x00000000000000000000000000000000000051de");

/// `tx` in the other world (see the module docs): the relayer produces the block and the
/// original block's producer sends it (both already read by pass 2, so a fork fetches
/// nothing more), unless that producer has code or is the relayer, when [`ORIGIN`] sends it.
pub(crate) fn perturbed(state: &InProcessEvm, tx: &Submission) -> Result<Submission> {
    let producer = tx.block.coinbase;
    let codeless = state
        .db()
        .basic_ref(producer)
        .map_err(|e| Error::Diverged(format!("the block producer cannot be read: {e}")))?
        .is_none_or(|info| info.is_empty_code_hash());
    let mut other = tx.clone();
    other.origin = if codeless && producer != tx.origin {
        producer
    } else {
        ORIGIN
    };
    other.max_fee_per_gas = 0;
    other.priority_fee_per_gas = 0;
    other.block.base_fee = 0;
    other.block.coinbase = tx.origin;
    other.block.prevrandao = keccak256(tx.block.prevrandao);
    Ok(other)
}

/// Errors with [`Error::Diverged`] unless the perturbed run (`other`) had pass 2's (`second`)
/// effects: the same movements, balance changes, approvals, rights, unread positions and
/// answers of the reads a decision may rest on.
pub(crate) fn same_effects(other: &SimulationReport, second: &SimulationReport) -> Result<()> {
    let differs = |what: &str| {
        Err(Error::Diverged(format!(
            "under another block producer, prevrandao, sender and gas price its {what} differ: the execution depends on who lands it"
        )))
    };
    if other.token_flows != second.token_flows || other.nft_flows != second.nft_flows {
        return differs("movements");
    }
    if other.balance_changes != second.balance_changes {
        return differs("balance changes");
    }
    if other.approvals != second.approvals || other.item_approvals != second.item_approvals {
        return differs("approvals");
    }
    if other.rights != second.rights || other.unread_positions != second.unread_positions {
        return differs("rights");
    }
    let answers = |r: &SimulationReport| r.reads.iter().map(|f| f.after).collect::<Vec<_>>();
    if answers(other) != answers(second) {
        return differs("relied reads");
    }
    Ok(())
}
