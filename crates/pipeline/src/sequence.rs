//! The next sequence of a PaceAccount's nonce lane, read straight from its storage.
//!
//! A `nextSequence(key)` view call costs a whole EVM transaction's setup (~33K instructions,
//! `make bench-instructions`) for one storage read; every PDR needs this read. The account
//! keeps lane 0's sequence in its packed `_config` word (slot 0, bits 168-231) and the other
//! lanes' in the `_laneSequence` mapping (slot 1), as `contracts/PaceAccount.sol` documents
//! and solc lays out (`forge inspect PaceAccount storageLayout`). The differential test
//! `next_sequence_reads_what_the_view_returns` holds this to the view on every lane kind.

use crate::{Error, Result};
use alloy_primitives::{Address, U256, keccak256};
use pace_evm::InProcessEvm;

/// The slot of `_config`: verifier | paused | lane-0 sequence | budgets on.
const CONFIG_SLOT: U256 = U256::ZERO;
/// Where lane 0's sequence starts in `_config`.
const SEQUENCE_SHIFT: usize = 168;
/// The slot of the `_laneSequence` mapping.
const LANE_SEQUENCE_SLOT: U256 = U256::from_limbs([1, 0, 0, 0]);

/// The next sequence of lane `key` of the PaceAccount at `account` on `world`: what its
/// `nextSequence(key)` returns. Errors when `account` has no code (an EOA is no PaceAccount).
pub fn next_sequence(world: &InProcessEvm, account: Address, key: u32) -> Result<u64> {
    let not_pace = |reason: String| Error::NotPaceAccount { account, reason };
    let code = world.code(account).map_err(|e| not_pace(e.to_string()))?;
    if code.is_empty() {
        return Err(not_pace("it has no code".into()));
    }
    let word = if key == 0 {
        world
            .storage(account, CONFIG_SLOT)
            .map(|w| w >> SEQUENCE_SHIFT)
    } else {
        // keccak256(abi.encode(uint32 key, uint256 slot)).
        let mut preimage = [0u8; 64];
        preimage[28..32].copy_from_slice(&key.to_be_bytes());
        preimage[32..].copy_from_slice(&LANE_SEQUENCE_SLOT.to_be_bytes::<32>());
        world.storage(account, keccak256(preimage).into())
    }
    .map_err(|e| not_pace(e.to_string()))?;
    // The low 64 bits: a uint64 (the bits above it in `_config` are the budgets flag).
    Ok(word.as_limbs()[0])
}
