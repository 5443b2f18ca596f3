//! Selectors of the decoded functions, from the bindings' Solidity signatures.

use crate::bindings::{IERC20, IERC20Permit, IUniswapV2Router02 as Router, IWETH9};
use alloy_sol_types::SolCall;

/// `transfer(address,uint256)`
pub const TRANSFER: [u8; 4] = IERC20::transferCall::SELECTOR;
/// `approve(address,uint256)`
pub const APPROVE: [u8; 4] = IERC20::approveCall::SELECTOR;
/// `transferFrom(address,address,uint256)`
pub const TRANSFER_FROM: [u8; 4] = IERC20::transferFromCall::SELECTOR;
/// `increaseAllowance(address,uint256)`
pub const INCREASE_ALLOWANCE: [u8; 4] = IERC20::increaseAllowanceCall::SELECTOR;
/// `decreaseAllowance(address,uint256)`
pub const DECREASE_ALLOWANCE: [u8; 4] = IERC20::decreaseAllowanceCall::SELECTOR;
/// `permit(address,address,uint256,uint256,uint8,bytes32,bytes32)`
pub const PERMIT: [u8; 4] = IERC20Permit::permitCall::SELECTOR;
/// `deposit()`
pub const WETH_DEPOSIT: [u8; 4] = IWETH9::depositCall::SELECTOR;
/// `withdraw(uint256)`
pub const WETH_WITHDRAW: [u8; 4] = IWETH9::withdrawCall::SELECTOR;
/// `swapExactTokensForTokens(uint256,uint256,address[],address,uint256)`
pub const SWAP_EXACT_TOKENS_FOR_TOKENS: [u8; 4] = Router::swapExactTokensForTokensCall::SELECTOR;
/// `swapTokensForExactTokens(uint256,uint256,address[],address,uint256)`
pub const SWAP_TOKENS_FOR_EXACT_TOKENS: [u8; 4] = Router::swapTokensForExactTokensCall::SELECTOR;
/// `swapExactETHForTokens(uint256,address[],address,uint256)`
pub const SWAP_EXACT_ETH_FOR_TOKENS: [u8; 4] = Router::swapExactETHForTokensCall::SELECTOR;
/// `swapTokensForExactETH(uint256,uint256,address[],address,uint256)`
pub const SWAP_TOKENS_FOR_EXACT_ETH: [u8; 4] = Router::swapTokensForExactETHCall::SELECTOR;
/// `swapExactTokensForETH(uint256,uint256,address[],address,uint256)`
pub const SWAP_EXACT_TOKENS_FOR_ETH: [u8; 4] = Router::swapExactTokensForETHCall::SELECTOR;
/// `swapETHForExactTokens(uint256,address[],address,uint256)`
pub const SWAP_ETH_FOR_EXACT_TOKENS: [u8; 4] = Router::swapETHForExactTokensCall::SELECTOR;
/// `swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256)`
pub const SWAP_EXACT_TOKENS_FOR_TOKENS_FOT: [u8; 4] =
    Router::swapExactTokensForTokensSupportingFeeOnTransferTokensCall::SELECTOR;
/// `swapExactETHForTokensSupportingFeeOnTransferTokens(uint256,address[],address,uint256)`
pub const SWAP_EXACT_ETH_FOR_TOKENS_FOT: [u8; 4] =
    Router::swapExactETHForTokensSupportingFeeOnTransferTokensCall::SELECTOR;
/// `swapExactTokensForETHSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256)`
pub const SWAP_EXACT_TOKENS_FOR_ETH_FOT: [u8; 4] =
    Router::swapExactTokensForETHSupportingFeeOnTransferTokensCall::SELECTOR;
/// `addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)`
pub const ADD_LIQUIDITY: [u8; 4] = Router::addLiquidityCall::SELECTOR;
/// `addLiquidityETH(address,uint256,uint256,uint256,address,uint256)`
pub const ADD_LIQUIDITY_ETH: [u8; 4] = Router::addLiquidityETHCall::SELECTOR;
/// `removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)`
pub const REMOVE_LIQUIDITY: [u8; 4] = Router::removeLiquidityCall::SELECTOR;
/// `removeLiquidityETH(address,uint256,uint256,uint256,address,uint256)`
pub const REMOVE_LIQUIDITY_ETH: [u8; 4] = Router::removeLiquidityETHCall::SELECTOR;
/// `removeLiquidityWithPermit(address,address,uint256,uint256,uint256,address,uint256,bool,uint8,bytes32,bytes32)`
pub const REMOVE_LIQUIDITY_WITH_PERMIT: [u8; 4] = Router::removeLiquidityWithPermitCall::SELECTOR;
/// `removeLiquidityETHWithPermit(address,uint256,uint256,uint256,address,uint256,bool,uint8,bytes32,bytes32)`
pub const REMOVE_LIQUIDITY_ETH_WITH_PERMIT: [u8; 4] =
    Router::removeLiquidityETHWithPermitCall::SELECTOR;
/// `removeLiquidityETHSupportingFeeOnTransferTokens(address,uint256,uint256,uint256,address,uint256)`
pub const REMOVE_LIQUIDITY_ETH_FOT: [u8; 4] =
    Router::removeLiquidityETHSupportingFeeOnTransferTokensCall::SELECTOR;
/// `removeLiquidityETHWithPermitSupportingFeeOnTransferTokens(address,uint256,uint256,uint256,address,uint256,bool,uint8,bytes32,bytes32)`
pub const REMOVE_LIQUIDITY_ETH_WITH_PERMIT_FOT: [u8; 4] =
    Router::removeLiquidityETHWithPermitSupportingFeeOnTransferTokensCall::SELECTOR;

/// Every selector [`decode_call`](super::decode_call) decodes, in the order above.
pub const ALL: [[u8; 4]; 25] = [
    TRANSFER,
    APPROVE,
    TRANSFER_FROM,
    INCREASE_ALLOWANCE,
    DECREASE_ALLOWANCE,
    PERMIT,
    WETH_DEPOSIT,
    WETH_WITHDRAW,
    SWAP_EXACT_TOKENS_FOR_TOKENS,
    SWAP_TOKENS_FOR_EXACT_TOKENS,
    SWAP_EXACT_ETH_FOR_TOKENS,
    SWAP_TOKENS_FOR_EXACT_ETH,
    SWAP_EXACT_TOKENS_FOR_ETH,
    SWAP_ETH_FOR_EXACT_TOKENS,
    SWAP_EXACT_TOKENS_FOR_TOKENS_FOT,
    SWAP_EXACT_ETH_FOR_TOKENS_FOT,
    SWAP_EXACT_TOKENS_FOR_ETH_FOT,
    ADD_LIQUIDITY,
    ADD_LIQUIDITY_ETH,
    REMOVE_LIQUIDITY,
    REMOVE_LIQUIDITY_ETH,
    REMOVE_LIQUIDITY_WITH_PERMIT,
    REMOVE_LIQUIDITY_ETH_WITH_PERMIT,
    REMOVE_LIQUIDITY_ETH_FOT,
    REMOVE_LIQUIDITY_ETH_WITH_PERMIT_FOT,
];
