//! Compound-style markets: a call target, or a token whose balance the account's changed, that
//! answers a cToken's `comptroller()` and `borrowBalanceStored(account)` is a market; its
//! comptroller gives the account's health over the markets it entered:
//!
//! - `getAccountLiquidity(account)` is `(error, liquidity, shortfall)` in USD with 18
//!   decimals, collateral weighted by each market's collateral factor;
//! - the debt's value is, over the markets entered (`getAssetsIn`), the borrow balance of
//!   `getAccountSnapshot` times the price (`oracle().getUnderlyingPrice`, or the comptroller's
//!   own `getUnderlyingPrice`) over 1e18, as the comptroller computes it;
//! - the health factor is `(liquidity + debt) / debt` (`(debt - shortfall) / debt` in a
//!   shortfall): collateral over debt, 1.0 at the liquidation point.
//!
//! An error code, a missing price or a read that fails leaves the health factor unread. The
//! calls lower the position if a market's debt rose (`borrowBalanceCurrent`, else
//! `borrowBalanceStored`), the supply of a market it entered fell (`balanceOfUnderlying`), it
//! left a market, the health factor fell, or any of these cannot be read.

use alloy_primitives::{Address, U256, U512};
use pace_abi::rights::{ICompoundComptroller, ICompoundMarket, ICompoundOracle};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{LendingFact, LendingProtocol, LendingState};

use super::{LendingInputs, MAX_MARKETS, ratio_bps, view};
use crate::{error::Result, fork::Viewer};

/// Compound's mantissa: `1e18`.
const MANTISSA: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);

/// `market`'s comptroller, if `market` answers as a cToken does in this state.
fn comptroller_of<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    market: Address,
    account: Address,
) -> Result<Option<Address>> {
    let Some(comptroller) = view(viewer, market, &ICompoundMarket::comptrollerCall {})? else {
        return Ok(None);
    };
    if comptroller == Address::ZERO || comptroller == market {
        return Ok(None);
    }
    let borrows = view(
        viewer,
        market,
        &ICompoundMarket::borrowBalanceStoredCall { account },
    )?;
    Ok(borrows.map(|_| comptroller))
}

/// The markets `account` entered, at most [`MAX_MARKETS`].
fn assets_in<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    comptroller: Address,
    account: Address,
) -> Result<Option<Vec<Address>>> {
    let markets = view(
        viewer,
        comptroller,
        &ICompoundComptroller::getAssetsInCall { account },
    )?;
    Ok(markets.filter(|m| m.len() <= MAX_MARKETS))
}

/// The price of one smallest unit of `market`'s underlying (USD, scaled by 1e36 over its
/// decimals), from the comptroller's `oracle()` or, without one, the comptroller itself.
fn price<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    comptroller: Address,
    market: Address,
) -> Result<Option<U256>> {
    let oracle = view(viewer, comptroller, &ICompoundComptroller::oracleCall {})?;
    let price = match oracle.filter(|o| *o != Address::ZERO) {
        Some(oracle) => view(
            viewer,
            oracle,
            &ICompoundOracle::getUnderlyingPriceCall { cToken: market },
        )?,
        None => view(
            viewer,
            comptroller,
            &ICompoundComptroller::getUnderlyingPriceCall { cToken: market },
        )?,
    };
    Ok(price.filter(|p| !p.is_zero()))
}

/// The account's health over `entered` at one moment: the health factor, the collateral and
/// the debt (USD, 1e18); `None` fields where a read failed.
fn state<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    comptroller: Address,
    entered: Option<&[Address]>,
    account: Address,
) -> Result<LendingState> {
    let unread = LendingState::default();
    let Some(entered) = entered else {
        return Ok(unread);
    };
    let liquidity = view(
        viewer,
        comptroller,
        &ICompoundComptroller::getAccountLiquidityCall { account },
    )?;
    let Some(l) = liquidity.filter(|l| l.error.is_zero()) else {
        return Ok(unread);
    };
    let mut debt = U512::ZERO;
    for &market in entered {
        let snapshot = view(
            viewer,
            market,
            &ICompoundMarket::getAccountSnapshotCall { account },
        )?;
        let Some(s) = snapshot.filter(|s| s.error.is_zero()) else {
            return Ok(unread);
        };
        if s.borrowed.is_zero() {
            continue;
        }
        let Some(p) = price(viewer, comptroller, market)? else {
            return Ok(unread);
        };
        debt = debt.saturating_add(U512::from(p) * U512::from(s.borrowed) / U512::from(MANTISSA));
    }
    let debt = U256::saturating_from(debt);
    let collateral = if l.shortfall.is_zero() {
        l.liquidity.saturating_add(debt)
    } else {
        debt.saturating_sub(l.shortfall)
    };
    Ok(LendingState {
        health_factor_bps: Some(ratio_bps(collateral, debt)),
        collateral: Some(collateral),
        debt: Some(debt),
    })
}

/// `borrowBalanceCurrent(account)` (accrued, read-only), else `borrowBalanceStored(account)`.
fn borrowed<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    market: Address,
    account: Address,
) -> Result<Option<U256>> {
    match view(
        viewer,
        market,
        &ICompoundMarket::borrowBalanceCurrentCall { account },
    )? {
        Some(debt) => Ok(Some(debt)),
        None => view(
            viewer,
            market,
            &ICompoundMarket::borrowBalanceStoredCall { account },
        ),
    }
}

/// `balanceOfUnderlying(account)` (accrued, read-only).
fn supplied<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    market: Address,
    account: Address,
) -> Result<Option<U256>> {
    view(
        viewer,
        market,
        &ICompoundMarket::balanceOfUnderlyingCall { owner: account },
    )
}

pub(super) fn facts<B, A>(
    input: &LendingInputs<'_>,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<LendingFact>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let account = input.account;
    let candidates = input
        .targets
        .iter()
        .copied()
        .chain(input.moves().into_iter().map(|m| m.0));
    // (comptroller, its markets among the candidates)
    let mut groups: Vec<(Address, Vec<Address>)> = Vec::new();
    for market in candidates {
        if groups.iter().any(|g| g.1.contains(&market)) {
            continue;
        }
        let comptroller = match comptroller_of(before, market, account)? {
            Some(c) => Some(c),
            None => comptroller_of(after, market, account)?,
        };
        let Some(comptroller) = comptroller else {
            continue;
        };
        match groups.iter_mut().find(|g| g.0 == comptroller) {
            Some(g) => g.1.push(market),
            None => groups.push((comptroller, vec![market])),
        }
    }
    let mut out = Vec::new();
    for (comptroller, mut markets) in groups.into_iter().take(MAX_MARKETS) {
        let entered_before = assets_in(before, comptroller, account)?;
        let entered_after = assets_in(after, comptroller, account)?;
        for m in entered_before.iter().chain(entered_after.iter()).flatten() {
            if !markets.contains(m) {
                markets.push(*m);
            }
        }
        let was = state(before, comptroller, entered_before.as_deref(), account)?;
        let is = state(after, comptroller, entered_after.as_deref(), account)?;
        let lowers = lowers(
            account,
            &markets,
            (entered_before.as_deref(), entered_after.as_deref()),
            (&was, &is),
            before,
            after,
        )?;
        out.push(LendingFact {
            protocol: LendingProtocol::Compound,
            market: comptroller,
            before: was,
            after: is,
            lowers,
        });
    }
    Ok(out)
}

/// Whether the calls can have lowered the account's health at the comptroller; see the
/// module docs.
fn lowers<B, A>(
    account: Address,
    markets: &[Address],
    (entered_before, entered_after): (Option<&[Address]>, Option<&[Address]>),
    (was, is): (&LendingState, &LendingState),
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<bool>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let (Some(entered_before), Some(entered_after)) = (entered_before, entered_after) else {
        return Ok(true);
    };
    if entered_before.iter().any(|m| !entered_after.contains(m)) {
        return Ok(true);
    }
    if let (Some(w), Some(i)) = (was.health_factor_bps, is.health_factor_bps)
        && i < w
    {
        return Ok(true);
    }
    for &market in markets {
        match (
            borrowed(before, market, account)?,
            borrowed(after, market, account)?,
        ) {
            (Some(w), Some(i)) if i <= w => {}
            _ => return Ok(true),
        }
        if !entered_before.contains(&market) && !entered_after.contains(&market) {
            continue;
        }
        match (
            supplied(before, market, account)?,
            supplied(after, market, account)?,
        ) {
            (Some(w), Some(i)) if i >= w => {}
            _ => return Ok(true),
        }
    }
    Ok(false)
}
