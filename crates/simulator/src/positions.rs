//! The account's lending positions before and after, through generic views.
//!
//! A market is any touched contract that answers the generic
//! [`ILendingPosition`](pace_abi::bindings::ILendingPosition) views `collateralToken()` / `collateralOf(user)`
//! or `debtToken()` / `debtOf(user)`. Collateral is the account's asset, debt its liability,
//! so value conservation sees a deposit or a borrow as the exchange it is.

use alloy_primitives::{Address, I256, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::ILendingPosition::{
    collateralOfCall, collateralTokenCall, debtOfCall, debtTokenCall,
};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::PositionChange;

use crate::{balances::signed_delta, error::Result, fork::Viewer};

/// The non-zero changes of the account's collateral and debt in every market among
/// `touched`, in that order (collateral first).
pub(crate) fn position_changes<B, A>(
    touched: &[Address],
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<PositionChange>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = Vec::new();
    for &market in touched {
        let sides = [
            (
                collateralTokenCall {}.abi_encode(),
                collateralOfCall { user: account }.abi_encode(),
                false,
            ),
            (
                debtTokenCall {}.abi_encode(),
                debtOfCall { user: account }.abi_encode(),
                true,
            ),
        ];
        for (token_call, amount_call, liability) in sides {
            let Some(token) = before
                .words(market, token_call, 1)?
                .map(|w| w[0])
                .filter(|w: &U256| (*w >> 160usize).is_zero())
                .map(|w| Address::from_word(w.into()))
            else {
                continue;
            };
            let was = before.words(market, amount_call.clone(), 1)?;
            let is = after.words(market, amount_call, 1)?;
            let (Some(was), Some(is)) = (was, is) else {
                continue;
            };
            let delta = signed_delta(was[0], is[0]);
            let delta = if liability {
                delta.checked_neg().unwrap_or(I256::MAX)
            } else {
                delta
            };
            if !delta.is_zero() {
                out.push(PositionChange {
                    market,
                    token,
                    delta,
                });
            }
        }
    }
    Ok(out)
}
