//! [`SwapFacts`] of a swap call (Uniswap V2 Router02's, V3 SwapRouter's, the Universal
//! Router's, a Balancer V2 Vault's), measured around that call.
//!
//! - `amount_in` / `amount_out`: the account's balance fall of the input and rise of the output
//!   over the call (ether when the router takes or pays ether), so a fee-on-transfer output or a
//!   router that skims shows up as received less. A Balancer V2 Vault swap that pays into the
//!   recipient's internal balance in the Vault (`Swap::to_internal`) is measured there
//!   (`getInternalBalance`), where the token does not move.
//! - The pools: for each hop, the first `Swap` log emitter whose `token0`/`token1` are the
//!   hop's tokens, else `router.factory().getPair(a, b)`, else `router.getPair(a, b)`.
//! - A V3 hop's pool: the first V3 `Swap` log emitter whose tokens are the hop's; its mid
//!   price is `slot0`'s, as two halves of `√P` each (see [`v3_hop`]).
//! - A Uniswap V4 hop's pool: the one the calldata names by id, in the router's pool manager,
//!   which must have emitted its `Swap` in the call; its mid price is its `slot0`'s, as for V3
//!   (see `v4::hop`).
//! - A Balancer V2 hop's pool: the one named by the first `Swap` log of the Vault the call
//!   targets for the hop's tokens; its mid price is the weighted pool's spot price (see
//!   `balancer::hop`).
//! - `quoted_out`: `amount_in` carried through every hop at the pre-trade mid price
//!   (`* reserveOut / reserveIn`, rounded down per hop; no fee, no impact).
//! - `price_impact_bps`: how far the trade moved the route's mid price,
//!   `1 - Π(rOut'/rIn') / Π(rOut/rIn)` with reserves right before and right after the call,
//!   rounded up.
//! - A trade split across routes (`Swap::routes`): each hop in the kind of pool its leg names
//!   (a V2 pair, a V3 pool of the leg's fee tier) that emitted a `Swap` in the call; the quote
//!   is the routes' quotes of their own shares added up, the impact the largest route's.
//! - `min_out` and `slippage_bps`: for exact input, the calldata's `amountOutMin` and
//!   `floor((amount_out - min_out) * 10_000 / amount_out)`; for exact output, the exact
//!   `amountOut` and the input tolerance `floor((max_in - amount_in) * 10_000 / amount_in)`.

mod balancer;
mod v4;

use alloy_primitives::{Address, Log, U256, U512};
use alloy_sol_types::SolCall;
use pace_abi::bindings::{IUniswapV2Factory, IUniswapV2Pair, IUniswapV2Router02};
use pace_abi::protocols::IUniswapV3PoolView;
use pace_abi::{Route, RoutePool, Swap, SwapKind};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{
    BPS_SCALE, Bps, ETH, SwapFacts,
    units::{max_in_tolerance_bps, min_out_tolerance_bps},
};

use crate::{
    balances::balance_of,
    error::Result,
    fork::{Env, Viewer, eth_balance},
    logs::{is_swap, is_v3_swap},
};

/// Fixed-point scale of the price ratios (1e27).
const RAY: U512 = U512::from_limbs([0x9fd0803ce8000000, 0x33b2e3c, 0, 0, 0, 0, 0, 0]);

/// One hop's pool and its `(reserveIn, reserveOut)` before and after.
#[derive(Debug, Clone, Copy)]
struct Hop {
    pool: Address,
    before: (U256, U256),
    after: (U256, U256),
}

/// The internal balance of `token` in the Vault `swap` runs through of the swap's recipient,
/// before and after the call; `None` when the Vault does not answer both.
fn internal_output<P, Q>(
    swap: &Swap,
    token: Address,
    before: &mut Viewer<'_, '_, P>,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<(U256, U256)>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    let was = balancer::internal_balance(before, swap.router, swap.to, token)?;
    let is = balancer::internal_balance(after, swap.router, swap.to, token)?;
    Ok(was.zip(is))
}

/// The swap facts, or `None` when a hop's pool or reserves cannot be found (a forked read the
/// node could not answer is an error, not a `None`).
pub(crate) fn swap_facts<P, Q>(
    env: &Env,
    swap: &Swap,
    account: Address,
    logs: &[Log],
    pre: &P,
    post: &Q,
) -> Result<Option<SwapFacts>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    let mut before = Viewer::new(env, pre);
    let mut after = Viewer::new(env, post);

    let token_in = if swap.eth_in { ETH } else { swap.token_in() };
    let token_out = if swap.eth_out { ETH } else { swap.token_out() };
    // A Vault swap paying into an internal balance moves that instead of the token.
    let to_internal = if swap.to_internal {
        Some(internal_output(swap, token_out, &mut before, &mut after)?)
    } else {
        None
    };
    // The input leaves the account; the output reaches the swap's `to` (the account, or a
    // payee the swap pays).
    let mut balance = |token: Address, holder: Address, pre_state: bool| -> Result<U256> {
        Ok(match (token == ETH, pre_state) {
            (true, true) => eth_balance(pre, holder)?,
            (true, false) => eth_balance(post, holder)?,
            (false, true) => balance_of(&mut before, token, holder)?.unwrap_or_default(),
            (false, false) => balance_of(&mut after, token, holder)?.unwrap_or_default(),
        })
    };
    let amount_in =
        balance(token_in, account, true)?.saturating_sub(balance(token_in, account, false)?);
    let amount_out = match to_internal {
        Some(Some((was, is))) => is.saturating_sub(was),
        Some(None) => return Ok(None),
        None => {
            balance(token_out, swap.to, false)?.saturating_sub(balance(token_out, swap.to, true)?)
        }
    };

    let seen = Emitted {
        v2: swap_emitters(logs, is_swap),
        v3: swap_emitters(logs, is_v3_swap),
        logs,
    };
    let (pool, quoted_out, price_impact_bps) = if swap.routes.is_empty() {
        let Some(hops) = hops(swap, None, &seen, &mut before, &mut after)? else {
            return Ok(None);
        };
        (
            hops[0].pool,
            quoted_out(amount_in, &hops),
            price_impact_bps(&hops),
        )
    } else {
        // A split trade: each route quoted for its own share, the impact the worst route's.
        let (mut pool, mut quoted, mut impact) = (None, U256::ZERO, 0);
        for route in &swap.routes {
            let Some(hops) = hops(swap, Some(route), &seen, &mut before, &mut after)? else {
                return Ok(None);
            };
            pool.get_or_insert(hops[0].pool);
            quoted = quoted.saturating_add(quoted_out(route.amount_in, &hops));
            impact = impact.max(price_impact_bps(&hops));
        }
        let Some(pool) = pool else {
            return Ok(None);
        };
        (pool, quoted, impact)
    };

    let (min_out, slippage_bps) = match swap.kind {
        SwapKind::ExactIn { min_out, .. } => (min_out, min_out_tolerance_bps(amount_out, min_out)),
        SwapKind::ExactOut {
            amount_out: exact,
            max_in,
        } => (exact, max_in_tolerance_bps(amount_in, max_in)),
    };
    Ok(Some(SwapFacts {
        pool,
        token_in,
        token_out,
        amount_in,
        amount_out,
        quoted_out,
        min_out,
        price_impact_bps,
        slippage_bps,
    }))
}

/// What the call's logs show: the emitters of V2 and of V3 `Swap` logs, in order, and the logs.
struct Emitted<'l> {
    v2: Vec<Address>,
    v3: Vec<Address>,
    logs: &'l [Log],
}

/// The hops of `swap` along its path, each pool found as the module docs say, or along one
/// `route` of a split trade, each hop in the kind of pool its leg names (a V2 pair, a V3 pool
/// of the leg's fee tier, that emitted a `Swap`: two routes through the same pair on V2 and V3
/// are priced each at its own pool); `None` when a hop's pool or its price cannot be found.
fn hops<P, Q>(
    swap: &Swap,
    route: Option<&Route>,
    seen: &Emitted<'_>,
    before: &mut Viewer<'_, '_, P>,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<Vec<Hop>>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    let path = route.map_or(&swap.path, |r| &r.path);
    if route.is_some_and(|r| r.pools.len() + 1 != path.len()) {
        return Ok(None);
    }
    let mut hops = Vec::with_capacity(2 * (path.len() - 1));
    for (i, pair) in path.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        let found = if let Some(route) = route {
            match route.pools[i] {
                RoutePool::V2 => hop(None, a, b, &seen.v2, before, after)?.map(|h| vec![h]),
                RoutePool::V3 { fee } => {
                    v3_hop(a, b, Some(fee), &seen.v3, before, after)?.map(Vec::from)
                }
            }
        } else if !swap.v4_pools.is_empty() {
            // A V4 route's pools are the ones its calldata names, and no other.
            let Some(id) = swap.v4_pools.get(i) else {
                return Ok(None);
            };
            v4::hop(swap.router, (a, b, *id), seen.logs, before, after)?.map(Vec::from)
        } else if let Some(hop) = hop(Some(swap.router), a, b, &seen.v2, before, after)? {
            Some(vec![hop])
        } else if let Some(halves) = v3_hop(a, b, None, &seen.v3, before, after)? {
            Some(Vec::from(halves))
        } else {
            balancer::hop(swap.router, a, b, seen.logs, before, after)?.map(|h| vec![h])
        };
        let Some(found) = found else {
            return Ok(None);
        };
        hops.extend(found);
    }
    Ok(Some(hops))
}

/// Distinct emitters of the `Swap` logs `is` recognises, in order.
fn swap_emitters(logs: &[Log], is: fn(&Log) -> bool) -> Vec<Address> {
    let mut emitters = Vec::new();
    for log in logs.iter().filter(|l| is(l)) {
        if !emitters.contains(&log.address) {
            emitters.push(log.address);
        }
    }
    emitters
}

/// A V2 hop from `a` to `b`: the first pair among `emitters` (of a V2 `Swap` log) whose tokens
/// are the hop's, else, given a `router`, `router.factory().getPair(a, b)`, else
/// `router.getPair(a, b)`.
fn hop<P, Q>(
    router: Option<Address>,
    a: Address,
    b: Address,
    emitters: &[Address],
    before: &mut Viewer<'_, '_, P>,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<Hop>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    let mut found = emitted_pair(a, b, emitters, after)?;
    if let (None, Some(router)) = (found, router) {
        let get_pair = IUniswapV2Factory::getPairCall {
            tokenA: a,
            tokenB: b,
        }
        .abi_encode();
        let factory = before
            .word(router, IUniswapV2Router02::factoryCall {}.abi_encode())?
            .map(|w| Address::from_word(w.into()));
        for source in factory.into_iter().chain([router]) {
            let Some(pool) = before
                .word(source, get_pair.clone())?
                .map(|w| Address::from_word(w.into()))
            else {
                continue;
            };
            if pool.is_zero() {
                continue;
            }
            if let Some(t0) = pair_token0(pool, a, b, after)? {
                found = Some((pool, t0));
                break;
            }
        }
    }
    let Some(found) = found else {
        return Ok(None);
    };
    pair_hop(found, a, before, after)
}

/// The first of `emitters` whose `token0`/`token1` are `a` and `b`, with its `token0`.
fn emitted_pair<Q: DatabaseRef<Error = ForkError>>(
    a: Address,
    b: Address,
    emitters: &[Address],
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<(Address, Address)>> {
    for &pool in emitters {
        if let Some(t0) = pair_token0(pool, a, b, after)? {
            return Ok(Some((pool, t0)));
        }
    }
    Ok(None)
}

/// `pool`'s `token0` when its two tokens are `a` and `b`.
fn pair_token0<Q: DatabaseRef<Error = ForkError>>(
    pool: Address,
    a: Address,
    b: Address,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<Address>> {
    let word = |w: Option<U256>| w.map(|w| Address::from_word(w.into()));
    let Some(t0) = word(after.word(pool, IUniswapV2Pair::token0Call {}.abi_encode())?) else {
        return Ok(None);
    };
    let Some(t1) = word(after.word(pool, IUniswapV2Pair::token1Call {}.abi_encode())?) else {
        return Ok(None);
    };
    let matches = (t0 == a && t1 == b) || (t0 == b && t1 == a);
    Ok(matches.then_some(t0))
}

/// The hop selling `a` in the pair `(pool, token0)`: its reserves before and after, `None` when
/// they cannot be read or one was empty before.
fn pair_hop<P, Q>(
    (pool, token0): (Address, Address),
    a: Address,
    before: &mut Viewer<'_, '_, P>,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<Hop>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    let orient = |(r0, r1): (U256, U256)| if a == token0 { (r0, r1) } else { (r1, r0) };
    let Some(before_reserves) = reserves(before, pool)?.map(orient) else {
        return Ok(None);
    };
    let Some(after_reserves) = reserves(after, pool)?.map(orient) else {
        return Ok(None);
    };
    if before_reserves.0.is_zero() || before_reserves.1.is_zero() {
        return Ok(None);
    }
    Ok(Some(Hop {
        pool,
        before: before_reserves,
        after: after_reserves,
    }))
}

/// A V3 hop from `a` to `b`: the first emitter of a V3 `Swap` log whose `token0`/`token1` are
/// the hop's tokens (and whose `fee()` is `fee`, when given), as two equal halves whose `(reserveIn, reserveOut)` are `(2^96, √P)`
/// (selling token0; `(√P, 2^96)` selling token1), `√P` being `slot0`'s `sqrtPriceX96` before
/// and after. The mid price `P = (√P / 2^96)²` is then the product of the halves' ratios, so
/// the quote and the impact over hops apply unchanged (and `√P²` never needs 320 bits).
fn v3_hop<P, Q>(
    a: Address,
    b: Address,
    fee: Option<u32>,
    emitters: &[Address],
    before: &mut Viewer<'_, '_, P>,
    after: &mut Viewer<'_, '_, Q>,
) -> Result<Option<[Hop; 2]>>
where
    P: DatabaseRef<Error = ForkError>,
    Q: DatabaseRef<Error = ForkError>,
{
    for &pool in emitters {
        let word = |w: Option<U256>| w.map(|w| Address::from_word(w.into()));
        let t0 = word(after.word(pool, IUniswapV3PoolView::token0Call {}.abi_encode())?);
        let t1 = word(after.word(pool, IUniswapV3PoolView::token1Call {}.abi_encode())?);
        let (Some(t0), Some(t1)) = (t0, t1) else {
            continue;
        };
        if !((t0 == a && t1 == b) || (t0 == b && t1 == a)) {
            continue;
        }
        if let Some(fee) = fee {
            let tier = after.word(pool, IUniswapV3PoolView::feeCall {}.abi_encode())?;
            if tier != Some(U256::from(fee)) {
                continue;
            }
        }
        let slot0 = IUniswapV3PoolView::slot0Call {}.abi_encode();
        let (Some(p0), Some(p1)) = (before.word(pool, slot0.clone())?, after.word(pool, slot0)?)
        else {
            return Ok(None);
        };
        if p0.is_zero() {
            return Ok(None);
        }
        return Ok(Some(sqrt_price_halves(pool, a == t0, (p0, p1))));
    }
    Ok(None)
}

/// The two equal halves of `pool`'s hop priced by `√P` (`sqrtPriceX96`, Q64.96) `p0` before
/// and `p1` after: `(reserveIn, reserveOut)` is `(2^96, √P)` selling token0, `(√P, 2^96)`
/// selling token1, so the product of the halves' ratios is the mid price.
fn sqrt_price_halves(pool: Address, sells_token0: bool, (p0, p1): (U256, U256)) -> [Hop; 2] {
    let q96 = U256::from(1u8) << 96;
    let orient = |p: U256| if sells_token0 { (q96, p) } else { (p, q96) };
    let half = Hop {
        pool,
        before: orient(p0),
        after: orient(p1),
    };
    [half, half]
}

/// `getReserves()`: the first two words.
fn reserves<D: DatabaseRef<Error = ForkError>>(
    viewer: &mut Viewer<'_, '_, D>,
    pool: Address,
) -> Result<Option<(U256, U256)>> {
    let out = viewer.call(pool, IUniswapV2Pair::getReservesCall {}.abi_encode())?;
    Ok(out.filter(|out| out.len() >= 64).map(|out| {
        (
            U256::from_be_slice(&out[..32]),
            U256::from_be_slice(&out[32..64]),
        )
    }))
}

/// `amount_in` through every hop at the pre-trade mid price, rounded down per hop.
fn quoted_out(amount_in: U256, hops: &[Hop]) -> U256 {
    let mut quote = U512::from(amount_in);
    for hop in hops {
        quote = quote * U512::from(hop.before.1) / U512::from(hop.before.0);
    }
    U256::saturating_from(quote)
}

/// `ceil((1 - Π(rOut'/rIn') / Π(rOut/rIn)) * 10_000)`, 0 if the route's mid price did not fall.
fn price_impact_bps(hops: &[Hop]) -> Bps {
    let cap = RAY << 64;
    let mut ratio = RAY;
    for hop in hops {
        let ((r_in, r_out), (r_in2, r_out2)) = (hop.before, hop.after);
        if r_in2.is_zero() || r_out2.is_zero() {
            return BPS_SCALE;
        }
        // (rOut'/rIn') / (rOut/rIn), rounded down: the impact rounds up.
        let num = U512::from(r_out2) * U512::from(r_in) * RAY;
        let den = U512::from(r_in2) * U512::from(r_out);
        ratio = (ratio * (num / den) / RAY).min(cap);
    }
    if ratio >= RAY {
        return 0;
    }
    let bps = ((RAY - ratio) * U512::from(BPS_SCALE)).div_ceil(RAY);
    u32::try_from(U256::saturating_from(bps)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(before: (u64, u64), after: (u64, u64)) -> Hop {
        let u = |(a, b): (u64, u64)| (U256::from(a), U256::from(b));
        Hop {
            pool: Address::ZERO,
            before: u(before),
            after: u(after),
        }
    }

    #[test]
    fn ray_is_1e27() {
        assert_eq!(RAY, U512::from(10u8).pow(U512::from(27u8)));
    }

    #[test]
    fn impact_and_quote() {
        // 1000/1000 -> 1100/910: price 1.0 -> 0.8272..., impact 17.27..% -> 1728 bps.
        let h = [hop((1000, 1000), (1100, 910))];
        assert_eq!(price_impact_bps(&h), 1728);
        assert_eq!(quoted_out(U256::from(100u8), &h), U256::from(100u8));
        // Exact 50 bps stays 50.
        assert_eq!(
            price_impact_bps(&[hop((10_000, 10_000), (10_000, 9_950))]),
            50
        );
        // Price moved up: no impact.
        assert_eq!(price_impact_bps(&[hop((1000, 1000), (900, 1100))]), 0);
        // Two hops multiply.
        let two = [
            hop((1000, 2000), (1000, 1990)),
            hop((500, 1500), (500, 1485)),
        ];
        assert_eq!(quoted_out(U256::from(10u8), &two), U256::from(60u8));
        // 1 - 0.995 * 0.99 = 1.495% -> 150 bps (149.5 rounded up).
        assert_eq!(price_impact_bps(&two), 150);
    }
}
