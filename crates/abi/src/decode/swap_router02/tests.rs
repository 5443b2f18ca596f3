//! SwapRouter02's swaps read with their recipients mapped, its batches, and what is left
//! unread.

use super::*;
use crate::decode::universal_router::{ADDRESS_THIS, MSG_SENDER};
use alloy_primitives::{address, aliases::U24};

const ROUTER: Address = address!("68b3465833fb72a70ecdf485e0e4c7bd8665fc45");
const ME: Address = address!("00000000000000000000000000000000000000ee");
const A: Address = address!("00000000000000000000000000000000000000aa");
const B: Address = address!("00000000000000000000000000000000000000bb");
const C: Address = address!("00000000000000000000000000000000000000cc");
const TO: Address = address!("0000000000000000000000000000000000000042");

fn decoded(value: U256, call: &impl SolCall) -> Result<DecodedCall, DecodeError> {
    super::super::decode_call_from(ME, ROUTER, value, &call.abi_encode())
}

fn swap_of(value: U256, call: &impl SolCall) -> Swap {
    match decoded(value, call) {
        Ok(DecodedCall::Swap(s)) => s,
        other => panic!("not a swap: {other:?}"),
    }
}

fn single(recipient: Address, amount_in: u64, min: u64) -> Router::exactInputSingleCall {
    Router::exactInputSingleCall {
        params: Router::ExactInputSingleParams {
            tokenIn: A,
            tokenOut: B,
            fee: U24::from(500),
            recipient,
            amountIn: U256::from(amount_in),
            amountOutMinimum: U256::from(min),
            sqrtPriceLimitX96: Default::default(),
        },
    }
}

fn packed(route: &[Address]) -> Bytes {
    let mut out = route[0].to_vec();
    for t in &route[1..] {
        out.extend_from_slice(&U24::from(3_000).to_be_bytes::<3>());
        out.extend_from_slice(t.as_slice());
    }
    out.into()
}

#[test]
fn the_recipient_placeholders_are_the_caller_and_the_router() {
    let s = swap_of(U256::ZERO, &single(MSG_SENDER, 100, 97));
    assert_eq!((s.router, s.to, s.path.clone()), (ROUTER, ME, vec![A, B]));
    assert_eq!(
        (s.min_output(), s.deadline),
        (Some(U256::from(97)), U256::MAX)
    );
    assert_eq!(
        swap_of(U256::ZERO, &single(ADDRESS_THIS, 100, 97)).to,
        ROUTER
    );
    assert_eq!(swap_of(U256::ZERO, &single(TO, 100, 97)).to, TO);
    assert!(swap_of(U256::from(100), &single(MSG_SENDER, 100, 97)).eth_in);
}

#[test]
fn every_swap_shape_names_its_route_and_bound() {
    let exact_in = Router::exactInputCall {
        params: Router::ExactInputParams {
            path: packed(&[A, B, C]),
            recipient: MSG_SENDER,
            amountIn: U256::from(100),
            amountOutMinimum: U256::ZERO,
        },
    };
    let s = swap_of(U256::ZERO, &exact_in);
    assert_eq!(
        (s.path.clone(), s.min_output()),
        (vec![A, B, C], Some(U256::ZERO))
    );
    // exactOutput's path runs from the output back to the input.
    let exact_out = Router::exactOutputCall {
        params: Router::ExactOutputParams {
            path: packed(&[C, B, A]),
            recipient: MSG_SENDER,
            amountOut: U256::from(50),
            amountInMaximum: U256::from(100),
        },
    };
    let s = swap_of(U256::ZERO, &exact_out);
    assert_eq!(
        (s.token_in(), s.token_out(), s.max_input()),
        (A, C, U256::from(100))
    );
    let out_single = Router::exactOutputSingleCall {
        params: Router::ExactOutputSingleParams {
            tokenIn: A,
            tokenOut: B,
            fee: U24::from(500),
            recipient: TO,
            amountOut: U256::from(50),
            amountInMaximum: U256::from(70),
            sqrtPriceLimitX96: Default::default(),
        },
    };
    let s = swap_of(U256::ZERO, &out_single);
    assert_eq!(
        (s.to, s.min_output(), s.max_input()),
        (TO, None, U256::from(70))
    );
    let v2_in = Router::swapExactTokensForTokensCall {
        amountIn: U256::from(100),
        amountOutMin: U256::from(90),
        path: vec![A, B, C],
        to: MSG_SENDER,
    };
    let s = swap_of(U256::ZERO, &v2_in);
    assert_eq!(
        (s.to, s.min_output(), s.path.len()),
        (ME, Some(U256::from(90)), 3)
    );
    let v2_out = Router::swapTokensForExactTokensCall {
        amountOut: U256::from(10),
        amountInMax: U256::from(20),
        path: vec![A],
        to: MSG_SENDER,
    };
    let function = "swapTokensForExactTokens";
    assert_eq!(
        decoded(U256::ZERO, &v2_out),
        Err(DecodeError::ShortPath { function })
    );
}

#[test]
fn selling_what_the_router_holds_is_not_read_as_the_callers_trade() {
    assert_eq!(
        decoded(U256::ZERO, &single(MSG_SENDER, 0, 97)),
        Ok(DecodedCall::Unknown)
    );
}

fn batch(deadline: u64, calls: Vec<Bytes>) -> Result<DecodedCall, DecodeError> {
    decoded(
        U256::ZERO,
        &Router::multicall_0Call {
            deadline: U256::from(deadline),
            data: calls,
        },
    )
}

fn encoded(call: &impl SolCall) -> Bytes {
    call.abi_encode().into()
}

#[test]
fn a_batch_of_a_swap_and_its_payment_is_the_swap_paid_to_the_payee() {
    let swap = || encoded(&single(ADDRESS_THIS, 100, 0));
    let sweep_me = |token, min: u64| {
        encoded(&Router::sweepToken_0Call {
            token,
            amountMinimum: U256::from(min),
        })
    };
    let Ok(DecodedCall::Swap(s)) = batch(7, vec![swap(), sweep_me(B, 95)]) else {
        panic!("swap and sweep to the caller");
    };
    assert_eq!(
        (s.to, s.min_output(), s.deadline, s.eth_out),
        (ME, Some(U256::from(95)), U256::from(7), false)
    );
    // The three-argument sweep pays whom it names: address(1) there is not mapped.
    let sweep_one = encoded(&Router::sweepToken_1Call {
        token: B,
        amountMinimum: U256::from(95),
        recipient: MSG_SENDER,
    });
    let Ok(DecodedCall::Swap(s)) = batch(7, vec![swap(), sweep_one]) else {
        panic!("swap and sweep to address(1)");
    };
    assert_eq!(s.to, MSG_SENDER);
    let unwrap = encoded(&Router::unwrapWETH9_0Call {
        amountMinimum: U256::from(90),
    });
    let refund = encoded(&Router::refundETHCall {});
    let Ok(DecodedCall::Swap(s)) = batch(7, vec![swap(), unwrap.clone(), refund]) else {
        panic!("swap, unwrap, refund");
    };
    assert!(s.eth_out && s.to == ME);
    assert_eq!(s.min_output(), Some(U256::from(90)));
    // The other multicalls read the same, without a deadline.
    for data in [
        Router::multicall_1Call {
            previousBlockhash: Default::default(),
            data: vec![swap(), unwrap.clone()],
        }
        .abi_encode(),
        Router::multicall_2Call {
            data: vec![swap(), unwrap.clone()],
        }
        .abi_encode(),
    ] {
        let Ok(DecodedCall::Swap(s)) =
            super::super::decode_call_from(ME, ROUTER, U256::ZERO, &data)
        else {
            panic!("multicall");
        };
        assert_eq!((s.to, s.deadline, s.eth_out), (ME, U256::MAX, true));
    }
    // Anything else is not read: another token swept, a swap paid out already, two swaps, two
    // refunds, an empty batch.
    let refund = encoded(&Router::refundETHCall {});
    for calls in [
        vec![swap(), sweep_me(C, 95)],
        vec![encoded(&single(MSG_SENDER, 100, 0)), unwrap.clone()],
        vec![swap(), swap()],
        vec![swap(), unwrap, refund.clone(), refund],
        vec![],
    ] {
        assert_eq!(batch(7, calls), Ok(DecodedCall::Unknown));
    }
}

#[test]
fn without_the_caller_nothing_is_read() {
    let data = single(MSG_SENDER, 100, 97).abi_encode();
    assert_eq!(
        super::super::decode_call(ROUTER, U256::ZERO, &data),
        Ok(DecodedCall::Unknown)
    );
}
