//! Strict calldata decoding for the calls the trusted path understands.
//!
//! Decoded calls are *derived facts*: trusted code reading the exact bytes that will execute.
//! Known functions:
//!
//! - ERC-20 `transfer`, `approve`, `transferFrom`, `increaseAllowance`, `decreaseAllowance`,
//!   and EIP-2612 `permit`;
//! - WETH9 `deposit` and `withdraw`;
//! - every state-changing function of Uniswap V2 Router02: the nine swaps (including the three
//!   `SupportingFeeOnTransferTokens` variants), `addLiquidity` / `addLiquidityETH` and the six
//!   `removeLiquidity*` variants (ether, permit and fee-on-transfer);
//! - Uniswap V3 SwapRouter's four swaps (`exactInputSingle`, `exactInput`,
//!   `exactOutputSingle`, `exactOutput`), read as the same [`Swap`] with the packed path's
//!   tokens, and its `multicall` of one swap and the payment of its output (`sweepToken`,
//!   `unwrapWETH9`, then `refundETH`). Other batches are not decoded;
//! - with the caller known ([`decode_call_from`]), SwapRouter02's four V3 swaps and two V2
//!   swaps (whose recipient `address(1)` is the caller), alone or in any of its three
//!   `multicall`s with the payment of their output;
//! - with the caller known ([`decode_call_from`]), a Universal Router `execute` plan that is
//!   one exact-input trade (V3 and V2 legs chained through the router, then at most one
//!   `SWEEP` or `UNWRAP_WETH` of its output), as one [`Swap`];
//! - with the caller known ([`decode_call_from`]), a Balancer V2 Vault `swap`, or a `batchSwap`
//!   whose steps are one route, paid from and to the caller's own token balances, as one
//!   [`Swap`] (the shapes it does not read are named by [`unread`]).
//!
//! Arguments are decoded strictly: dirty high bits (an address, `bool` or `uint8` word with
//! bits set outside its type), short data and offsets or lengths that point outside the data
//! are errors. An in-bounds offset is followed exactly as the Solidity decoder follows it, so
//! the decoded values are the ones the contract reads. Any other selector decodes to
//! [`DecodedCall::Unknown`]: it is judged by the policy's allowlists and the simulation, but
//! contributes no decoded facts.
//!
//! A selector says nothing about the target's code: ERC-721 `approve` / `transferFrom` share
//! ERC-20's selectors and decode as [`DecodedCall::Approve`] / [`DecodedCall::TransferFrom`]
//! (the amount is then a token id). What tells an `approve` apart is, first, the kind the
//! policy declares for the target, then the state after the call (`getApproved(id)` naming the
//! spender, against `allowance(owner, spender)`); while it stays ambiguous both readings are
//! judged. ERC-165 decides nothing: a crafted token answers it either way.
//!
//! [`rights::decode_rights`] reads the rights a call grants outside ERC-20 allowances (Permit2
//! allowances, credit delegation).
//!
//! [`DecodedCall::recipients`], [`DecodedCall::minimums`] and
//! [`DecodedCall::allowance_change`] list what a verifier judges: who receives value, which
//! minimums bound the result, and which allowance changes.

use crate::bindings::{IERC20, IERC20Permit, IWETH9};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;

mod balancer;
pub mod rights;
mod roles;
mod route;
mod router;
mod router_batch;
pub mod selectors;
mod swap_router02;
pub mod typed_data;
mod universal_router;
mod unread;
mod v3_router;
mod v4_actions;

pub use roles::{AllowanceChange, AllowanceDelta, Minimum, MinimumRole, Recipient, RecipientRole};
pub use route::{Route, RoutePool};
pub use router_batch::unread_calls as unread_batch_calls;
pub use universal_router::unread_commands as unread_plan_commands;
pub use unread::{Unread, unread};

/// What a call does, as far as its calldata says.
///
/// "The caller" below is whoever sends the call: for a PACE intent, the account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodedCall {
    /// Empty calldata: a plain ether transfer to the target.
    PlainTransfer,
    /// ERC-20 `transfer(to, value)` on the target token.
    Transfer {
        /// The token (the call's target).
        token: Address,
        /// The recipient.
        to: Address,
        /// The amount.
        amount: U256,
    },
    /// ERC-20 `approve(spender, value)` on the target token: sets the caller's allowance.
    Approve {
        /// The token (the call's target).
        token: Address,
        /// The spender.
        spender: Address,
        /// The new allowance.
        amount: U256,
    },
    /// ERC-20 `transferFrom(from, to, value)` on the target token.
    TransferFrom {
        /// The token (the call's target).
        token: Address,
        /// Whose tokens move.
        from: Address,
        /// The recipient.
        to: Address,
        /// The amount.
        amount: U256,
    },
    /// `increaseAllowance(spender, addedValue)` on the target token: the caller's allowance
    /// grows by `added` (what it grows from is on-chain state, not calldata).
    IncreaseAllowance {
        /// The token (the call's target).
        token: Address,
        /// The spender.
        spender: Address,
        /// The increase.
        added: U256,
    },
    /// `decreaseAllowance(spender, subtractedValue)` on the target token: the caller's
    /// allowance shrinks by `subtracted` (the token reverts below zero).
    DecreaseAllowance {
        /// The token (the call's target).
        token: Address,
        /// The spender.
        spender: Address,
        /// The decrease.
        subtracted: U256,
    },
    /// EIP-2612 `permit(owner, spender, value, deadline, v, r, s)` on the target token: sets
    /// `owner`'s allowance to `value` on `owner`'s signature. Anyone may submit it, so `owner`
    /// need not be the caller. The signature itself (`v`, `r`, `s`) is checked by the token
    /// and not kept.
    Permit {
        /// The token (the call's target).
        token: Address,
        /// Whose allowance is set (the signer).
        owner: Address,
        /// The spender.
        spender: Address,
        /// The new allowance.
        value: U256,
        /// The permit's deadline.
        deadline: U256,
    },
    /// WETH9 `deposit()`: wraps the call's value into WETH credited to the caller.
    WethDeposit {
        /// The WETH contract (the call's target).
        token: Address,
        /// The ether wrapped: the call's value.
        amount: U256,
    },
    /// WETH9 `withdraw(wad)`: burns the caller's WETH and sends the ether to the caller.
    WethWithdraw {
        /// The WETH contract (the call's target).
        token: Address,
        /// The amount unwrapped.
        amount: U256,
    },
    /// A swap: any of Uniswap V2 Router02's nine, V3 SwapRouter's four or SwapRouter02's six,
    /// a router batch of one swap and its payment, a Universal Router plan that is one trade,
    /// or a Balancer V2 Vault swap that is one route.
    Swap(Swap),
    /// Router02 `addLiquidity` or `addLiquidityETH`: the router pulls up to the desired amounts
    /// from the caller into the pair, and mints the LP tokens to `to`.
    ///
    /// For `addLiquidityETH` (`eth`), side B is ether: `token_b` is `Address::ZERO` (the
    /// router's WETH, which a pure decoder cannot know), `amount_b_desired` is the call's value
    /// and `amount_b_min` is `amountETHMin`. Unused ether is refunded to the caller, not `to`.
    AddLiquidity {
        /// The router (the call's target).
        router: Address,
        /// Token A (`token` for `addLiquidityETH`).
        token_a: Address,
        /// Token B; `Address::ZERO` for ether.
        token_b: Address,
        /// The most of A deposited.
        amount_a_desired: U256,
        /// The most of B deposited (the call's value for ether).
        amount_b_desired: U256,
        /// The least of A deposited, or the call reverts.
        amount_a_min: U256,
        /// The least of B deposited, or the call reverts.
        amount_b_min: U256,
        /// Who receives the LP tokens.
        to: Address,
        /// The router's deadline argument.
        deadline: U256,
        /// `addLiquidityETH`: side B is ether.
        eth: bool,
    },
    /// Router02 `removeLiquidity*` (six variants): the router moves `liquidity` LP tokens from
    /// the caller to the pair, burns them and pays both sides to `to`.
    ///
    /// The LP token is the pair of (`token_a`, `token_b`), which a pure decoder cannot derive
    /// (it depends on the router's factory). For the ether variants (`eth`), side B is ether:
    /// `token_b` is `Address::ZERO` and `amount_b_min` is `amountETHMin`.
    RemoveLiquidity {
        /// The router (the call's target).
        router: Address,
        /// Token A (`token` for the ether variants).
        token_a: Address,
        /// Token B; `Address::ZERO` for ether.
        token_b: Address,
        /// LP tokens burned.
        liquidity: U256,
        /// The least of A paid out, or the call reverts.
        amount_a_min: U256,
        /// The least of B (or ether) paid out, or the call reverts.
        amount_b_min: U256,
        /// Who receives both sides.
        to: Address,
        /// The router's deadline argument (also the permit's).
        deadline: U256,
        /// An ether variant: side B is paid out as ether.
        eth: bool,
        /// A `SupportingFeeOnTransferTokens` variant: the router forwards its whole balance
        /// of `token_a`, so `to` may receive less than `amount_a_min` after the token's fee
        /// (the minimum is checked on what the pair pays the router).
        fee_on_transfer: bool,
        /// A `WithPermit` variant: the LP allowance the caller signs over to the router.
        permit: Option<PermitArgs>,
    },
    /// A selector the decoder does not know.
    Unknown,
}

/// The EIP-2612 permit a `removeLiquidity*WithPermit` call makes the pair execute: the caller
/// (owner) lets the router (spender) move its LP tokens, in the same call, with the same
/// deadline. The signature (`v`, `r`, `s`) is checked by the pair and not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermitArgs {
    /// The `approveMax` flag: the allowance signed is `type(uint256).max`, which a Uniswap V2
    /// pair never decreases, so the router keeps an unlimited LP allowance after the call.
    pub approve_max: bool,
    /// The allowance signed: `U256::MAX` when `approve_max`, else `liquidity`.
    pub value: U256,
}

impl PermitArgs {
    fn new(approve_max: bool, liquidity: U256) -> Self {
        Self {
            approve_max,
            value: if approve_max { U256::MAX } else { liquidity },
        }
    }
}

/// A decoded swap: Uniswap V2 Router02's, V3 SwapRouter's, SwapRouter02's or a Universal
/// Router plan's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swap {
    /// The router (the call's target).
    pub router: Address,
    /// Exact input or exact output, with the bound the caller set.
    pub kind: SwapKind,
    /// The token route; at least two tokens. For ether in or out the end is WETH, except on
    /// a Balancer V2 Vault and in a Uniswap V4 route, whose ether end is `Address::ZERO`
    /// (their own sentinel for native ether).
    pub path: Vec<Address>,
    /// Who receives the output.
    pub to: Address,
    /// The router's deadline argument.
    pub deadline: U256,
    /// The input is the call's ether value.
    pub eth_in: bool,
    /// The output is paid out as ether.
    pub eth_out: bool,
    /// A `SupportingFeeOnTransferTokens` variant (always exact input): the router measures
    /// the output as the rise of `to`'s balance of the last token (of its own WETH balance when
    /// `eth_out`), so `min_out` bounds what actually arrives after transfer fees.
    pub fee_on_transfer: bool,
    /// A Uniswap V4 route's pools, one per hop, by id (`keccak256(abi.encode(PoolKey))`);
    /// empty for every other swap.
    pub v4_pools: Vec<alloy_primitives::B256>,
    /// A Balancer V2 Vault swap that pays its output into `to`'s internal balance in the Vault
    /// (`FundManagement.toInternalBalance`) rather than in the token: the output is measured
    /// there (`getInternalBalance`). False for every other swap.
    pub to_internal: bool,
    /// A trade split across several routes from `path`'s first token to its last (a Universal
    /// Router plan's legs side by side), each with its share of the input; empty for a trade
    /// along `path` alone. When split, `path` is the first route's.
    pub routes: Vec<Route>,
}

/// The two shapes of a swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapKind {
    /// Sell exactly `amount_in`, receive at least `min_out`.
    ExactIn {
        /// Amount sold (the call's value when `eth_in`).
        amount_in: U256,
        /// Minimum accepted output.
        min_out: U256,
    },
    /// Buy exactly `amount_out`, pay at most `max_in`.
    ExactOut {
        /// Amount bought.
        amount_out: U256,
        /// Maximum accepted input (the call's value when `eth_in`; the rest is refunded).
        max_in: U256,
    },
}

impl Swap {
    /// The token sold (WETH when `eth_in`).
    pub fn token_in(&self) -> Address {
        self.path[0]
    }

    /// The token bought (WETH when `eth_out`).
    pub fn token_out(&self) -> Address {
        self.path[self.path.len() - 1]
    }

    /// Every token the trade goes through, its routes' included (with repeats).
    pub fn tokens(&self) -> impl Iterator<Item = Address> + '_ {
        self.path
            .iter()
            .chain(self.routes.iter().flat_map(|r| &r.path))
            .copied()
    }

    /// The most the swap can take from the caller (`amount_in` or `max_in`).
    pub fn max_input(&self) -> U256 {
        match self.kind {
            SwapKind::ExactIn { amount_in, .. } => amount_in,
            SwapKind::ExactOut { max_in, .. } => max_in,
        }
    }

    /// The minimum output of an exact-input swap; `None` for exact output.
    pub fn min_output(&self) -> Option<U256> {
        match self.kind {
            SwapKind::ExactIn { min_out, .. } => Some(min_out),
            SwapKind::ExactOut { .. } => None,
        }
    }
}

/// Why a call could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Calldata of 1-3 bytes: no selector, yet not a plain transfer.
    NoSelector,
    /// A known function whose arguments do not decode strictly.
    BadArguments {
        /// The function's name.
        function: &'static str,
    },
    /// A swap whose path has fewer than two tokens.
    ShortPath {
        /// The function's name.
        function: &'static str,
    },
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoSelector => f.write_str("calldata is 1-3 bytes long: no function selector"),
            Self::BadArguments { function } => write!(f, "arguments of {function} do not decode"),
            Self::ShortPath { function } => write!(f, "{function} path has fewer than two tokens"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes one call to `target` carrying `value` wei and calldata `data` (strictly; see the
/// module docs). Pure; allocates only a swap's path.
pub fn decode_call(target: Address, value: U256, data: &[u8]) -> Result<DecodedCall, DecodeError> {
    if data.is_empty() {
        return Ok(DecodedCall::PlainTransfer);
    }
    let Some(selector) = data.get(..4) else {
        return Err(DecodeError::NoSelector);
    };
    let selector = [selector[0], selector[1], selector[2], selector[3]];
    let token = target;
    let decoded = match selector {
        IERC20::transferCall::SELECTOR => {
            let c = strict::<IERC20::transferCall>(data)?;
            DecodedCall::Transfer {
                token,
                to: c.to,
                amount: c.value,
            }
        }
        IERC20::approveCall::SELECTOR => {
            let c = strict::<IERC20::approveCall>(data)?;
            DecodedCall::Approve {
                token,
                spender: c.spender,
                amount: c.value,
            }
        }
        IERC20::transferFromCall::SELECTOR => {
            let c = strict::<IERC20::transferFromCall>(data)?;
            DecodedCall::TransferFrom {
                token,
                from: c.from,
                to: c.to,
                amount: c.value,
            }
        }
        IERC20::increaseAllowanceCall::SELECTOR => {
            let c = strict::<IERC20::increaseAllowanceCall>(data)?;
            DecodedCall::IncreaseAllowance {
                token,
                spender: c.spender,
                added: c.addedValue,
            }
        }
        IERC20::decreaseAllowanceCall::SELECTOR => {
            let c = strict::<IERC20::decreaseAllowanceCall>(data)?;
            DecodedCall::DecreaseAllowance {
                token,
                spender: c.spender,
                subtracted: c.subtractedValue,
            }
        }
        IERC20Permit::permitCall::SELECTOR => {
            let c = strict::<IERC20Permit::permitCall>(data)?;
            DecodedCall::Permit {
                token,
                owner: c.owner,
                spender: c.spender,
                value: c.value,
                deadline: c.deadline,
            }
        }
        IWETH9::depositCall::SELECTOR => {
            strict::<IWETH9::depositCall>(data)?;
            DecodedCall::WethDeposit {
                token,
                amount: value,
            }
        }
        IWETH9::withdrawCall::SELECTOR => {
            let c = strict::<IWETH9::withdrawCall>(data)?;
            DecodedCall::WethWithdraw {
                token,
                amount: c.wad,
            }
        }
        selector => return router::decode(target, value, selector, data),
    };
    Ok(decoded)
}

/// The Solidity name of `C` (its signature up to the parenthesis).
/// [`decode_call`] for a call `caller` makes: what only the caller's address resolves is read
/// too, the Universal Router's plans and SwapRouter02's swaps (whose recipient `address(1)` is
/// the caller). Use it wherever the caller is known; a plan decoded without it would have no
/// recipient.
pub fn decode_call_from(
    caller: Address,
    target: Address,
    value: U256,
    data: &[u8],
) -> Result<DecodedCall, DecodeError> {
    match decode_call(target, value, data)? {
        DecodedCall::Unknown => {
            let selector = [data[0], data[1], data[2], data[3]];
            match universal_router::decode(caller, target, value, selector, data)? {
                DecodedCall::Unknown => {
                    match swap_router02::decode(caller, target, value, selector, data)? {
                        DecodedCall::Unknown => {
                            balancer::decode(caller, target, value, selector, data)
                        }
                        decoded => Ok(decoded),
                    }
                }
                decoded => Ok(decoded),
            }
        }
        decoded => Ok(decoded),
    }
}

fn name<C: SolCall>() -> &'static str {
    C::SIGNATURE
        .split_once('(')
        .map_or(C::SIGNATURE, |(name, _)| name)
}

/// Decodes `data` as a call of `C`, strictly.
fn strict<C: SolCall>(data: &[u8]) -> Result<C, DecodeError> {
    C::abi_decode_validate(data).map_err(|_| DecodeError::BadArguments {
        function: name::<C>(),
    })
}

/// A decoded swap of function `C`, if its path has at least two tokens.
fn swap<C: SolCall>(swap: Swap) -> Result<DecodedCall, DecodeError> {
    if swap.path.len() < 2 {
        return Err(DecodeError::ShortPath {
            function: name::<C>(),
        });
    }
    Ok(DecodedCall::Swap(swap))
}
