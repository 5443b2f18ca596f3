//! The Uniswap SwapRouter02 half of [`decode_call_from`](super::decode_call_from): its four V3
//! swaps and two V2 swaps, alone or in a `multicall` with the payment of their output, as one
//! [`Swap`] each.
//!
//! SwapRouter02 differs from the V3 SwapRouter in three ways the decoding follows:
//! - its swaps carry no deadline (a `multicall(deadline, ...)` does; alone, the deadline is
//!   unbounded);
//! - a swap's recipient `address(1)` is the caller and `address(2)` the router
//!   (`Constants.MSG_SENDER`, `ADDRESS_THIS`), so the caller must be known;
//! - an exact input of `0` (`CONTRACT_BALANCE`) sells what the router holds: read as nothing
//!   here (`Unknown`), since the account does not pay it.
//!
//! The payments after a swap: `sweepToken(token, min)` and `unwrapWETH9(min)` pay the caller,
//! their three- and two-argument forms pay the recipient named (not mapped: `address(1)` there
//! is address one); then at most one `refundETH`. A batch is read as for the V3 SwapRouter (see
//! `v3_router`): one swap, then at most one payment of its own output, the larger minimum
//! binding. Fee-taking payments (`sweepTokenWithFee`, `unwrapWETH9WithFee`), `approveAndCall`
//! liquidity, `wrapETH` and `pull` are not read: `Unknown`.

use super::universal_router::recipient;
use super::v3_router::{Payment, swap_then_payment};
use super::{DecodeError, DecodedCall, Swap, SwapKind, name, strict};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;

use crate::bindings::ISwapRouter02 as Router;

/// `Constants.CONTRACT_BALANCE`: an exact input of everything the router holds.
const CONTRACT_BALANCE: U256 = U256::ZERO;

/// Decodes a call `caller` makes to a SwapRouter02 `router`; `Unknown` for any other selector
/// or batch.
pub(super) fn decode(
    caller: Address,
    router: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
) -> Result<DecodedCall, DecodeError> {
    match multicall(selector, data) {
        Some(batched) => {
            let (deadline, calls) = batched?;
            batch(caller, router, value, deadline, &calls)
        }
        None => single(caller, router, value, selector, data, U256::MAX),
    }
}

/// The deadline (`U256::MAX` for none) and the calls of a `multicall` in any of its three
/// forms, decoded strictly; `None` for another selector.
pub(super) fn multicall(
    selector: [u8; 4],
    data: &[u8],
) -> Option<Result<(U256, Vec<Bytes>), DecodeError>> {
    Some(match selector {
        Router::multicall_0Call::SELECTOR => {
            strict::<Router::multicall_0Call>(data).map(|c| (c.deadline, c.data))
        }
        Router::multicall_1Call::SELECTOR => {
            strict::<Router::multicall_1Call>(data).map(|c| (U256::MAX, c.data))
        }
        Router::multicall_2Call::SELECTOR => {
            strict::<Router::multicall_2Call>(data).map(|c| (U256::MAX, c.data))
        }
        _ => return None,
    })
}

/// One swap, its deadline the batch's (none alone).
fn single(
    caller: Address,
    router: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
    deadline: U256,
) -> Result<DecodedCall, DecodeError> {
    let map = |a: Address| recipient(a, caller, router);
    let made = |kind, path, to: Address| Swap {
        router,
        kind,
        path,
        to: map(to),
        deadline,
        eth_in: !value.is_zero(),
        eth_out: false,
        fee_on_transfer: false,
        v4_pools: Vec::new(),
        to_internal: false,
        routes: Vec::new(),
    };
    let exact_in = |amount_in, min_out| SwapKind::ExactIn { amount_in, min_out };
    let exact_out = |amount_out, max_in| SwapKind::ExactOut { amount_out, max_in };
    let (kind, path, to, function) = match selector {
        Router::exactInputSingleCall::SELECTOR => {
            let p = strict::<Router::exactInputSingleCall>(data)?.params;
            let path = vec![p.tokenIn, p.tokenOut];
            let kind = exact_in(p.amountIn, p.amountOutMinimum);
            (
                kind,
                path,
                p.recipient,
                name::<Router::exactInputSingleCall>(),
            )
        }
        Router::exactInputCall::SELECTOR => {
            let p = strict::<Router::exactInputCall>(data)?.params;
            let function = name::<Router::exactInputCall>();
            let path = super::v3_router::tokens_of(&p.path, function)?;
            (
                exact_in(p.amountIn, p.amountOutMinimum),
                path,
                p.recipient,
                function,
            )
        }
        Router::exactOutputSingleCall::SELECTOR => {
            let p = strict::<Router::exactOutputSingleCall>(data)?.params;
            let path = vec![p.tokenIn, p.tokenOut];
            let kind = exact_out(p.amountOut, p.amountInMaximum);
            (
                kind,
                path,
                p.recipient,
                name::<Router::exactOutputSingleCall>(),
            )
        }
        Router::exactOutputCall::SELECTOR => {
            let p = strict::<Router::exactOutputCall>(data)?.params;
            let function = name::<Router::exactOutputCall>();
            // Output first: the route runs the other way.
            let mut path = super::v3_router::tokens_of(&p.path, function)?;
            path.reverse();
            (
                exact_out(p.amountOut, p.amountInMaximum),
                path,
                p.recipient,
                function,
            )
        }
        Router::swapExactTokensForTokensCall::SELECTOR => {
            let c = strict::<Router::swapExactTokensForTokensCall>(data)?;
            let function = name::<Router::swapExactTokensForTokensCall>();
            (exact_in(c.amountIn, c.amountOutMin), c.path, c.to, function)
        }
        Router::swapTokensForExactTokensCall::SELECTOR => {
            let c = strict::<Router::swapTokensForExactTokensCall>(data)?;
            let function = name::<Router::swapTokensForExactTokensCall>();
            (
                exact_out(c.amountOut, c.amountInMax),
                c.path,
                c.to,
                function,
            )
        }
        _ => return Ok(DecodedCall::Unknown),
    };
    if path.len() < 2 {
        return Err(DecodeError::ShortPath { function });
    }
    if matches!(kind, SwapKind::ExactIn { amount_in, .. } if amount_in == CONTRACT_BALANCE) {
        // The router sells what it holds: nothing the caller pays.
        return Ok(DecodedCall::Unknown);
    }
    Ok(DecodedCall::Swap(made(kind, path, to)))
}

/// A batch of one swap and the payment of its output (see `v3_router::swap_then_payment`):
/// the two-argument `sweepToken` and the one-argument `unwrapWETH9` pay the caller.
fn batch(
    caller: Address,
    router: Address,
    value: U256,
    deadline: U256,
    calls: &[Bytes],
) -> Result<DecodedCall, DecodeError> {
    let paid = |token, minimum, recipient| {
        Ok(Some(Payment {
            token,
            minimum,
            recipient,
        }))
    };
    swap_then_payment(
        router,
        calls,
        |selector, data| single(caller, router, value, selector, data, deadline),
        |selector, data| match selector {
            Router::sweepToken_0Call::SELECTOR => {
                let c = strict::<Router::sweepToken_0Call>(data)?;
                paid(Some(c.token), c.amountMinimum, caller)
            }
            Router::sweepToken_1Call::SELECTOR => {
                let c = strict::<Router::sweepToken_1Call>(data)?;
                paid(Some(c.token), c.amountMinimum, c.recipient)
            }
            Router::unwrapWETH9_0Call::SELECTOR => {
                let c = strict::<Router::unwrapWETH9_0Call>(data)?;
                paid(None, c.amountMinimum, caller)
            }
            Router::unwrapWETH9_1Call::SELECTOR => {
                let c = strict::<Router::unwrapWETH9_1Call>(data)?;
                paid(None, c.amountMinimum, c.recipient)
            }
            _ => Ok(None),
        },
    )
}

#[cfg(test)]
mod tests;
