//! The next sequence of a nonce lane, read straight from the account's storage.
//!
//! A `nextSequence(key)` view call costs a whole EVM transaction's setup (~33K instructions,
//! `make bench-instructions`) for one storage read; every PDR needs this read. The account
//! keeps lane 0's sequence in its packed config word and the other lanes' in the lane mapping
//! beside it ([`AccountState`]), as `contracts/core/PaceCore.sol` documents and solc lays out
//! (`tests/layouts/*.json`). The differential test `next_sequence_reads_what_the_view_returns`
//! holds this to the view on every lane kind.
//!
//! On the EntryPoint path the sequence is the EntryPoint's nonce for the lane's key, and the
//! account's lane is a floor ([`AccountState::next_sequence`]).

use super::{AccountState, ENTRY_POINT};
use crate::{Error, Result};
use alloy_primitives::Address;
use alloy_sol_types::SolCall;
use pace_evm::InProcessEvm;
use pace_types::{AccountKind, Entry};

alloy_sol_types::sol! {
    /// The EntryPoint's nonces (`NonceManager`).
    interface IEntryPointNonces {
        function getNonce(address sender, uint192 key) external view returns (uint256 nonce);
    }
}

/// The next sequence of lane `key` of the PaceAccount at `account` on `world`: what its
/// `nextSequence(key)` returns. Errors when `account` has no code (an EOA is no PaceAccount).
pub fn next_sequence(world: &InProcessEvm, account: Address, key: u32) -> Result<u64> {
    lane_sequence(world, account, key, AccountKind::PaceAccount)
}

/// [`next_sequence`] for an account of `kind` (its state at the kind's layout).
pub fn lane_sequence(
    world: &InProcessEvm,
    account: Address,
    key: u32,
    kind: AccountKind,
) -> Result<u64> {
    AccountState::read_pace(world, account, kind)?.sequence(world, key)
}

impl AccountState {
    /// The next sequence of lane `key` where `entry` consumes it: the account's lane on the
    /// direct path, the EntryPoint's nonce on the EntryPoint path, where the account's lane is
    /// a floor ([`Error::LaneCancelled`] when the floor is above it). One lane serves one
    /// path: a direct PDR on a lane raises the floor the EntryPoint path meets there.
    pub fn next_sequence(&self, world: &InProcessEvm, key: u32, entry: Entry) -> Result<u64> {
        let floor = self.sequence(world, key)?;
        if entry == Entry::Direct {
            return Ok(floor);
        }
        let account = self.account();
        let data = IEntryPointNonces::getNonceCall {
            sender: account,
            key: alloy_primitives::aliases::U192::from(key),
        }
        .abi_encode();
        let not_answered = |reason: String| Error::NotPaceAccount { account, reason };
        let out = world.view(ENTRY_POINT, data.into()).map_err(|e| {
            not_answered(format!("the EntryPoint v0.8 does not answer getNonce: {e}"))
        })?;
        let nonce = IEntryPointNonces::getNonceCall::abi_decode_returns(&out)
            .map_err(|e| not_answered(e.to_string()))?;
        let sequence = nonce.as_limbs()[0];
        if floor > sequence {
            return Err(Error::LaneCancelled {
                key,
                floor,
                sequence,
            });
        }
        Ok(sequence)
    }
}

/// The next sequence of lane `key` of `account` (of `kind`) where `entry` consumes it
/// ([`AccountState::next_sequence`] on a fresh read).
pub fn sequence_for(
    world: &InProcessEvm,
    account: Address,
    key: u32,
    kind: AccountKind,
    entry: Entry,
) -> Result<u64> {
    AccountState::read_pace(world, account, kind)?.next_sequence(world, key, entry)
}
