//! The Uniswap V3 SwapRouter half of [`decode_call`](super::decode_call): its four swaps, as
//! [`Swap`]s whose `path` lists the route's tokens from input to output, and a `multicall` of
//! one swap and the payment of its output (see [`multicall`]).
//!
//! The router pays the input from the caller (`transferFrom`) unless the call carries ether
//! and the input is its WETH9, which it then wraps: a swap with value is `eth_in`. It pays
//! ether out only through `unwrapWETH9` in a `multicall`.

use super::{DecodeError, DecodedCall, Swap, SwapKind, strict, swap};
use crate::bindings::IV3SwapRouter as Router;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;

/// A packed path's token and its fee: `token (20) ‖ fee (3) ‖ token (20) ...`.
const ADDR: usize = 20;
const HOP: usize = ADDR + 3;

/// Decodes a call to a V3 SwapRouter `router`; `Unknown` for any other selector.
pub(super) fn decode(
    router: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
) -> Result<DecodedCall, DecodeError> {
    let exact_in = |amount_in, min_out| SwapKind::ExactIn { amount_in, min_out };
    let exact_out = |amount_out, max_in| SwapKind::ExactOut { amount_out, max_in };
    let v3 = |kind, path, to, deadline| Swap {
        router,
        kind,
        path,
        to,
        deadline,
        eth_in: !value.is_zero(),
        eth_out: false,
        fee_on_transfer: false,
        v4_pools: Vec::new(),
        to_internal: false,
        routes: Vec::new(),
    };
    let decoded = match selector {
        Router::exactInputSingleCall::SELECTOR => {
            let p = strict::<Router::exactInputSingleCall>(data)?.params;
            swap::<Router::exactInputSingleCall>(v3(
                exact_in(p.amountIn, p.amountOutMinimum),
                vec![p.tokenIn, p.tokenOut],
                p.recipient,
                p.deadline,
            ))?
        }
        Router::exactOutputSingleCall::SELECTOR => {
            let p = strict::<Router::exactOutputSingleCall>(data)?.params;
            swap::<Router::exactOutputSingleCall>(v3(
                exact_out(p.amountOut, p.amountInMaximum),
                vec![p.tokenIn, p.tokenOut],
                p.recipient,
                p.deadline,
            ))?
        }
        Router::exactInputCall::SELECTOR => {
            let p = strict::<Router::exactInputCall>(data)?.params;
            let path = tokens::<Router::exactInputCall>(&p.path)?;
            swap::<Router::exactInputCall>(v3(
                exact_in(p.amountIn, p.amountOutMinimum),
                path,
                p.recipient,
                p.deadline,
            ))?
        }
        Router::exactOutputCall::SELECTOR => {
            let p = strict::<Router::exactOutputCall>(data)?.params;
            // Output first: the route runs the other way.
            let mut path = tokens::<Router::exactOutputCall>(&p.path)?;
            path.reverse();
            swap::<Router::exactOutputCall>(v3(
                exact_out(p.amountOut, p.amountInMaximum),
                path,
                p.recipient,
                p.deadline,
            ))?
        }
        Router::multicallCall::SELECTOR => {
            let calls = strict::<Router::multicallCall>(data)?.data;
            multicall(router, value, &calls)?
        }
        _ => DecodedCall::Unknown,
    };
    Ok(decoded)
}

/// A `multicall` of one swap, then at most one payment of its output (`sweepToken` of the
/// output token, or `unwrapWETH9`) and at most one `refundETH`: see [`swap_then_payment`].
fn multicall(
    router: Address,
    value: U256,
    calls: &[alloy_primitives::Bytes],
) -> Result<DecodedCall, DecodeError> {
    swap_then_payment(
        router,
        calls,
        |selector, data| decode(router, value, selector, data),
        |selector, data| {
            Ok(match selector {
                Router::sweepTokenCall::SELECTOR => {
                    let c = strict::<Router::sweepTokenCall>(data)?;
                    Some(Payment {
                        token: Some(c.token),
                        minimum: c.amountMinimum,
                        recipient: c.recipient,
                    })
                }
                Router::unwrapWETH9Call::SELECTOR => {
                    let c = strict::<Router::unwrapWETH9Call>(data)?;
                    Some(Payment {
                        token: None,
                        minimum: c.amountMinimum,
                        recipient: c.recipient,
                    })
                }
                _ => None,
            })
        },
    )
}

/// What a router's payment call pays out of what it holds.
pub(super) struct Payment {
    /// The token swept; `None` for WETH unwrapped and paid as ether.
    pub(super) token: Option<Address>,
    /// The least it pays, or the call reverts.
    pub(super) minimum: U256,
    /// Who is paid.
    pub(super) recipient: Address,
}

/// A router batch of one swap (`swap` decodes it from its selector and call data), then at
/// most one payment of its output (`payment` reads it; `None` for any other call) and at most
/// one `refundETH`: the swap, paid to the payment's recipient (as ether after an unwrap), its
/// minimum the larger of the two. A swap paying the router with no payment after it leaves the
/// output to whoever sweeps next, and a payment of anything but the swap's own output pays out
/// what the router held before: their recipient is the router. Any other batch is `Unknown`.
/// `refundETH()` has one selector in every Uniswap router.
pub(super) fn swap_then_payment(
    router: Address,
    calls: &[alloy_primitives::Bytes],
    swap: impl Fn([u8; 4], &[u8]) -> Result<DecodedCall, DecodeError>,
    payment: impl Fn([u8; 4], &[u8]) -> Result<Option<Payment>, DecodeError>,
) -> Result<DecodedCall, DecodeError> {
    let selector = |c: &[u8]| c.get(..4).map(|s| [s[0], s[1], s[2], s[3]]);
    let Some((first, rest)) = calls.split_first() else {
        return Ok(DecodedCall::Unknown);
    };
    let Some(sel) = selector(first) else {
        return Err(DecodeError::NoSelector);
    };
    let DecodedCall::Swap(mut decoded) = swap(sel, first)? else {
        return Ok(DecodedCall::Unknown);
    };
    let refund = |c: &alloy_primitives::Bytes| selector(c) == Some(Router::refundETHCall::SELECTOR);
    let paying = match rest {
        [] => None,
        [only] if refund(only) => None,
        [paying] => Some(paying),
        [paying, last] if refund(last) => Some(paying),
        _ => return Ok(DecodedCall::Unknown),
    };
    let Some(paying) = paying else {
        return Ok(DecodedCall::Swap(decoded));
    };
    let Some(sel) = selector(paying) else {
        return Ok(DecodedCall::Unknown);
    };
    let Some(paid) = payment(sel, paying)? else {
        return Ok(DecodedCall::Unknown);
    };
    if paid.token.is_some_and(|t| t != decoded.token_out()) || decoded.to != router {
        // Another token, or a swap paid out already: the payment pays what the router held.
        return Ok(DecodedCall::Unknown);
    }
    decoded.to = paid.recipient;
    decoded.eth_out = paid.token.is_none();
    if let SwapKind::ExactIn { min_out, .. } = &mut decoded.kind {
        *min_out = (*min_out).max(paid.minimum);
    }
    Ok(DecodedCall::Swap(decoded))
}

/// The tokens of a packed V3 path, in its order. A path is at least one hop long and nothing
/// but whole hops: any other length is a malformed argument (the router would read past it or
/// ignore a tail the caller meant).
fn tokens<C: SolCall>(path: &[u8]) -> Result<Vec<Address>, DecodeError> {
    tokens_of(path, super::name::<C>())
}

/// [`tokens`] for `function`'s path.
pub(super) fn tokens_of(path: &[u8], function: &'static str) -> Result<Vec<Address>, DecodeError> {
    if path.len() < ADDR + HOP {
        return Err(DecodeError::ShortPath { function });
    }
    if !(path.len() - ADDR).is_multiple_of(HOP) {
        return Err(DecodeError::BadArguments { function });
    }
    Ok((0..=(path.len() - ADDR) / HOP)
        .map(|i| Address::from_slice(&path[i * HOP..i * HOP + ADDR]))
        .collect())
}

/// The fee tiers of a packed V3 `path` whose shape [`tokens_of`] accepted, one per hop.
pub(super) fn fees_of(path: &[u8]) -> impl Iterator<Item = u32> + '_ {
    path[ADDR..]
        .chunks_exact(HOP)
        .map(|hop| u32::from_be_bytes([0, hop[0], hop[1], hop[2]]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{address, aliases::U24};

    const ROUTER: Address = address!("e592427a0aece92de3edee1f18e0157c05861564");
    const A: Address = address!("00000000000000000000000000000000000000aa");
    const B: Address = address!("00000000000000000000000000000000000000bb");
    const C: Address = address!("00000000000000000000000000000000000000cc");
    const TO: Address = address!("0000000000000000000000000000000000000042");

    fn packed(route: &[Address]) -> Vec<u8> {
        let mut out = route[0].to_vec();
        for t in &route[1..] {
            out.extend_from_slice(&U24::from(3_000).to_be_bytes::<3>());
            out.extend_from_slice(t.as_slice());
        }
        out
    }

    fn decoded(value: U256, call: &impl SolCall) -> Result<DecodedCall, DecodeError> {
        super::super::decode_call(ROUTER, value, &call.abi_encode())
    }

    #[test]
    fn exact_input_single_names_its_tokens_minimum_and_recipient() {
        let call = Router::exactInputSingleCall {
            params: Router::ExactInputSingleParams {
                tokenIn: A,
                tokenOut: B,
                fee: U24::from(500),
                recipient: TO,
                deadline: U256::from(9),
                amountIn: U256::from(100),
                amountOutMinimum: U256::from(97),
                sqrtPriceLimitX96: Default::default(),
            },
        };
        let Ok(DecodedCall::Swap(s)) = decoded(U256::ZERO, &call) else {
            panic!("{:?}", decoded(U256::ZERO, &call));
        };
        assert_eq!((s.router, s.path.clone(), s.to), (ROUTER, vec![A, B], TO));
        assert_eq!(s.min_output(), Some(U256::from(97)));
        assert!(!s.eth_in && !s.eth_out);
        let Ok(DecodedCall::Swap(s)) = decoded(U256::from(100), &call) else {
            panic!("with value");
        };
        assert!(s.eth_in, "ether sent with the swap pays its input");
    }

    #[test]
    fn multi_hop_paths_list_every_token_from_input_to_output() {
        let input = Router::exactInputCall {
            params: Router::ExactInputParams {
                path: packed(&[A, B, C]).into(),
                recipient: TO,
                deadline: U256::from(9),
                amountIn: U256::from(100),
                amountOutMinimum: U256::ZERO,
            },
        };
        let Ok(DecodedCall::Swap(s)) = decoded(U256::ZERO, &input) else {
            panic!("exactInput");
        };
        assert_eq!(s.path, vec![A, B, C]);
        assert_eq!(s.min_output(), Some(U256::ZERO));
        // exactOutput's path runs from the output back to the input.
        let output = Router::exactOutputCall {
            params: Router::ExactOutputParams {
                path: packed(&[C, B, A]).into(),
                recipient: TO,
                deadline: U256::from(9),
                amountOut: U256::from(50),
                amountInMaximum: U256::from(100),
            },
        };
        let Ok(DecodedCall::Swap(s)) = decoded(U256::ZERO, &output) else {
            panic!("exactOutput");
        };
        assert_eq!((s.token_in(), s.token_out()), (A, C));
        assert_eq!(s.max_input(), U256::from(100));
    }

    #[test]
    fn a_path_of_anything_but_whole_hops_is_malformed() {
        for (len, short) in [(0, true), (20, true), (42, true), (44, false), (67, false)] {
            let call = Router::exactInputCall {
                params: Router::ExactInputParams {
                    path: vec![0x11; len].into(),
                    recipient: TO,
                    deadline: U256::ZERO,
                    amountIn: U256::from(1),
                    amountOutMinimum: U256::from(1),
                },
            };
            let function = "exactInput";
            let expected = if short {
                DecodeError::ShortPath { function }
            } else {
                DecodeError::BadArguments { function }
            };
            assert_eq!(decoded(U256::ZERO, &call), Err(expected), "{len} bytes");
        }
        let call = Router::exactInputCall {
            params: Router::ExactInputParams {
                path: vec![0x11; 66].into(),
                recipient: TO,
                deadline: U256::ZERO,
                amountIn: U256::from(1),
                amountOutMinimum: U256::from(1),
            },
        };
        assert!(matches!(
            decoded(U256::ZERO, &call),
            Ok(DecodedCall::Swap(_))
        ));
    }

    fn single(recipient: Address, min: u64) -> alloy_primitives::Bytes {
        Router::exactInputSingleCall {
            params: Router::ExactInputSingleParams {
                tokenIn: A,
                tokenOut: B,
                fee: U24::from(500),
                recipient,
                deadline: U256::from(9),
                amountIn: U256::from(100),
                amountOutMinimum: U256::from(min),
                sqrtPriceLimitX96: Default::default(),
            },
        }
        .abi_encode()
        .into()
    }

    fn batch(calls: Vec<alloy_primitives::Bytes>) -> Result<DecodedCall, DecodeError> {
        decoded(U256::ZERO, &Router::multicallCall { data: calls })
    }

    #[test]
    fn a_multicall_of_a_swap_and_its_payment_is_the_swap_paid_to_the_recipient() {
        let sweep = |token, min: u64| -> alloy_primitives::Bytes {
            Router::sweepTokenCall {
                token,
                amountMinimum: U256::from(min),
                recipient: TO,
            }
            .abi_encode()
            .into()
        };
        let Ok(DecodedCall::Swap(s)) = batch(vec![single(ROUTER, 0), sweep(B, 95)]) else {
            panic!("swap and sweep");
        };
        assert_eq!(
            (s.to, s.min_output(), s.eth_out),
            (TO, Some(U256::from(95)), false)
        );
        // The larger of the two minimums bounds what arrives.
        let Ok(DecodedCall::Swap(s)) = batch(vec![single(ROUTER, 97), sweep(B, 0)]) else {
            panic!("swap and sweep");
        };
        assert_eq!(s.min_output(), Some(U256::from(97)));
        let unwrap: alloy_primitives::Bytes = Router::unwrapWETH9Call {
            amountMinimum: U256::from(90),
            recipient: TO,
        }
        .abi_encode()
        .into();
        let refund: alloy_primitives::Bytes = Router::refundETHCall {}.abi_encode().into();
        let Ok(DecodedCall::Swap(s)) = batch(vec![single(ROUTER, 0), unwrap.clone(), refund])
        else {
            panic!("swap, unwrap, refund");
        };
        assert!(s.eth_out && s.to == TO);
        // Left in the router: its recipient is the router.
        let Ok(DecodedCall::Swap(s)) = batch(vec![single(ROUTER, 0)]) else {
            panic!("swap alone");
        };
        assert_eq!(s.to, ROUTER);
        // Anything else is not read: another token swept, a swap already paid out, two swaps.
        for calls in [
            vec![single(ROUTER, 0), sweep(C, 95)],
            vec![single(TO, 0), unwrap],
            vec![single(ROUTER, 0), single(ROUTER, 0)],
            vec![],
        ] {
            assert_eq!(batch(calls), Ok(DecodedCall::Unknown));
        }
    }
}
