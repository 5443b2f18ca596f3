//! Strictness: dirty high bits, short data and offsets or lengths outside the data are
//! errors, never a different reading of the bytes.

use crate::decode::{ME, ROUTER, USDC, WETH};
use alloy_primitives::{B256, U256};
use alloy_sol_types::SolCall;
use pace_abi::{
    DecodeError, DecodedCall,
    bindings::{IERC20, IERC20Permit, IUniswapV2Router02 as Router, IWETH9},
    decode_call,
};

fn decode(data: &[u8]) -> Result<DecodedCall, DecodeError> {
    decode_call(ROUTER, U256::ZERO, data)
}

fn bad(function: &'static str) -> Result<DecodedCall, DecodeError> {
    Err(DecodeError::BadArguments { function })
}

/// The 32-byte argument word `i` (after the selector).
fn word(data: &mut [u8], i: usize) -> &mut [u8] {
    &mut data[4 + 32 * i..4 + 32 * (i + 1)]
}

fn transfer() -> Vec<u8> {
    IERC20::transferCall {
        to: ME,
        value: U256::from(7),
    }
    .abi_encode()
}

fn swap(path: Vec<alloy_primitives::Address>) -> Vec<u8> {
    Router::swapExactTokensForTokensCall {
        amountIn: U256::from(1),
        amountOutMin: U256::from(1),
        path,
        to: ME,
        deadline: U256::from(1),
    }
    .abi_encode()
}

#[test]
fn truncated_arguments_are_errors() {
    let data = transfer();
    for len in [4, 5, 36, 40, data.len() - 1] {
        assert_eq!(decode(&data[..len]), bad("transfer"), "length {len}");
    }
    let data = swap(vec![USDC, WETH]);
    assert_eq!(
        decode(&data[..data.len() - 32]),
        bad("swapExactTokensForTokens")
    );
    let data = IWETH9::withdrawCall { wad: U256::from(1) }.abi_encode();
    assert_eq!(decode(&data[..20]), bad("withdraw"));
}

#[test]
fn dirty_address_bits_are_errors() {
    let mut data = transfer();
    word(&mut data, 0)[0] = 0xff;
    assert_eq!(decode(&data), bad("transfer"));

    // An address inside a dynamic array: the path's second token (words: 5 head, len, a, b).
    let mut data = swap(vec![USDC, WETH]);
    word(&mut data, 7)[11] = 1;
    assert_eq!(decode(&data), bad("swapExactTokensForTokens"));

    let mut data = Router::addLiquidityCall {
        tokenA: USDC,
        tokenB: WETH,
        amountADesired: U256::from(1),
        amountBDesired: U256::from(1),
        amountAMin: U256::ZERO,
        amountBMin: U256::ZERO,
        to: ME,
        deadline: U256::from(1),
    }
    .abi_encode();
    word(&mut data, 6)[0] = 0x80;
    assert_eq!(decode(&data), bad("addLiquidity"));
}

#[test]
fn dirty_bool_and_uint8_are_errors() {
    let call = Router::removeLiquidityWithPermitCall {
        tokenA: USDC,
        tokenB: WETH,
        liquidity: U256::from(1),
        amountAMin: U256::ZERO,
        amountBMin: U256::ZERO,
        to: ME,
        deadline: U256::from(1),
        approveMax: true,
        v: 27,
        r: B256::ZERO,
        s: B256::ZERO,
    };
    let mut data = call.abi_encode();
    word(&mut data, 7)[31] = 2; // approveMax = 2
    assert_eq!(decode(&data), bad("removeLiquidityWithPermit"));
    let mut data = call.abi_encode();
    word(&mut data, 8)[30] = 1; // v = 256 + 27
    assert_eq!(decode(&data), bad("removeLiquidityWithPermit"));

    let mut data = IERC20Permit::permitCall {
        owner: ME,
        spender: ROUTER,
        value: U256::from(1),
        deadline: U256::from(1),
        v: 27,
        r: B256::ZERO,
        s: B256::ZERO,
    }
    .abi_encode();
    word(&mut data, 4)[0] = 1;
    assert_eq!(decode(&data), bad("permit"));
}

#[test]
fn offsets_and_lengths_outside_the_data_are_errors() {
    // The path's offset (word 2) points past the end.
    let mut data = swap(vec![USDC, WETH]);
    word(&mut data, 2)[31] = 0xff;
    assert_eq!(decode(&data), bad("swapExactTokensForTokens"));
    // A huge offset.
    let mut data = swap(vec![USDC, WETH]);
    word(&mut data, 2).fill(0xff);
    assert_eq!(decode(&data), bad("swapExactTokensForTokens"));
    // The path's length (word 5) claims more elements than the data holds.
    let mut data = swap(vec![USDC, WETH]);
    word(&mut data, 5)[31] = 3;
    assert_eq!(decode(&data), bad("swapExactTokensForTokens"));
    let mut data = swap(vec![USDC, WETH]);
    word(&mut data, 5).fill(0xff);
    assert_eq!(decode(&data), bad("swapExactTokensForTokens"));
}

#[test]
fn paths_need_two_tokens() {
    for path in [vec![], vec![USDC]] {
        assert_eq!(
            decode(&swap(path.clone())),
            Err(DecodeError::ShortPath {
                function: "swapExactTokensForTokens"
            })
        );
        let data = Router::swapExactETHForTokensSupportingFeeOnTransferTokensCall {
            amountOutMin: U256::ZERO,
            path,
            to: ME,
            deadline: U256::ZERO,
        }
        .abi_encode();
        assert_eq!(
            decode(&data),
            Err(DecodeError::ShortPath {
                function: "swapExactETHForTokensSupportingFeeOnTransferTokens"
            })
        );
    }
}

/// Solidity ignores bytes after the arguments, so the decoder does too: the facts are still
/// those of the call that executes.
#[test]
fn trailing_bytes_are_ignored_like_solidity() {
    let mut data = transfer();
    data.extend_from_slice(&[0xde, 0xad]);
    assert!(matches!(decode(&data), Ok(DecodedCall::Transfer { .. })));
    let mut data = IWETH9::depositCall {}.abi_encode();
    data.push(0);
    assert!(matches!(decode(&data), Ok(DecodedCall::WethDeposit { .. })));
}

#[test]
fn errors_read_well() {
    assert_eq!(
        DecodeError::NoSelector.to_string(),
        "calldata is 1-3 bytes long: no function selector"
    );
    assert_eq!(
        DecodeError::BadArguments {
            function: "transfer"
        }
        .to_string(),
        "arguments of transfer do not decode"
    );
    let e: Box<dyn std::error::Error> = Box::new(DecodeError::ShortPath { function: "swap" });
    assert_eq!(e.to_string(), "swap path has fewer than two tokens");
}
