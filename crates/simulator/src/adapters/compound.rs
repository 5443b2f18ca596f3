//! Compound-style markets: a call target that answers a cToken's `underlying()` and
//! `comptroller()` is read as a cToken (cEther, without `underlying()`, is not read):
//!
//! - its exchange rate before the calls (`exchangeRateCurrent`, called read-only so interest is
//!   accrued to the simulated block; `exchangeRateStored` if that fails) values the cToken in
//!   its underlying: a [`PriceSource::Claim`] rate of `1e18` cToken units;
//! - the account's borrow balance before and after (`borrowBalanceCurrent`, else
//!   `borrowBalanceStored`), when it changed, is a [`LendingDebt`].
//!
//! A market whose exchange rate or borrow balance cannot be read is a gap.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::protocols::ICTokenView;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{LendingDebt, PriceFact, PriceSource, TokenAmount};

use super::{Adapted, view};
use crate::{error::Result, fork::Viewer};

/// The mantissa scale of Compound's exchange rates: `1e18`.
const MANTISSA: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);

/// `borrowBalanceCurrent(account)`, else `borrowBalanceStored(account)`.
fn borrowed<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    market: Address,
    account: Address,
) -> Result<Option<U256>> {
    match view(
        viewer,
        market,
        &ICTokenView::borrowBalanceCurrentCall { account },
    )? {
        Some(debt) => Ok(Some(debt)),
        None => view(
            viewer,
            market,
            &ICTokenView::borrowBalanceStoredCall { account },
        ),
    }
}

/// Reads `market` as a cToken; `false` if it is none.
pub(super) fn read<B, A>(
    market: Address,
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
    out: &mut Adapted,
) -> Result<bool>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let underlying = view(before, market, &ICTokenView::underlyingCall {})?;
    let comptroller = view(before, market, &ICTokenView::comptrollerCall {})?;
    let (Some(underlying), Some(_)) = (underlying, comptroller) else {
        return Ok(false);
    };
    if underlying == Address::ZERO || underlying == market {
        return Ok(false);
    }
    let rate = match view(before, market, &ICTokenView::exchangeRateCurrentCall {})? {
        Some(rate) => Some(rate),
        None => view(before, market, &ICTokenView::exchangeRateStoredCall {})?,
    };
    match rate.filter(|r| !r.is_zero()) {
        Some(rate) => out.prices.push(PriceFact {
            token: market,
            source: PriceSource::Claim,
            via: market,
            amount: MANTISSA,
            worth: vec![TokenAmount {
                token: underlying,
                amount: rate,
            }],
        }),
        None => out.gap(market, "the exchange rate"),
    }
    match (
        borrowed(before, market, account)?,
        borrowed(after, market, account)?,
    ) {
        (Some(was), Some(is)) if was != is => out.protocols.lending_debts.push(LendingDebt {
            market,
            token: underlying,
            before: was,
            after: is,
        }),
        (Some(_), Some(_)) => {}
        _ => out.gap(market, "the account's borrow balance"),
    }
    Ok(true)
}

/// The first read-only calls [`read`] makes to a call target, for [`crate::prefetch`].
pub(super) fn probes() -> Vec<Vec<u8>> {
    vec![
        ICTokenView::underlyingCall {}.abi_encode(),
        ICTokenView::comptrollerCall {}.abi_encode(),
        ICTokenView::exchangeRateCurrentCall {}.abi_encode(),
    ]
}
