//! The next sequence of a PaceAccount's nonce lane, read straight from its storage.
//!
//! A `nextSequence(key)` view call costs a whole EVM transaction's setup (~33K instructions,
//! `make bench-instructions`) for one storage read; every PDR needs this read. The account
//! keeps lane 0's sequence in its packed `_config` word (slot 0, bits 168-231) and the other
//! lanes' in the `_laneSequence` mapping (slot 1), as `contracts/PaceAccount.sol` documents
//! and solc lays out (`forge inspect PaceAccount storageLayout`). The differential test
//! `next_sequence_reads_what_the_view_returns` holds this to the view on every lane kind.

use crate::{AccountKind, Error, Result};
use alloy_primitives::Address;
use pace_evm::InProcessEvm;

/// Where lane 0's sequence starts in the config word.
const SEQUENCE_SHIFT: usize = 168;

/// The next sequence of lane `key` of the PaceAccount at `account` on `world`: what its
/// `nextSequence(key)` returns. Errors when `account` has no code (an EOA is no PaceAccount).
pub fn next_sequence(world: &InProcessEvm, account: Address, key: u32) -> Result<u64> {
    lane_sequence(world, account, key, AccountKind::PaceAccount)
}

/// [`next_sequence`] for an account of `kind`: the same words at the kind's layout
/// ([`AccountKind::config_slot`]: slot 0 for a `PaceAccount`, the ERC-7201 namespace for an
/// EOA delegated to `PaceDelegate`).
pub fn lane_sequence(
    world: &InProcessEvm,
    account: Address,
    key: u32,
    kind: AccountKind,
) -> Result<u64> {
    let not_pace = |reason: String| Error::NotPaceAccount { account, reason };
    let code = world.code(account).map_err(|e| not_pace(e.to_string()))?;
    if code.is_empty() {
        return Err(not_pace("it has no code".into()));
    }
    let word = if key == 0 {
        world
            .storage(account, kind.config_slot())
            .map(|w| w >> SEQUENCE_SHIFT)
    } else {
        world.storage(account, kind.lane_slot(key))
    }
    .map_err(|e| not_pace(e.to_string()))?;
    // The low 64 bits: a uint64 (the bits above it in `_config` are the budgets flag).
    Ok(word.as_limbs()[0])
}
