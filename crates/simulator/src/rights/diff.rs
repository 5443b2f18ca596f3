//! The execution's state diff: every storage slot the calls changed, in every contract but the
//! account, against the state before them, and the contracts they created. Read once, judged
//! by the storage rules ([`super::storage`]) and the unread positions ([`super::unread`]).

use alloy_primitives::{Address, U256};
use pace_evm::{ForkError, revm::DatabaseRef};

use crate::{error::Result, fork::ForkDb};

/// One storage slot the calls changed.
pub(crate) struct Changed {
    pub(crate) contract: Address,
    pub(crate) slot: U256,
    pub(crate) old: [u8; 32],
    pub(crate) new: [u8; 32],
}

/// What the calls changed in storage, sorted by contract and slot.
pub(crate) struct StateDiff {
    /// Every changed slot.
    pub(crate) changed: Vec<Changed>,
    /// The contracts the calls created.
    pub(crate) created: Vec<Address>,
}

/// The slots `post` changed against `pre` in every contract but `account`.
pub(crate) fn state_diff<P: DatabaseRef<Error = ForkError>>(
    account: Address,
    pre: &P,
    post: &ForkDb<'_>,
) -> Result<StateDiff> {
    let mut contracts: Vec<Address> = post
        .cache
        .accounts
        .keys()
        .copied()
        .filter(|a| *a != account)
        .collect();
    contracts.sort_unstable();
    let mut changed: Vec<Changed> = Vec::new();
    let mut created: Vec<Address> = Vec::new();
    for contract in contracts {
        let entry = &post.cache.accounts[&contract];
        let had_code = pre
            .basic_ref(contract)?
            .is_some_and(|info| !info.is_empty_code_hash());
        let is_new = !had_code && !entry.info.is_empty_code_hash();
        if is_new {
            created.push(contract);
        }
        let fresh = is_new || entry.account_state.is_storage_cleared();
        let mut slots: Vec<(&U256, &U256)> = entry.storage.iter().collect();
        slots.sort_unstable();
        for (&slot, &value) in slots {
            let old = if fresh {
                U256::ZERO
            } else {
                pre.storage_ref(contract, slot)?
            };
            if old != value {
                changed.push(Changed {
                    contract,
                    slot,
                    old: old.to_be_bytes(),
                    new: value.to_be_bytes(),
                });
            }
        }
    }
    Ok(StateDiff { changed, created })
}
