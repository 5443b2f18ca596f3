//! Nonce lanes: a sequence is reserved durably before a PDR is signed for it.
//!
//! The account's nonces are `key << 64 | sequence`, each key a lane executed in strict
//! sequence. An instance owns disjoint lanes ([`crate::ServiceConfig::lanes`]). For a PDR it
//! takes the first owned lane whose next on-chain sequence is free: not reserved, or held by a
//! reservation the chain shows dead (never signed, or signed with a `validUntil` before the
//! latest block while the lane still stands at that sequence). A lane whose next sequence is
//! held by a live PDR is skipped, so a signed PDR never blocks its lane unnoticed and a
//! sequence is never signed twice while the first signature can still execute.

use crate::{
    Error, Result,
    store::{Reservation, ReservationState, Store},
};
use pace_evm::InProcessEvm;
use pace_pipeline::AccountState;

/// Reserves the next free sequence for `proposal_id` on one of `lanes` of `account` (as read on
/// `evm`), reading the other lanes' positions and the latest block's time from `evm` (the
/// embedded world, or a fork of the node's latest block).
pub fn reserve(
    store: &mut dyn Store,
    evm: &InProcessEvm,
    account: &AccountState,
    lanes: &[u32],
    proposal_id: &str,
) -> Result<Reservation> {
    let latest = evm.timestamp();
    let (state, account) = (account, account.account());
    for &lane in lanes {
        let next = state.sequence(evm, lane)?;
        if let Some(mut held) = store.live_reservation(account, lane, next)? {
            let dead = match (held.state, held.valid_until) {
                // Reserved but never signed: nothing can execute on it.
                (ReservationState::Reserved, _) => true,
                // Signed: dead once its window closed before the latest block (the lane still
                // stands at this sequence: `next` was just read).
                (_, Some(valid_until)) => valid_until < latest,
                (_, None) => false,
            };
            if !dead {
                continue;
            }
            held.state = ReservationState::Dead;
            store.update_reservation(&held)?;
        }
        let r = Reservation {
            account,
            lane,
            sequence: next,
            proposal_id: proposal_id.to_owned(),
            digest: None,
            valid_until: None,
            state: ReservationState::Reserved,
        };
        store.reserve(&r)?;
        return Ok(r);
    }
    Err(Error::NoFreeLane)
}
