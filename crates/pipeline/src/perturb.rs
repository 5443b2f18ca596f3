//! Pass 2 again in another world: the exact signed transaction run once more with another
//! block producer (`block.coinbase`), another `block.prevrandao`, another sender (`tx.origin`,
//! the account frame's caller), no fees (`tx.gasprice` 0, a zero base fee) and the block's
//! whole gas limit (a lander picks its own). An execution
//! that honest contracts run does not depend on any of them; one whose movements, balances,
//! approvals, rights or relied reads do is keyed on something that differs between the
//! simulation and whichever block and sender land the PDR (a contract honest only in
//! simulation, or only for the relayer), and is refused before anything is sent.
//!
//! Then once more later ([`later`]): the same transaction in the last block the PDR can land
//! in (its freshness and window), or, when it reverts there (a deadline in the calls that
//! ends sooner), in the block after pass 2's. Interest accrues with time, so amounts may move;
//! what may not is who gains a right: a later run that grants an approval, an item approval
//! or a right pass 2 did not (or more of one), writes a position pass 2 did not, or pays from
//! the account someone pass 2 did not pay, is keyed on when it lands and is refused before
//! anything is sent.
//!
//! Neither run is made when it cannot differ: pass 2's trace records what code other than the
//! account's own read of its transaction and block (the report's `environment`,
//! [`pace_types::EnvRead`]), and the EVM is deterministic, so an execution that read nothing
//! the other world changes ([`reads_lander`]) runs in it step for step as in pass 2, and one
//! that read nothing a later block changes ([`reads_time`]) runs the same later. An ERC-20
//! transfer reads neither; a swap through a pool that stamps its reserves with the time runs
//! later; a contract that asks who sends it, what the gas costs or how much gas is left runs
//! under the other world. The EntryPoint path always runs both (the EntryPoint itself prices
//! the gas).

use crate::{Error, Result};
use alloy_primitives::{Address, U256, address, keccak256};
use pace_evm::{InProcessEvm, revm::DatabaseRef};
use pace_simulator::Submission;
use pace_types::{SimulationReport, pdr::PdrTerms};
use std::collections::{BTreeMap, BTreeSet};

/// One slot, in seconds: how much later [`later`] runs.
const SLOT: u64 = 12;

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
    // Free gas, so as much of it as a transaction may have (the block's, at most EIP-7825's
    // cap): whoever lands the PDR picks its limit.
    other.gas_limit = other
        .gas_limit
        .max(other.block.gas_limit.min(pace_evm::DEFAULT_TX_GAS_LIMIT));
    other.block.coinbase = tx.origin;
    other.block.prevrandao = keccak256(tx.block.prevrandao);
    Ok(other)
}

/// Whether pass 2 (`second`) read anything a run under another lander ([`perturbed`]) changes.
pub(crate) fn reads_lander(second: &SimulationReport) -> bool {
    second.environment.iter().any(|r| r.depends_on_lander())
}

/// Whether pass 2 (`second`) read anything a run in a later block ([`later`]) changes.
pub(crate) fn reads_time(second: &SimulationReport) -> bool {
    second.environment.iter().any(|r| r.depends_on_time())
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

/// `tx` `blocks` blocks and as many slots ([`SLOT`]) later, at the highest base fee the chain
/// can reach by then that the relayer's fee still pays; the rest as pass 2 ran it. `blocks`
/// is at most [`last_landing`], so the PDR can still land there.
pub(crate) fn later(tx: &Submission, blocks: u64) -> Submission {
    let mut later = tx.clone();
    later.block.number = tx.block.number.saturating_add(blocks);
    later.block.timestamp = tx
        .block
        .timestamp
        .saturating_add(blocks.saturating_mul(SLOT));
    // The base fee as high as EIP-1559 lets it rise by then (1/8 a block), and the relayer's
    // fee still pays.
    let mut base_fee = u128::from(tx.block.base_fee);
    for _ in 0..blocks.min(64) {
        base_fee = base_fee.saturating_add(base_fee / 8);
    }
    let base_fee = base_fee
        .min(tx.max_fee_per_gas)
        .max(u128::from(tx.block.base_fee));
    later.block.base_fee = u64::try_from(base_fee).unwrap_or(tx.block.base_fee);
    later
}

/// How many blocks after pass 2's (`tx`'s) the PDR can still land under `terms`: within the
/// simulation's freshness, and with its slots within `validUntil`.
pub(crate) fn last_landing(tx: &Submission, terms: &PdrTerms) -> u64 {
    let last_block = terms
        .simulation_block
        .saturating_add(u64::from(terms.max_simulation_age));
    let by_time = terms.valid_until.saturating_sub(tx.block.timestamp) / SLOT;
    last_block.saturating_sub(tx.block.number).min(by_time)
}

/// Errors with [`Error::Diverged`] when the later run (`later`) gave what pass 2
/// (`second`) did not: an approval, item approval or right to a new holder, or more of one
/// than pass 2 left; a write to a position pass 2 left alone; or a payment from `account` to
/// a receiver pass 2 did not pay. Amounts that accrue with time may differ; these may not.
pub(crate) fn no_later_rights(
    later: &SimulationReport,
    second: &SimulationReport,
    account: Address,
) -> Result<()> {
    let differs = |what: &str| {
        Err(Error::Diverged(format!(
            "landing later it {what} that pass 2 did not: the execution depends on when it lands"
        )))
    };
    let approvals = |r: &SimulationReport| {
        r.approvals
            .iter()
            .map(|a| ((a.token, a.owner, a.spender), a.amount))
            .collect::<BTreeMap<_, _>>()
    };
    if grants_more(&approvals(later), &approvals(second)) {
        return differs("approves");
    }
    let items = |r: &SimulationReport| {
        r.item_approvals
            .iter()
            .map(|a| (a.token, a.spender, a.id))
            .collect::<BTreeSet<_>>()
    };
    if !items(later).is_subset(&items(second)) {
        return differs("approves items");
    }
    let rights = |r: &SimulationReport| {
        r.rights
            .iter()
            .map(|f| {
                let key = (f.kind, f.contract, f.holder, f.token, f.slot);
                (key, f.amount.unwrap_or(U256::ZERO))
            })
            .collect::<BTreeMap<_, _>>()
    };
    if grants_more(&rights(later), &rights(second)) {
        return differs("grants rights");
    }
    let positions = |r: &SimulationReport| {
        r.unread_positions
            .iter()
            .map(|p| (p.contract, p.slot))
            .collect::<BTreeSet<_>>()
    };
    if !positions(later).is_subset(&positions(second)) {
        return differs("writes positions");
    }
    let paid = |r: &SimulationReport| {
        let tokens = r
            .token_flows
            .iter()
            .filter(|f| f.from == account)
            .map(|f| (f.token, f.to, None));
        let items = r
            .nft_flows
            .iter()
            .filter(|f| f.from == account)
            .map(|f| (f.token, f.to, Some(f.id)));
        tokens.chain(items).collect::<BTreeSet<_>>()
    };
    if !paid(later).is_subset(&paid(second)) {
        return differs("pays from the account");
    }
    Ok(())
}

/// Whether `later` holds a key `second` lacks, or more under a key.
fn grants_more<K: Ord>(later: &BTreeMap<K, U256>, second: &BTreeMap<K, U256>) -> bool {
    later
        .iter()
        .any(|(key, amount)| second.get(key).is_none_or(|before| amount > before))
}
