//! The account's lending health factor before and after, through the generic
//! [`ILendingPosition`] view `healthFactor(address)`: any market that answers it, whoever wrote
//! it.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::ILendingPosition;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::Bps;

use crate::{error::Result, fork::Viewer};

/// WAD per basis point: a health factor of 1.0 is `1e18` WAD and `10_000` bps.
const WAD_PER_BPS: U256 = U256::from_limbs([100_000_000_000_000, 0, 0, 0]);

/// `(before, after)` in bps from the first of `targets` that answers
/// `healthFactor(account)` with exactly one word, before (`world`) or after (`fork`).
pub(crate) fn health_factors<B, A>(
    targets: &[Address],
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<(Option<Bps>, Option<Bps>)>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let data = ILendingPosition::healthFactorCall { user: account }.abi_encode();
    for &target in targets {
        let hf_before = before
            .words(target, data.clone(), 1)?
            .map(|w| wad_to_bps(w[0]));
        let hf_after = after
            .words(target, data.clone(), 1)?
            .map(|w| wad_to_bps(w[0]));
        if hf_before.is_some() || hf_after.is_some() {
            return Ok((hf_before, hf_after));
        }
    }
    Ok((None, None))
}

/// A WAD health factor in bps, rounded down, saturating at `u32::MAX` (no debt is
/// `type(uint256).max`).
pub(crate) fn wad_to_bps(wad: U256) -> Bps {
    u32::try_from(wad / WAD_PER_BPS).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wad_conversion() {
        let wad = |x: u128| U256::from(x);
        assert_eq!(wad_to_bps(wad(1_000_000_000_000_000_000)), 10_000);
        assert_eq!(wad_to_bps(wad(1_066_666_666_666_666_666)), 10_666);
        assert_eq!(wad_to_bps(wad(99_999_999_999_999)), 0);
        assert_eq!(wad_to_bps(U256::MAX), u32::MAX);
    }
}
