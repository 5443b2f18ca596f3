//! Aave V3: the account's health factor, collateral and debt (`getUserAccountData`, in the
//! market oracle's base currency) in every pool among the call targets and the `POOL()` of the
//! tokens of the account's that moved (its aTokens and debt tokens: their balance change, or
//! their logged flows where a balance cannot be read).
//!
//! A pool named by such a token is an Aave market even when its views fail; a call target is
//! one only if it answers `getUserAccountData`. When both readings exist, the calls lower the
//! position if collateral fell, debt rose or the health factor fell. When one is missing, they
//! do not lower it only if every change of the account's tokens of that pool is an aToken
//! arriving or a debt token leaving (`getReserveData` of the token's underlying says which), no
//! reserve stopped counting as collateral (`getUserConfiguration`) and the e-mode stayed
//! (`getUserEMode`).

use alloy_primitives::{Address, U256};
use pace_abi::{
    bindings::IERC20,
    rights::{IAaveV3Pool, ICreditDelegation},
};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{LendingFact, LendingProtocol, LendingState};

use super::{LendingInputs, MAX_MARKETS, view, wad_to_bps};
use crate::{balances::signed_delta, error::Result, fork::Viewer};

/// The bits of `getUserConfiguration` that say "used as collateral" (the odd ones).
const COLLATERAL_BITS: U256 = U256::from_limbs([0xAAAA_AAAA_AAAA_AAAA; 4]);

/// `getUserAccountData(account)` on `pool`.
fn state<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    pool: Address,
    account: Address,
) -> Result<Option<LendingState>> {
    let data = view(
        viewer,
        pool,
        &IAaveV3Pool::getUserAccountDataCall { user: account },
    )?;
    Ok(data.map(|d| LendingState {
        health_factor_bps: Some(wad_to_bps(d.healthFactor)),
        collateral: Some(d.totalCollateralBase),
        debt: Some(d.totalDebtBase),
    }))
}

/// The pool an Aave token names (`POOL()`), if it answers with an address.
fn pool_of<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    token: Address,
) -> Result<Option<Address>> {
    Ok(view(viewer, token, &ICreditDelegation::POOLCall {})?.filter(|p| *p != Address::ZERO))
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
    // (pool, named by a token of the account's)
    let moves = input.moves();
    let mut pools: Vec<(Address, bool)> = input.targets.iter().map(|&t| (t, false)).collect();
    for &(token, _) in &moves {
        let named = match pool_of(before, token)? {
            Some(pool) => Some(pool),
            None => pool_of(after, token)?,
        };
        if let Some(pool) = named {
            match pools.iter_mut().find(|p| p.0 == pool) {
                Some(p) => p.1 = true,
                None => pools.push((pool, true)),
            }
        }
    }
    let mut out = Vec::new();
    for (pool, named) in pools.into_iter().take(MAX_MARKETS) {
        let was = state(before, pool, input.account)?;
        let is = state(after, pool, input.account)?;
        if was.is_none() && is.is_none() && !named {
            continue;
        }
        let lowers = match (&was, &is) {
            (Some(w), Some(i)) => {
                i.collateral < w.collateral
                    || i.debt > w.debt
                    || i.health_factor_bps < w.health_factor_bps
            }
            _ => !only_safe_moves(input.account, &moves, pool, before, after)?,
        };
        out.push(LendingFact {
            protocol: LendingProtocol::AaveV3,
            market: pool,
            before: was.unwrap_or_default(),
            after: is.unwrap_or_default(),
            lowers,
        });
    }
    Ok(out)
}

/// Whether every change of the account's tokens of `pool` is a supply (aToken in) or a
/// repayment (debt token out), no reserve stopped counting as collateral and the e-mode
/// stayed; a read that fails answers no.
fn only_safe_moves<B, A>(
    account: Address,
    moves: &[(Address, alloy_primitives::I256)],
    pool: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<bool>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let config = IAaveV3Pool::getUserConfigurationCall { user: account };
    let (Some(was), Some(is)) = (view(before, pool, &config)?, view(after, pool, &config)?) else {
        return Ok(false);
    };
    if was.data & COLLATERAL_BITS & !is.data != U256::ZERO {
        return Ok(false);
    }
    let mode = IAaveV3Pool::getUserEModeCall { user: account };
    match (view(before, pool, &mode)?, view(after, pool, &mode)?) {
        (Some(a), Some(b)) if a == b => {}
        _ => return Ok(false),
    }
    for &(token, delta) in moves {
        if pool_of(before, token)?.or(pool_of(after, token)?) != Some(pool) {
            continue;
        }
        let underlying = view(
            before,
            token,
            &ICreditDelegation::UNDERLYING_ASSET_ADDRESSCall {},
        )?;
        let Some(underlying) = underlying else {
            return Ok(false);
        };
        let reserve = view(
            before,
            pool,
            &IAaveV3Pool::getReserveDataCall { asset: underlying },
        )?;
        let Some(r) = reserve else {
            return Ok(false);
        };
        // The balance in the same block before and after, so that interest is no change;
        // where it cannot be read, what the logs moved.
        let balance = IERC20::balanceOfCall { account };
        let delta = match (
            view(before, token, &balance)?,
            view(after, token, &balance)?,
        ) {
            (Some(was), Some(is)) => signed_delta(was, is),
            _ => delta,
        };
        let safe = if token == r.aTokenAddress {
            delta.is_positive()
        } else if token == r.variableDebtTokenAddress || token == r.stableDebtTokenAddress {
            delta.is_negative()
        } else {
            false
        };
        if !safe && !delta.is_zero() {
            return Ok(false);
        }
    }
    Ok(true)
}
