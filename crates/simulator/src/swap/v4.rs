//! A Uniswap V4 hop: the pool the calldata names by id, in the pool manager the router was
//! built with (`poolManager()`), its price before and after the call read from the manager's
//! storage (`extsload` of the pool's `slot0`), and a `Swap` log the manager emitted for that
//! pool in the call (a pool the call did not swap in measures nothing).
//!
//! As for a V3 pool, the mid price `P = (√P / 2^96)²` of currency1 in currency0 comes as two
//! equal halves (`sqrt_price_halves`): the quote and the impact over hops apply unchanged.

use super::Hop;
use crate::{error::Result, fork::Viewer, logs::is_v4_swap};
use alloy_primitives::{Address, B256, Log, U256, keccak256};
use alloy_sol_types::{SolCall, sol};
use pace_evm::{ForkError, revm::DatabaseRef};

sol! {
    /// What the hop reads of the router and the pool manager.
    interface IV4View {
        function poolManager() external view returns (address);
        function extsload(bytes32 slot) external view returns (bytes32);
    }
}

/// `StateLibrary.POOLS_SLOT`: the pool manager's `pools` mapping.
const POOLS_SLOT: u8 = 6;

/// The hop from `a` to `b` through pool `id` of the pool manager of `router`, as two halves.
pub(super) fn hop<P, Q>(
    router: Address,
    (a, b, id): (Address, Address, B256),
    logs: &[Log],
    before: &mut Viewer<'_, '_, P>,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<[Hop; 2]>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    let Some(manager) = before
        .word(router, IV4View::poolManagerCall {}.abi_encode())?
        .filter(|w| *w < (U256::from(1u8) << 160))
        .map(|w| Address::from_word(w.into()))
    else {
        return Ok(None);
    };
    let swapped = logs
        .iter()
        .any(|l| l.address == manager && is_v4_swap(l) && l.topics()[1] == id);
    if !swapped {
        return Ok(None);
    }
    let mut key = id.to_vec();
    key.extend_from_slice(&U256::from(POOLS_SLOT).to_be_bytes::<32>());
    let slot0 = IV4View::extsloadCall {
        slot: keccak256(&key),
    }
    .abi_encode();
    let price = |w: U256| -> U256 { w & ((U256::from(1u8) << 160) - U256::from(1u8)) };
    let (Some(p0), Some(p1)) = (
        before.word(manager, slot0.clone())?.map(price),
        after.word(manager, slot0)?.map(price),
    ) else {
        return Ok(None);
    };
    if p0.is_zero() || p1.is_zero() {
        return Ok(None);
    }
    // Selling currency0: the lower address (native ether, zero, is always currency0).
    Ok(Some(super::sqrt_price_halves(manager, a < b, (p0, p1))))
}
