//! The Balancer V2 Vault half of [`decode_call_from`](super::decode_call_from): `swap`, and a
//! `batchSwap` whose steps are one route, as one [`Swap`] each.
//!
//! What is read, from the Vault's own rules (`IVault`):
//! - `swap(singleSwap, funds, limit, deadline)`: `GIVEN_IN` sells exactly `amount` and `limit`
//!   is the least received; `GIVEN_OUT` buys exactly `amount` and `limit` is the most paid.
//! - `batchSwap(kind, swaps, assets, funds, limits, deadline)`: read when its steps chain into
//!   one route through distinct assets. For `GIVEN_IN` the first step sells `amount` and each
//!   later step sells all of the step before's output (`amount` zero, its input the step
//!   before's output); for `GIVEN_OUT` the first step buys the route's last asset and each
//!   later step buys the input of the step before. `limits` are the Vault's net deltas seen
//!   from the sender: the route's minimum output is `-limits[out]` (zero when that limit is
//!   not negative), its maximum input `limits[in]`.
//! - Ether is the asset `address(0)`, kept as such in the path (the Vault's sentinel, equal to
//!   [`crate`]'s callers' ether address): `eth_in` / `eth_out`.
//!
//! - An output paid into the recipient's internal balance in the Vault (`toInternalBalance`):
//!   [`Swap::to_internal`]; the output is measured there, not in the token.
//!
//! Shapes the decoder does not read are named by [`unread_swap`] and decode as `Unknown`:
//! funds from the Vault's internal balances (the input leaves a ledger the loss would read as
//! a falling position), ether to them (the Vault keeps none), a `sender` other than the
//! caller (the caller would spend another's funds as its relayer), ether sent to a swap that
//! takes none, and a batch that is not one route. The recipient is `funds.recipient`, whoever
//! the caller is.

use super::{DecodeError, DecodedCall, Swap, SwapKind, name, strict, swap};
use crate::balancer::IBalancerVault as Vault;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;

/// `IVault.SwapKind.GIVEN_IN`.
const GIVEN_IN: u8 = 0;
/// `IVault.SwapKind.GIVEN_OUT`.
const GIVEN_OUT: u8 = 1;

/// A Vault swap call as the decoder reads it.
enum Read {
    /// One route.
    Swap(Box<Swap>),
    /// A shape the decoder does not read, and why.
    Unread(&'static str),
}

/// Decodes a call `caller` makes to a Balancer V2 Vault `vault`; `Unknown` for any other
/// selector and for the shapes [`unread_swap`] names.
pub(super) fn decode(
    caller: Address,
    vault: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
) -> Result<DecodedCall, DecodeError> {
    match read(caller, vault, value, selector, data) {
        Some(Ok(Read::Swap(s))) => match selector {
            Vault::swapCall::SELECTOR => swap::<Vault::swapCall>(*s),
            _ => swap::<Vault::batchSwapCall>(*s),
        },
        Some(Ok(Read::Unread(_))) | None => Ok(DecodedCall::Unknown),
        Some(Err(e)) => Err(e),
    }
}

/// Why a Balancer V2 Vault `swap` or `batchSwap` that `caller` sends with `value` wei is not
/// read as a [`Swap`] (see the module docs), or `None` when it is read, does not decode, or is
/// another function.
pub(super) fn unread_swap(caller: Address, value: U256, data: &[u8]) -> Option<&'static str> {
    let selector = data.get(..4)?;
    let selector = [selector[0], selector[1], selector[2], selector[3]];
    match read(caller, Address::ZERO, value, selector, data)? {
        Ok(Read::Unread(why)) => Some(why),
        _ => None,
    }
}

fn read(
    caller: Address,
    vault: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
) -> Option<Result<Read, DecodeError>> {
    Some(match selector {
        Vault::swapCall::SELECTOR => strict::<Vault::swapCall>(data).and_then(|c| {
            let s = c.singleSwap;
            let kind = kind::<Vault::swapCall>(s.kind, s.amount, c.limit)?;
            Ok(route(
                caller,
                vault,
                value,
                &c.funds,
                kind,
                vec![s.assetIn, s.assetOut],
                c.deadline,
            ))
        }),
        Vault::batchSwapCall::SELECTOR => strict::<Vault::batchSwapCall>(data).and_then(|c| {
            let Some((path, index_in, index_out)) = chain(c.kind, &c.swaps, &c.assets) else {
                return Ok(Read::Unread("a batch whose steps are not one route"));
            };
            let (Some(&limit_in), Some(&limit_out)) =
                (c.limits.get(index_in), c.limits.get(index_out))
            else {
                return Ok(Read::Unread("a batch with fewer limits than assets"));
            };
            // A negative limit is what the sender must at least receive; a positive one what
            // the Vault may take.
            let least_out = if limit_out.is_negative() {
                limit_out.unsigned_abs()
            } else {
                U256::ZERO
            };
            let most_in = if limit_in.is_positive() {
                limit_in.unsigned_abs()
            } else {
                U256::ZERO
            };
            let limit = if c.kind == GIVEN_IN {
                least_out
            } else {
                most_in
            };
            let kind = kind::<Vault::batchSwapCall>(c.kind, c.swaps[0].amount, limit)?;
            Ok(route(
                caller, vault, value, &c.funds, kind, path, c.deadline,
            ))
        }),
        _ => return None,
    })
}

/// The swap's kind from the Vault's `kind`, the exact `amount` and the other side's `limit`.
fn kind<C: SolCall>(kind: u8, amount: U256, limit: U256) -> Result<SwapKind, DecodeError> {
    match kind {
        GIVEN_IN => Ok(SwapKind::ExactIn {
            amount_in: amount,
            min_out: limit,
        }),
        GIVEN_OUT => Ok(SwapKind::ExactOut {
            amount_out: amount,
            max_in: limit,
        }),
        // The Vault's ABI decoder reverts on an enum value out of range.
        _ => Err(DecodeError::BadArguments {
            function: name::<C>(),
        }),
    }
}

/// The route through `path` paid from and to `funds`, or why it is not read.
fn route(
    caller: Address,
    vault: Address,
    value: U256,
    funds: &Vault::FundManagement,
    kind: SwapKind,
    path: Vec<Address>,
    deadline: U256,
) -> Read {
    if funds.sender != caller {
        return Read::Unread("a sender other than the caller");
    }
    let eth_in = path[0] == Address::ZERO;
    let eth_out = path[path.len() - 1] == Address::ZERO;
    if !eth_in && !value.is_zero() {
        return Read::Unread("ether sent to a swap that takes none");
    }
    if funds.fromInternalBalance {
        return Read::Unread("funds from the Vault's internal balances");
    }
    // The Vault keeps no internal ether.
    if funds.toInternalBalance && eth_out {
        return Read::Unread("ether to the Vault's internal balances");
    }
    Read::Swap(Box::new(Swap {
        router: vault,
        kind,
        path,
        to: funds.recipient,
        deadline,
        eth_in,
        eth_out,
        fee_on_transfer: false,
        v4_pools: Vec::new(),
        to_internal: funds.toInternalBalance,
        routes: Vec::new(),
    }))
}

/// The route a batch's `steps` chain through `assets` (see the module docs), in trade order,
/// with the indices of its first and last asset; `None` when the steps are not one route
/// through distinct assets.
fn chain(
    kind: u8,
    steps: &[Vault::BatchSwapStep],
    assets: &[Address],
) -> Option<(Vec<Address>, usize, usize)> {
    let index = |i: U256| usize::try_from(i).ok().filter(|&i| i < assets.len());
    let first = steps.first()?;
    // Each step's link to the one before: GIVEN_IN follows outputs forwards, GIVEN_OUT
    // inputs backwards.
    let (start, mut next) = if kind == GIVEN_OUT {
        (index(first.assetOutIndex)?, index(first.assetInIndex)?)
    } else {
        (index(first.assetInIndex)?, index(first.assetOutIndex)?)
    };
    let mut indices = vec![start, next];
    for step in &steps[1..] {
        let (from, to) = if kind == GIVEN_OUT {
            (index(step.assetOutIndex)?, index(step.assetInIndex)?)
        } else {
            (index(step.assetInIndex)?, index(step.assetOutIndex)?)
        };
        if from != next || !step.amount.is_zero() {
            return None;
        }
        next = to;
        indices.push(next);
    }
    let mut path: Vec<Address> = indices.iter().map(|&i| assets[i]).collect();
    let mut distinct = path.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != path.len() || first.amount.is_zero() {
        return None;
    }
    let (mut index_in, mut index_out) = (indices[0], indices[indices.len() - 1]);
    if kind == GIVEN_OUT {
        path.reverse();
        core::mem::swap(&mut index_in, &mut index_out);
    }
    Some((path, index_in, index_out))
}

#[cfg(test)]
#[path = "balancer/tests.rs"]
mod tests;
