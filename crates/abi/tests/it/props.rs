//! Properties over arbitrary calldata: decoding never panics, and what decodes re-encodes to
//! the same facts.

use crate::decode::ROUTER;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::{
    DecodedCall, SwapKind,
    bindings::{IERC20, IUniswapV2Router02 as Router},
    decode::selectors,
    decode_call,
};
use proptest::prelude::*;

fn address() -> impl Strategy<Value = Address> {
    any::<[u8; 20]>().prop_map(Address::from)
}

fn u256() -> impl Strategy<Value = U256> {
    any::<[u8; 32]>().prop_map(U256::from_be_bytes)
}

/// Words that are often small (valid offsets and lengths), sometimes anything.
fn word() -> impl Strategy<Value = [u8; 32]> {
    prop_oneof![
        (0u16..400).prop_map(|n| U256::from(n).to_be_bytes::<32>()),
        any::<[u8; 32]>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any bytes after any known selector decode or fail cleanly.
    #[test]
    fn never_panics_after_a_known_selector(
        index in 0..selectors::ALL.len(),
        words in proptest::collection::vec(word(), 0..16),
        tail in proptest::collection::vec(any::<u8>(), 0..40),
        value in u256(),
    ) {
        let mut data = selectors::ALL[index].to_vec();
        data.extend(words.iter().flatten());
        data.extend(&tail);
        let _ = decode_call(ROUTER, value, &data).map(|d| (d.recipients(), d.minimums()));
    }

    /// Any bytes at all decode or fail cleanly.
    #[test]
    fn never_panics_on_arbitrary_bytes(
        data in proptest::collection::vec(any::<u8>(), 0..300),
        value in u256(),
    ) {
        let _ = decode_call(ROUTER, value, &data).map(|d| (d.recipients(), d.minimums()));
    }

    #[test]
    fn transfers_round_trip(token in address(), to in address(), value in u256()) {
        let data = IERC20::transferCall { to, value }.abi_encode();
        prop_assert_eq!(
            decode_call(token, U256::ZERO, &data),
            Ok(DecodedCall::Transfer { token, to, amount: value })
        );
    }

    #[test]
    fn swaps_round_trip(
        amount_in in u256(),
        min_out in u256(),
        path in proptest::collection::vec(address(), 2..5),
        to in address(),
        deadline in u256(),
    ) {
        let data = Router::swapExactTokensForTokensSupportingFeeOnTransferTokensCall {
            amountIn: amount_in,
            amountOutMin: min_out,
            path: path.clone(),
            to,
            deadline,
        }
        .abi_encode();
        let Ok(DecodedCall::Swap(s)) = decode_call(ROUTER, U256::ZERO, &data) else {
            return Err(TestCaseError::fail("not a swap"));
        };
        prop_assert_eq!(s.kind, SwapKind::ExactIn { amount_in, min_out });
        prop_assert_eq!((s.path, s.to, s.deadline), (path, to, deadline));
        prop_assert!(s.fee_on_transfer && !s.eth_in && !s.eth_out);
    }
}
