//! Uniswap V3: a pool's prices, and the account's positions in a position manager.
//!
//! **Prices.** Any contract that answers a V3 pool's `slot0`, `token0` and `token1` gives its
//! current price ([`PriceSource::V3Spot`]) and, when its observations reach back
//! [`TWAP_SECS`] (`observe([TWAP_SECS, 0])` succeeds), the price at its time-weighted average
//! tick over that window ([`PriceSource::V3Twap`]), each as a rate of token0 in token1 and of
//! token1 in token0. The verifier trusts them only for pools the policy names.
//!
//! **Positions.** A call target that says it is an enumerable ERC-721 (ERC-165) and answers a
//! NonfungiblePositionManager's `factory()` and `balanceOf(account)` is read as one: every position id the account owns before and after
//! (`tokenOfOwnerByIndex`), each position's range and liquidity (`positions(id)`), and what it
//! is owed: `tokensOwed` plus the fees earned since its last update, from its pool's fee growth
//! (`feeGrowthGlobal*`, `ticks(lower / upper).feeGrowthOutside*`, the current tick), as the
//! pool itself would credit them. The pool is the manager's factory's `getPool`. A manager
//! whose positions or pool cannot be read leaves a gap.

use alloy_primitives::{Address, FixedBytes, U256, U512, aliases::U24};
use alloy_sol_types::SolCall;
use pace_abi::protocols::{IPositionManagerView, IUniswapV3FactoryView, IUniswapV3PoolView};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{PriceFact, PriceSource, TokenAmount, V3Liquidity, V3Position};

use super::{Adapted, MAX_ITEMS, tick_math, view};
use crate::{error::Result, fork::Viewer};

/// ERC-165 id of ERC-721.
const ERC721_ID: [u8; 4] = [0x80, 0xac, 0x58, 0xcd];
/// ERC-165 id of ERC-721's enumeration extension.
const ERC721_ENUMERABLE_ID: [u8; 4] = [0x78, 0x0e, 0x9d, 0x63];

/// The TWAP window, in seconds: 30 minutes.
pub(crate) const TWAP_SECS: u32 = 1_800;

/// How many units of a token a V3 rate is for: `2^128`, so that a rate in the other token,
/// `sqrtPrice² / 2^64` or `2^320 / sqrtPrice²`, keeps its precision and fits 256 bits.
const PROBE: U256 = U256::from_limbs([0, 0, 1, 0]);

/// The rates of token0 in token1 and back at `sqrt_price_x96`, from `source` at `pool`.
fn rates(
    pool: Address,
    token0: Address,
    token1: Address,
    sqrt_price_x96: U256,
    source: PriceSource,
) -> Vec<PriceFact> {
    if sqrt_price_x96.is_zero() {
        return Vec::new();
    }
    let square = U512::from(sqrt_price_x96) * U512::from(sqrt_price_x96);
    // amount · sqrtP² / 2^192 with amount = 2^128.
    let one_in_token1 = U256::saturating_from(square >> 64);
    let one_in_token0 = U256::saturating_from((U512::from(1u8) << 320) / square);
    let fact = |token, quote, amount: U256| PriceFact {
        token,
        source,
        via: pool,
        amount: PROBE,
        worth: vec![TokenAmount {
            token: quote,
            amount,
        }],
    };
    let mut out = Vec::new();
    if !one_in_token1.is_zero() {
        out.push(fact(token0, token1, one_in_token1));
    }
    if !one_in_token0.is_zero() {
        out.push(fact(token1, token0, one_in_token0));
    }
    out
}

/// An address in one word (its high 12 bytes zero), from a decoded `address` return.
fn tokens<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    pool: Address,
) -> Result<Option<(Address, Address)>> {
    let t0 = view(viewer, pool, &IUniswapV3PoolView::token0Call {})?;
    let t1 = view(viewer, pool, &IUniswapV3PoolView::token1Call {})?;
    Ok(match (t0, t1) {
        (Some(t0), Some(t1)) if t0 != t1 && t0 != pool && t1 != pool => Some((t0, t1)),
        _ => None,
    })
}

/// The V3 prices of `pool` before the calls, or nothing if it is no V3 pool; see the module
/// docs.
pub(crate) fn pool_prices<D: DatabaseRef<Error = ForkError>>(
    before: &mut Viewer<'_, '_, D>,
    pool: Address,
) -> Result<Vec<PriceFact>> {
    let Some(slot0) = view(before, pool, &IUniswapV3PoolView::slot0Call {})? else {
        return Ok(Vec::new());
    };
    let Some((token0, token1)) = tokens(before, pool)? else {
        return Ok(Vec::new());
    };
    let spot = U256::from(slot0.sqrtPriceX96);
    let mut out = rates(pool, token0, token1, spot, PriceSource::V3Spot);
    let observe = IUniswapV3PoolView::observeCall {
        secondsAgos: vec![TWAP_SECS, 0],
    };
    if let Some(observed) = view(before, pool, &observe)?
        && let [then, now] = observed.tickCumulatives[..]
        && let Some(tick) = tick_math::mean_tick(then.as_i64(), now.as_i64(), TWAP_SECS)
        && let Some(twap) = tick_math::sqrt_price_x96_at_tick(tick)
    {
        out.extend(rates(pool, token0, token1, twap, PriceSource::V3Twap));
    }
    Ok(out)
}

/// The read-only calls [`pool_prices`] makes, for [`crate::prefetch`].
pub(crate) fn pool_probes() -> Vec<Vec<u8>> {
    vec![
        IUniswapV3PoolView::slot0Call {}.abi_encode(),
        IUniswapV3PoolView::token0Call {}.abi_encode(),
        IUniswapV3PoolView::token1Call {}.abi_encode(),
        IUniswapV3PoolView::observeCall {
            secondsAgos: vec![TWAP_SECS, 0],
        }
        .abi_encode(),
    ]
}

/// The first read-only call [`positions`] makes to a call target, for [`crate::prefetch`].
pub(crate) fn position_probes() -> Vec<Vec<u8>> {
    vec![
        IPositionManagerView::supportsInterfaceCall {
            interfaceId: FixedBytes(ERC721_ID),
        }
        .abi_encode(),
    ]
}

/// The ids `account` owns in `manager` in one state, or `None` if more than [`MAX_ITEMS`] or
/// unreadable.
fn owned<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    manager: Address,
    account: Address,
) -> Result<Option<Vec<U256>>> {
    let Some(count) = view(
        viewer,
        manager,
        &IPositionManagerView::balanceOfCall { owner: account },
    )?
    else {
        return Ok(None);
    };
    if count > U256::from(MAX_ITEMS) {
        return Ok(None);
    }
    let mut ids = Vec::new();
    for index in 0..count.to::<usize>() {
        let call = IPositionManagerView::tokenOfOwnerByIndexCall {
            owner: account,
            index: U256::from(index),
        };
        match view(viewer, manager, &call)? {
            Some(id) => ids.push(id),
            None => return Ok(None),
        }
    }
    Ok(Some(ids))
}

/// The static part of a position and what it holds in one state.
struct Read {
    pool: Address,
    token0: Address,
    token1: Address,
    tick_lower: i32,
    tick_upper: i32,
    held: V3Liquidity,
}

/// `a - b` modulo 2^256, as the pools' fee growth is.
fn wrapping(a: U256, b: U256) -> U256 {
    a.wrapping_sub(b)
}

/// Position `id` of `manager` in one state, with its fees; `None` when any read fails.
fn read_position<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    manager: Address,
    factory: Address,
    id: U256,
) -> Result<Option<Read>> {
    let Some(p) = view(
        viewer,
        manager,
        &IPositionManagerView::positionsCall { tokenId: id },
    )?
    else {
        return Ok(None);
    };
    let get = IUniswapV3FactoryView::getPoolCall {
        tokenA: p.token0,
        tokenB: p.token1,
        fee: U24::from(p.fee),
    };
    let Some(pool) = view(viewer, factory, &get)?.filter(|a| *a != Address::ZERO) else {
        return Ok(None);
    };
    let (lower, upper) = (p.tickLower, p.tickUpper);
    let reads = (
        view(viewer, pool, &IUniswapV3PoolView::slot0Call {})?,
        view(
            viewer,
            pool,
            &IUniswapV3PoolView::feeGrowthGlobal0X128Call {},
        )?,
        view(
            viewer,
            pool,
            &IUniswapV3PoolView::feeGrowthGlobal1X128Call {},
        )?,
        view(viewer, pool, &IUniswapV3PoolView::ticksCall { tick: lower })?,
        view(viewer, pool, &IUniswapV3PoolView::ticksCall { tick: upper })?,
    );
    let (Some(slot0), Some(global0), Some(global1), Some(low), Some(high)) = reads else {
        return Ok(None);
    };
    let tick = slot0.tick.as_i32();
    let (tick_lower, tick_upper) = (lower.as_i32(), upper.as_i32());
    // The fee growth inside the range, as the pool's `Tick.getFeeGrowthInside` computes it.
    let inside = |global: U256, out_low: U256, out_high: U256| {
        let below = if tick >= tick_lower {
            out_low
        } else {
            wrapping(global, out_low)
        };
        let above = if tick < tick_upper {
            out_high
        } else {
            wrapping(global, out_high)
        };
        wrapping(wrapping(global, below), above)
    };
    let inside0 = inside(
        global0,
        low.feeGrowthOutside0X128,
        high.feeGrowthOutside0X128,
    );
    let inside1 = inside(
        global1,
        low.feeGrowthOutside1X128,
        high.feeGrowthOutside1X128,
    );
    let liquidity = U256::from(p.liquidity);
    let earned = |now: U256, last: U256| {
        let growth = U512::from(wrapping(now, last)) * U512::from(liquidity);
        U256::saturating_from(growth >> 128)
    };
    let owed0 =
        U256::from(p.tokensOwed0).saturating_add(earned(inside0, p.feeGrowthInside0LastX128));
    let owed1 =
        U256::from(p.tokensOwed1).saturating_add(earned(inside1, p.feeGrowthInside1LastX128));
    Ok(Some(Read {
        pool,
        token0: p.token0,
        token1: p.token1,
        tick_lower,
        tick_upper,
        held: V3Liquidity {
            liquidity,
            owed0,
            owed1,
        },
    }))
}

/// The account's positions in `manager` (if it is a position manager); see the module docs.
pub(super) fn positions<B, A>(
    manager: Address,
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
    out: &mut Adapted,
) -> Result<()>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    // An enumerable ERC-721 (ERC-165 ids of ERC-721 and its enumeration extension) with a
    // factory: an LP token or a router with a `factory()` is none.
    for id in [ERC721_ID, ERC721_ENUMERABLE_ID] {
        let supports = IPositionManagerView::supportsInterfaceCall {
            interfaceId: FixedBytes(id),
        };
        if view(before, manager, &supports)? != Some(true) {
            return Ok(());
        }
    }
    let factory_call = IPositionManagerView::factoryCall {};
    let factory = match view(before, manager, &factory_call)? {
        Some(f) => Some(f),
        None => view(after, manager, &factory_call)?,
    };
    let Some(factory) = factory.filter(|f| *f != Address::ZERO) else {
        return Ok(());
    };
    let balance = IPositionManagerView::balanceOfCall { owner: account };
    if view(before, manager, &balance)?.is_none() && view(after, manager, &balance)?.is_none() {
        return Ok(());
    }
    let (Some(was), Some(is)) = (
        owned(before, manager, account)?,
        owned(after, manager, account)?,
    ) else {
        out.gap(
            manager,
            format!("the account's positions (more than {MAX_ITEMS}, or unreadable)"),
        );
        return Ok(());
    };
    let mut ids: Vec<U256> = was.iter().chain(&is).copied().collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        let then = if was.contains(&id) {
            match read_position(before, manager, factory, id)? {
                Some(r) => Some(r),
                None => {
                    out.gap(manager, format!("position {id} before the calls"));
                    continue;
                }
            }
        } else {
            None
        };
        let now = if is.contains(&id) {
            match read_position(after, manager, factory, id)? {
                Some(r) => Some(r),
                None => {
                    out.gap(manager, format!("position {id} after the calls"));
                    continue;
                }
            }
        } else {
            None
        };
        let Some(shape) = then.as_ref().or(now.as_ref()) else {
            continue;
        };
        let bounds = (
            tick_math::sqrt_price_x96_at_tick(shape.tick_lower),
            tick_math::sqrt_price_x96_at_tick(shape.tick_upper),
        );
        let (Some(sqrt_lower_x96), Some(sqrt_upper_x96)) = bounds else {
            out.gap(manager, format!("position {id}: a tick out of range"));
            continue;
        };
        out.protocols.v3_positions.push(V3Position {
            manager,
            id,
            pool: shape.pool,
            token0: shape.token0,
            token1: shape.token1,
            tick_lower: shape.tick_lower,
            tick_upper: shape.tick_upper,
            sqrt_lower_x96,
            sqrt_upper_x96,
            before: then.map(|r| r.held),
            after: now.map(|r| r.held),
        });
    }
    Ok(())
}
