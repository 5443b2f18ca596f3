//! What a swap router's batch holds that the decoder does not read: [`unread_calls`].

use crate::bindings::{ISwapRouter02 as Router02, IV3SwapRouter as Router};
use alloy_primitives::Bytes;
use alloy_sol_types::SolCall;

/// The swaps of the V3 SwapRouter and of SwapRouter02.
const SWAPS: [[u8; 4]; 10] = [
    Router::exactInputSingleCall::SELECTOR,
    Router::exactInputCall::SELECTOR,
    Router::exactOutputSingleCall::SELECTOR,
    Router::exactOutputCall::SELECTOR,
    Router02::exactInputSingleCall::SELECTOR,
    Router02::exactInputCall::SELECTOR,
    Router02::exactOutputSingleCall::SELECTOR,
    Router02::exactOutputCall::SELECTOR,
    Router02::swapExactTokensForTokensCall::SELECTOR,
    Router02::swapTokensForExactTokensCall::SELECTOR,
];

/// The payments after a swap the decoder reads.
const PAYMENTS: [[u8; 4]; 5] = [
    Router02::sweepToken_0Call::SELECTOR,
    Router02::sweepToken_1Call::SELECTOR,
    Router02::unwrapWETH9_0Call::SELECTOR,
    Router02::unwrapWETH9_1Call::SELECTOR,
    Router02::refundETHCall::SELECTOR,
];

/// The inner calls of a swap router's `multicall` (any of its three forms) that the decoder
/// does not read, by selector in batch order (`[0; 4]` for one shorter than a selector): any
/// call but the routers' swaps and the payments of their output (`sweepToken`, `unwrapWETH9`,
/// `refundETH`), such as fee-taking payments, `pull`, `wrapETH`, permits or liquidity calls.
/// `None` for a call that is not a `multicall`, does not decode, or holds no swap (a position
/// manager's batch is not a swap router's).
pub fn unread_calls(data: &[u8]) -> Option<Vec<[u8; 4]>> {
    let selector = data.get(..4)?;
    let (_, calls) = super::swap_router02::multicall(
        [selector[0], selector[1], selector[2], selector[3]],
        data,
    )?
    .ok()?;
    let selector = |c: &Bytes| c.get(..4).map_or([0; 4], |s| [s[0], s[1], s[2], s[3]]);
    let selectors: Vec<[u8; 4]> = calls.iter().map(selector).collect();
    if !selectors.iter().any(|s| SWAPS.contains(s)) {
        return None;
    }
    Some(
        selectors
            .into_iter()
            .filter(|s| !SWAPS.contains(s) && !PAYMENTS.contains(s))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, U256, aliases::U24};

    fn swap() -> Bytes {
        Router02::exactInputSingleCall {
            params: Router02::ExactInputSingleParams {
                tokenIn: Address::with_last_byte(0xaa),
                tokenOut: Address::with_last_byte(0xbb),
                fee: U24::from(500),
                recipient: Address::with_last_byte(1),
                amountIn: U256::from(100),
                amountOutMinimum: U256::from(90),
                sqrtPriceLimitX96: Default::default(),
            },
        }
        .abi_encode()
        .into()
    }

    #[test]
    fn a_swap_batch_names_the_calls_nothing_reads() {
        let pull: Bytes = Router02::pullCall {
            token: Address::with_last_byte(0xaa),
            value: U256::from(1),
        }
        .abi_encode()
        .into();
        let pulled = Router02::pullCall::SELECTOR;
        let unwrap: Bytes = Router02::unwrapWETH9_0Call {
            amountMinimum: U256::from(1),
        }
        .abi_encode()
        .into();
        let batch = |data: Vec<Bytes>| {
            Router02::multicall_0Call {
                deadline: U256::from(9),
                data,
            }
            .abi_encode()
        };
        assert_eq!(
            unread_calls(&batch(vec![swap(), unwrap.clone()])),
            Some(vec![])
        );
        assert_eq!(
            unread_calls(&batch(vec![pull.clone(), swap(), Bytes::new()])),
            Some(vec![pulled, [0; 4]])
        );
        // Two swaps are each read: no unread call (the pair is judged by the general rules).
        assert_eq!(unread_calls(&batch(vec![swap(), swap()])), Some(vec![]));
        // No swap in it: not a swap router's batch.
        assert_eq!(unread_calls(&batch(vec![pull, unwrap])), None);
        let plain = Router02::multicall_2Call { data: vec![swap()] }.abi_encode();
        assert_eq!(unread_calls(&plain), Some(vec![]));
        assert_eq!(unread_calls(&swap()), None);
    }
}
