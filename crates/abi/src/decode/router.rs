//! The Router02 half of [`decode_call`](super::decode_call): swaps and liquidity.

use super::{DecodeError, DecodedCall, PermitArgs, Swap, SwapKind, strict, swap};
use crate::bindings::IUniswapV2Router02 as Router;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;

/// One swap variant: the call decoded strictly, its kind from the decoded call `c`, and its
/// ether and fee-on-transfer flags.
macro_rules! swap_variant {
    ($data:ident, $router:ident, $call:ty, |$c:ident| $kind:expr, $eth_in:literal, $eth_out:literal, $fot:literal) => {{
        let $c = strict::<$call>($data)?;
        swap::<$call>(Swap {
            router: $router,
            kind: $kind,
            path: $c.path,
            to: $c.to,
            deadline: $c.deadline,
            eth_in: $eth_in,
            eth_out: $eth_out,
            fee_on_transfer: $fot,
            v4_pools: Vec::new(),
            to_internal: false,
            routes: Vec::new(),
        })?
    }};
}

/// One `removeLiquidity*` variant: two tokens, or a token and ether (side B), with or without
/// the fee-on-transfer handling and the LP permit.
macro_rules! remove_variant {
    (@permit $c:ident, permit) => {
        Some(PermitArgs::new($c.approveMax, $c.liquidity))
    };
    (@permit $c:ident, no_permit) => {
        None
    };
    ($data:ident, $router:ident, tokens $call:ty, $permit:ident) => {{
        let c = strict::<$call>($data)?;
        DecodedCall::RemoveLiquidity {
            router: $router,
            token_a: c.tokenA,
            token_b: c.tokenB,
            liquidity: c.liquidity,
            amount_a_min: c.amountAMin,
            amount_b_min: c.amountBMin,
            to: c.to,
            deadline: c.deadline,
            eth: false,
            fee_on_transfer: false,
            permit: remove_variant!(@permit c, $permit),
        }
    }};
    ($data:ident, $router:ident, eth $call:ty, $fot:literal, $permit:ident) => {{
        let c = strict::<$call>($data)?;
        DecodedCall::RemoveLiquidity {
            router: $router,
            token_a: c.token,
            token_b: Address::ZERO,
            liquidity: c.liquidity,
            amount_a_min: c.amountTokenMin,
            amount_b_min: c.amountETHMin,
            to: c.to,
            deadline: c.deadline,
            eth: true,
            fee_on_transfer: $fot,
            permit: remove_variant!(@permit c, $permit),
        }
    }};
}

/// Decodes a call to Uniswap V2 Router02 `router`; any other selector goes to the V3
/// SwapRouter decoder.
pub(super) fn decode(
    router: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
) -> Result<DecodedCall, DecodeError> {
    let exact_in = |amount_in, min_out| SwapKind::ExactIn { amount_in, min_out };
    let exact_out = |amount_out, max_in| SwapKind::ExactOut { amount_out, max_in };
    let decoded = match selector {
        Router::swapExactTokensForTokensCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapExactTokensForTokensCall,
            |c| exact_in(c.amountIn, c.amountOutMin),
            false,
            false,
            false
        ),
        Router::swapTokensForExactTokensCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapTokensForExactTokensCall,
            |c| exact_out(c.amountOut, c.amountInMax),
            false,
            false,
            false
        ),
        Router::swapExactETHForTokensCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapExactETHForTokensCall,
            |c| exact_in(value, c.amountOutMin),
            true,
            false,
            false
        ),
        Router::swapTokensForExactETHCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapTokensForExactETHCall,
            |c| exact_out(c.amountOut, c.amountInMax),
            false,
            true,
            false
        ),
        Router::swapExactTokensForETHCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapExactTokensForETHCall,
            |c| exact_in(c.amountIn, c.amountOutMin),
            false,
            true,
            false
        ),
        Router::swapETHForExactTokensCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapETHForExactTokensCall,
            |c| exact_out(c.amountOut, value),
            true,
            false,
            false
        ),
        Router::swapExactTokensForTokensSupportingFeeOnTransferTokensCall::SELECTOR => {
            swap_variant!(
                data,
                router,
                Router::swapExactTokensForTokensSupportingFeeOnTransferTokensCall,
                |c| exact_in(c.amountIn, c.amountOutMin),
                false,
                false,
                true
            )
        }
        Router::swapExactETHForTokensSupportingFeeOnTransferTokensCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapExactETHForTokensSupportingFeeOnTransferTokensCall,
            |c| exact_in(value, c.amountOutMin),
            true,
            false,
            true
        ),
        Router::swapExactTokensForETHSupportingFeeOnTransferTokensCall::SELECTOR => swap_variant!(
            data,
            router,
            Router::swapExactTokensForETHSupportingFeeOnTransferTokensCall,
            |c| exact_in(c.amountIn, c.amountOutMin),
            false,
            true,
            true
        ),
        Router::addLiquidityCall::SELECTOR => {
            let c = strict::<Router::addLiquidityCall>(data)?;
            DecodedCall::AddLiquidity {
                router,
                token_a: c.tokenA,
                token_b: c.tokenB,
                amount_a_desired: c.amountADesired,
                amount_b_desired: c.amountBDesired,
                amount_a_min: c.amountAMin,
                amount_b_min: c.amountBMin,
                to: c.to,
                deadline: c.deadline,
                eth: false,
            }
        }
        Router::addLiquidityETHCall::SELECTOR => {
            let c = strict::<Router::addLiquidityETHCall>(data)?;
            DecodedCall::AddLiquidity {
                router,
                token_a: c.token,
                token_b: Address::ZERO,
                amount_a_desired: c.amountTokenDesired,
                amount_b_desired: value,
                amount_a_min: c.amountTokenMin,
                amount_b_min: c.amountETHMin,
                to: c.to,
                deadline: c.deadline,
                eth: true,
            }
        }
        Router::removeLiquidityCall::SELECTOR => {
            remove_variant!(data, router, tokens Router::removeLiquidityCall, no_permit)
        }
        Router::removeLiquidityWithPermitCall::SELECTOR => {
            remove_variant!(data, router, tokens Router::removeLiquidityWithPermitCall, permit)
        }
        Router::removeLiquidityETHCall::SELECTOR => {
            remove_variant!(data, router, eth Router::removeLiquidityETHCall, false, no_permit)
        }
        Router::removeLiquidityETHWithPermitCall::SELECTOR => remove_variant!(
            data, router, eth Router::removeLiquidityETHWithPermitCall, false, permit
        ),
        Router::removeLiquidityETHSupportingFeeOnTransferTokensCall::SELECTOR => remove_variant!(
            data, router, eth Router::removeLiquidityETHSupportingFeeOnTransferTokensCall, true, no_permit
        ),
        Router::removeLiquidityETHWithPermitSupportingFeeOnTransferTokensCall::SELECTOR => {
            remove_variant!(
                data, router, eth Router::removeLiquidityETHWithPermitSupportingFeeOnTransferTokensCall, true, permit
            )
        }
        selector => return super::v3_router::decode(router, value, selector, data),
    };
    Ok(decoded)
}
