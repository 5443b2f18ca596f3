//! The Router02 half of [`decode_call`](super::decode_call): swaps and liquidity.

use super::{DecodeError, DecodedCall, PermitArgs, Swap, SwapKind, strict, swap};
use crate::bindings::IUniswapV2Router02 as Router;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;

/// Decodes a call to Uniswap V2 Router02 `router`; `Unknown` for any other selector.
pub(super) fn decode(
    router: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
) -> Result<DecodedCall, DecodeError> {
    let exact_in = |amount_in, min_out| SwapKind::ExactIn { amount_in, min_out };
    let exact_out = |amount_out, max_in| SwapKind::ExactOut { amount_out, max_in };
    let decoded = match selector {
        Router::swapExactTokensForTokensCall::SELECTOR => {
            type C = Router::swapExactTokensForTokensCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_in(c.amountIn, c.amountOutMin),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: false,
                eth_out: false,
                fee_on_transfer: false,
            })?
        }
        Router::swapTokensForExactTokensCall::SELECTOR => {
            type C = Router::swapTokensForExactTokensCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_out(c.amountOut, c.amountInMax),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: false,
                eth_out: false,
                fee_on_transfer: false,
            })?
        }
        Router::swapExactETHForTokensCall::SELECTOR => {
            type C = Router::swapExactETHForTokensCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_in(value, c.amountOutMin),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: true,
                eth_out: false,
                fee_on_transfer: false,
            })?
        }
        Router::swapTokensForExactETHCall::SELECTOR => {
            type C = Router::swapTokensForExactETHCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_out(c.amountOut, c.amountInMax),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: false,
                eth_out: true,
                fee_on_transfer: false,
            })?
        }
        Router::swapExactTokensForETHCall::SELECTOR => {
            type C = Router::swapExactTokensForETHCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_in(c.amountIn, c.amountOutMin),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: false,
                eth_out: true,
                fee_on_transfer: false,
            })?
        }
        Router::swapETHForExactTokensCall::SELECTOR => {
            type C = Router::swapETHForExactTokensCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_out(c.amountOut, value),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: true,
                eth_out: false,
                fee_on_transfer: false,
            })?
        }
        Router::swapExactTokensForTokensSupportingFeeOnTransferTokensCall::SELECTOR => {
            type C = Router::swapExactTokensForTokensSupportingFeeOnTransferTokensCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_in(c.amountIn, c.amountOutMin),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: false,
                eth_out: false,
                fee_on_transfer: true,
            })?
        }
        Router::swapExactETHForTokensSupportingFeeOnTransferTokensCall::SELECTOR => {
            type C = Router::swapExactETHForTokensSupportingFeeOnTransferTokensCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_in(value, c.amountOutMin),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: true,
                eth_out: false,
                fee_on_transfer: true,
            })?
        }
        Router::swapExactTokensForETHSupportingFeeOnTransferTokensCall::SELECTOR => {
            type C = Router::swapExactTokensForETHSupportingFeeOnTransferTokensCall;
            let c = strict::<C>(data)?;
            swap::<C>(Swap {
                router,
                kind: exact_in(c.amountIn, c.amountOutMin),
                path: c.path,
                to: c.to,
                deadline: c.deadline,
                eth_in: false,
                eth_out: true,
                fee_on_transfer: true,
            })?
        }
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
            let c = strict::<Router::removeLiquidityCall>(data)?;
            DecodedCall::RemoveLiquidity {
                router,
                token_a: c.tokenA,
                token_b: c.tokenB,
                liquidity: c.liquidity,
                amount_a_min: c.amountAMin,
                amount_b_min: c.amountBMin,
                to: c.to,
                deadline: c.deadline,
                eth: false,
                fee_on_transfer: false,
                permit: None,
            }
        }
        Router::removeLiquidityWithPermitCall::SELECTOR => {
            let c = strict::<Router::removeLiquidityWithPermitCall>(data)?;
            DecodedCall::RemoveLiquidity {
                router,
                token_a: c.tokenA,
                token_b: c.tokenB,
                liquidity: c.liquidity,
                amount_a_min: c.amountAMin,
                amount_b_min: c.amountBMin,
                to: c.to,
                deadline: c.deadline,
                eth: false,
                fee_on_transfer: false,
                permit: Some(PermitArgs::new(c.approveMax, c.liquidity)),
            }
        }
        Router::removeLiquidityETHCall::SELECTOR => {
            let c = strict::<Router::removeLiquidityETHCall>(data)?;
            DecodedCall::RemoveLiquidity {
                router,
                token_a: c.token,
                token_b: Address::ZERO,
                liquidity: c.liquidity,
                amount_a_min: c.amountTokenMin,
                amount_b_min: c.amountETHMin,
                to: c.to,
                deadline: c.deadline,
                eth: true,
                fee_on_transfer: false,
                permit: None,
            }
        }
        Router::removeLiquidityETHWithPermitCall::SELECTOR => {
            let c = strict::<Router::removeLiquidityETHWithPermitCall>(data)?;
            DecodedCall::RemoveLiquidity {
                router,
                token_a: c.token,
                token_b: Address::ZERO,
                liquidity: c.liquidity,
                amount_a_min: c.amountTokenMin,
                amount_b_min: c.amountETHMin,
                to: c.to,
                deadline: c.deadline,
                eth: true,
                fee_on_transfer: false,
                permit: Some(PermitArgs::new(c.approveMax, c.liquidity)),
            }
        }
        Router::removeLiquidityETHSupportingFeeOnTransferTokensCall::SELECTOR => {
            let c = strict::<Router::removeLiquidityETHSupportingFeeOnTransferTokensCall>(data)?;
            DecodedCall::RemoveLiquidity {
                router,
                token_a: c.token,
                token_b: Address::ZERO,
                liquidity: c.liquidity,
                amount_a_min: c.amountTokenMin,
                amount_b_min: c.amountETHMin,
                to: c.to,
                deadline: c.deadline,
                eth: true,
                fee_on_transfer: true,
                permit: None,
            }
        }
        Router::removeLiquidityETHWithPermitSupportingFeeOnTransferTokensCall::SELECTOR => {
            let c = strict::<Router::removeLiquidityETHWithPermitSupportingFeeOnTransferTokensCall>(
                data,
            )?;
            DecodedCall::RemoveLiquidity {
                router,
                token_a: c.token,
                token_b: Address::ZERO,
                liquidity: c.liquidity,
                amount_a_min: c.amountTokenMin,
                amount_b_min: c.amountETHMin,
                to: c.to,
                deadline: c.deadline,
                eth: true,
                fee_on_transfer: true,
                permit: Some(PermitArgs::new(c.approveMax, c.liquidity)),
            }
        }
        _ => DecodedCall::Unknown,
    };
    Ok(decoded)
}
