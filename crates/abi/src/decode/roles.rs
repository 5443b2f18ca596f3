//! What a verifier judges in a decoded call: who receives value, which minimums bound the
//! result, and which allowance changes.

use super::{DecodedCall, SwapKind};
use alloy_primitives::{Address, U256};

/// Why a call names an address as the receiver of value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecipientRole {
    /// `to` of an ERC-20 `transfer` / `transferFrom`: receives the tokens.
    Transfer,
    /// `to` of a router swap: receives the output (tokens, or ether when `eth_out`).
    SwapOutput,
    /// `to` of `addLiquidity*`: receives the minted LP tokens.
    LiquidityShares,
    /// `to` of `removeLiquidity*`: receives both withdrawn sides (a token and ether for the
    /// ether variants).
    LiquidityWithdrawal,
}

impl RecipientRole {
    /// A stable lowercase name for messages: `transfer`, `swap output`, `liquidity shares`,
    /// `liquidity withdrawal`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Transfer => "transfer",
            Self::SwapOutput => "swap output",
            Self::LiquidityShares => "liquidity shares",
            Self::LiquidityWithdrawal => "liquidity withdrawal",
        }
    }
}

/// An address a call names as the receiver of value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Recipient {
    /// The receiver.
    pub to: Address,
    /// What it receives.
    pub role: RecipientRole,
}

/// What a minimum bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MinimumRole {
    /// `amountOutMin` of an exact-input swap: the least output `to` receives.
    SwapOutput,
    /// `amountAMin` / `amountBMin` (`amountTokenMin` / `amountETHMin`) of `addLiquidity*`: the
    /// least of one side the router deposits into the pair.
    LiquidityDeposit,
    /// `amountAMin` / `amountBMin` (`amountTokenMin` / `amountETHMin`) of `removeLiquidity*`:
    /// the least of one side the pair pays out.
    LiquidityWithdrawal,
}

/// One minimum-amount argument: the call reverts if less than `min` of `token` results.
///
/// Minimums count as slippage: against the simulated amount of the same token and role, the
/// tolerance the calldata leaves open is `(simulated - min) / simulated` (all of it when
/// `min` is zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Minimum {
    /// The token bounded; `Address::ZERO` (the `pace_types::ETH` sentinel) for ether: an
    /// ether-out swap, or side B of an ether liquidity call.
    pub token: Address,
    /// The least amount accepted.
    pub min: U256,
    /// What the amount is.
    pub role: MinimumRole,
}

/// How a call changes an allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AllowanceDelta {
    /// Set to the amount (`approve`, `permit`).
    Set(U256),
    /// Grow by the amount (`increaseAllowance`); the result depends on the current allowance.
    Increase(U256),
    /// Shrink by the amount (`decreaseAllowance`); the token reverts below zero.
    Decrease(U256),
}

/// An ERC-20 allowance a call changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AllowanceChange {
    /// The token (the call's target).
    pub token: Address,
    /// Whose allowance: `None` for the caller (`approve`, `increaseAllowance`,
    /// `decreaseAllowance`), `Some(owner)` for a `permit`, which anyone may submit for its
    /// signer.
    pub owner: Option<Address>,
    /// The spender.
    pub spender: Address,
    /// The change.
    pub delta: AllowanceDelta,
}

impl DecodedCall {
    /// Every address the call names as the receiver of value: the `to` of a transfer, a
    /// swap or a liquidity call. A verifier requires each to be the account or an allowed
    /// payee.
    ///
    /// Not listed, because the calldata names no one: WETH `deposit` / `withdraw` credit the
    /// caller, and the router refunds unused ether (`swapETHForExactTokens`,
    /// `addLiquidityETH`) to the caller. Spenders are not recipients; see
    /// [`allowance_change`](Self::allowance_change) and [`RemoveLiquidity`]'s `permit`.
    ///
    /// [`RemoveLiquidity`]: DecodedCall::RemoveLiquidity
    pub fn recipients(&self) -> Vec<Recipient> {
        let (to, role) = match self {
            Self::Transfer { to, .. } | Self::TransferFrom { to, .. } => {
                (*to, RecipientRole::Transfer)
            }
            Self::Swap(swap) => (swap.to, RecipientRole::SwapOutput),
            Self::AddLiquidity { to, .. } => (*to, RecipientRole::LiquidityShares),
            Self::RemoveLiquidity { to, .. } => (*to, RecipientRole::LiquidityWithdrawal),
            Self::PlainTransfer
            | Self::Approve { .. }
            | Self::IncreaseAllowance { .. }
            | Self::DecreaseAllowance { .. }
            | Self::Permit { .. }
            | Self::WethDeposit { .. }
            | Self::WethWithdraw { .. }
            | Self::Unknown => return Vec::new(),
        };
        vec![Recipient { to, role }]
    }

    /// Every minimum-amount argument of the call, zero minimums included (they leave all of
    /// the amount open): an exact-input swap's `min_out` on its output token (ether when
    /// `eth_out`), and both sides' minimums of a liquidity call (side B is ether when `eth`).
    ///
    /// An exact-output swap has no minimum: its bound is the maximum input
    /// ([`Swap::max_input`](super::Swap::max_input)), judged as `(max - simulated) /
    /// simulated` instead.
    pub fn minimums(&self) -> Vec<Minimum> {
        match self {
            Self::Swap(swap) => match swap.kind {
                SwapKind::ExactIn { min_out, .. } => vec![Minimum {
                    token: if swap.eth_out {
                        Address::ZERO
                    } else {
                        swap.token_out()
                    },
                    min: min_out,
                    role: MinimumRole::SwapOutput,
                }],
                SwapKind::ExactOut { .. } => Vec::new(),
            },
            Self::AddLiquidity {
                token_a,
                token_b,
                amount_a_min,
                amount_b_min,
                ..
            } => pair(
                (*token_a, *amount_a_min),
                (*token_b, *amount_b_min),
                MinimumRole::LiquidityDeposit,
            ),
            Self::RemoveLiquidity {
                token_a,
                token_b,
                amount_a_min,
                amount_b_min,
                ..
            } => pair(
                (*token_a, *amount_a_min),
                (*token_b, *amount_b_min),
                MinimumRole::LiquidityWithdrawal,
            ),
            _ => Vec::new(),
        }
    }

    /// The ERC-20 allowance the call changes, if it is `approve`, `increaseAllowance`,
    /// `decreaseAllowance` or `permit`.
    ///
    /// The permit inside `removeLiquidity*WithPermit` is not listed: it is on the pair's LP
    /// token, which a pure decoder cannot name; it is in [`RemoveLiquidity`]'s `permit`.
    ///
    /// [`RemoveLiquidity`]: DecodedCall::RemoveLiquidity
    pub fn allowance_change(&self) -> Option<AllowanceChange> {
        let (token, owner, spender, delta) = match *self {
            Self::Approve {
                token,
                spender,
                amount,
            } => (token, None, spender, AllowanceDelta::Set(amount)),
            Self::IncreaseAllowance {
                token,
                spender,
                added,
            } => (token, None, spender, AllowanceDelta::Increase(added)),
            Self::DecreaseAllowance {
                token,
                spender,
                subtracted,
            } => (token, None, spender, AllowanceDelta::Decrease(subtracted)),
            Self::Permit {
                token,
                owner,
                spender,
                value,
                ..
            } => (token, Some(owner), spender, AllowanceDelta::Set(value)),
            _ => return None,
        };
        Some(AllowanceChange {
            token,
            owner,
            spender,
            delta,
        })
    }
}

fn pair(a: (Address, U256), b: (Address, U256), role: MinimumRole) -> Vec<Minimum> {
    let minimum = |(token, min)| Minimum { token, min, role };
    vec![minimum(a), minimum(b)]
}
