//! Aave V3: a call target that answers `getReservesList()` and `getReserveData(asset)` for
//! each of its reserves is read as an Aave V3 pool, before the calls. For each reserve:
//!
//! - its aToken is a claim on the underlying, one smallest unit each (its `balanceOf` is the
//!   supplied amount with interest): a [`PriceSource::Claim`] rate;
//! - its variable and stable debt tokens are liabilities in the underlying, one each: a
//!   [`DebtToken`];
//!
//! and the pool with every aToken and debt token is one counterparty (a borrow mints the one
//! and pays out of the other; a repay pays the aToken and burns the debt token). A market
//! with more than [`MAX_ITEMS`] reserves, or a reserve that does not read, is a gap.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::protocols::IAaveV3PoolView;
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{CounterpartyGroup, DebtToken, PriceFact, PriceSource, TokenAmount};

use super::{Adapted, MAX_ITEMS, view};
use crate::{error::Result, fork::Viewer};

/// Reads `pool` as an Aave V3 pool; `false` if it is none.
pub(super) fn read<D: DatabaseRef<Error = ForkError>>(
    pool: Address,
    before: &mut Viewer<'_, '_, D>,
    out: &mut Adapted,
) -> Result<bool> {
    let Some(assets) = view(before, pool, &IAaveV3PoolView::getReservesListCall {})? else {
        return Ok(false);
    };
    if assets.len() > MAX_ITEMS {
        out.gap(
            pool,
            format!("{} reserves, more than {MAX_ITEMS}", assets.len()),
        );
        return Ok(true);
    }
    let mut members = vec![pool];
    for asset in assets {
        let data = view(before, pool, &IAaveV3PoolView::getReserveDataCall { asset })?;
        let Some(data) = data.filter(|d| d.aTokenAddress != Address::ZERO) else {
            out.gap(pool, format!("the reserve data of {asset}"));
            continue;
        };
        out.prices.push(PriceFact {
            token: data.aTokenAddress,
            source: PriceSource::Claim,
            via: pool,
            amount: U256::from(1u8),
            worth: vec![TokenAmount {
                token: asset,
                amount: U256::from(1u8),
            }],
        });
        members.push(data.aTokenAddress);
        for debt in [data.variableDebtTokenAddress, data.stableDebtTokenAddress] {
            if debt != Address::ZERO {
                out.debt_tokens.push(DebtToken {
                    token: debt,
                    underlying: asset,
                    market: pool,
                });
                members.push(debt);
            }
        }
    }
    out.protocols.groups.push(CounterpartyGroup {
        market: pool,
        members,
    });
    Ok(true)
}

/// The first read-only call [`read`] makes to a call target, for [`crate::prefetch`].
pub(super) fn probes() -> Vec<Vec<u8>> {
    vec![IAaveV3PoolView::getReservesListCall {}.abi_encode()]
}
