//! `pace_abi::decode_call(target, value, data)` on arbitrary calldata: never panics and is
//! deterministic; a decoded known call re-encodes (canonically, through the `sol!` bindings)
//! to calldata that decodes to the same facts, and a call whose arguments are all static
//! words is exactly that encoding (plus any trailing bytes, which Solidity ignores too).
//!
//! Input: `[target index][value selector][calldata…]`.
#![no_main]

use alloy_primitives::{Address, U256, address};
use alloy_sol_types::{SolCall, SolInterface};
use libfuzzer_sys::fuzz_target;
use pace_abi::{
    DecodedCall,
    bindings::{IERC20, IERC20Permit, IUniswapV2Router02, IWETH9},
    decode_call,
};

const TARGETS: [Address; 4] = [
    address!("7a250d5630b4cf539739df2c5dacb4c659f2488d"),
    address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"),
    address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
    Address::ZERO,
];

fn value(sel: u8) -> U256 {
    match sel % 4 {
        0 => U256::ZERO,
        1 => U256::from(10u64).pow(U256::from(18u64)),
        2 => U256::MAX,
        _ => U256::from(sel),
    }
}

/// The canonical `sol!` re-encoding of `data` when it decodes (validated) as a known call.
fn reencode(data: &[u8]) -> Option<Vec<u8>> {
    if let Ok(c) = IERC20::IERC20Calls::abi_decode_validate(data) {
        return Some(c.abi_encode());
    }
    if let Ok(c) = IERC20Permit::IERC20PermitCalls::abi_decode_validate(data) {
        return Some(c.abi_encode());
    }
    if let Ok(c) = IWETH9::IWETH9Calls::abi_decode_validate(data) {
        return Some(c.abi_encode());
    }
    if let Ok(c) = IUniswapV2Router02::IUniswapV2Router02Calls::abi_decode_validate(data) {
        return Some(c.abi_encode());
    }
    None
}

/// Whether every argument of the call with this selector is a static word.
fn all_static(selector: [u8; 4]) -> bool {
    [
        IERC20::transferCall::SELECTOR,
        IERC20::approveCall::SELECTOR,
        IERC20::transferFromCall::SELECTOR,
        IERC20::increaseAllowanceCall::SELECTOR,
        IERC20::decreaseAllowanceCall::SELECTOR,
        IERC20Permit::permitCall::SELECTOR,
        IWETH9::depositCall::SELECTOR,
        IWETH9::withdrawCall::SELECTOR,
    ]
    .contains(&selector)
}

fuzz_target!(|input: &[u8]| {
    let [t, v, data @ ..] = input else { return };
    let target = TARGETS[usize::from(*t) % TARGETS.len()];
    let value = value(*v);
    let first = decode_call(target, value, data);
    assert_eq!(
        first,
        decode_call(target, value, data),
        "decoding is not deterministic"
    );
    let Ok(decoded) = first else { return };
    // The derived facts must not panic either.
    let _ = decoded.recipients();
    let _ = decoded.minimums();
    let _ = decoded.allowance_change();
    if matches!(decoded, DecodedCall::Unknown | DecodedCall::PlainTransfer) {
        return;
    }
    let canonical = reencode(data)
        .unwrap_or_else(|| panic!("decode_call decoded {decoded:?}, the bindings do not"));
    let again = decode_call(target, value, &canonical);
    assert_eq!(
        again.as_ref(),
        Ok(&decoded),
        "the canonical re-encoding decodes differently"
    );
    let selector = [data[0], data[1], data[2], data[3]];
    if all_static(selector) {
        assert!(
            data.starts_with(&canonical),
            "static call arguments are not the canonical encoding"
        );
    }
});
