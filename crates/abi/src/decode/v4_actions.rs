//! A Universal Router `V4_SWAP` command: Uniswap V4's router actions, read as one trade when
//! they are one single-pool swap action (`SWAP_EXACT_IN_SINGLE` or `SWAP_EXACT_OUT_SINGLE`,
//! with an explicit amount), `SETTLE_ALL` of its input and `TAKE_ALL` of its output, in either
//! order ([`read`]).
//!
//! Multi-hop actions (`SWAP_EXACT_IN`, `SWAP_EXACT_OUT`) are not read: their parameters differ
//! between `V4Router` versions (v4-periphery 1.x encodes `(currency, path, amount, limit)`, 2.x
//! adds `uint256[] maxHopSlippage` after the path, and the Universal Router 2.1 runs the
//! latter), and calldata cannot say which one the router runs. Read the wrong way, the amount
//! and the minimum come from other words.
//!
//! As `V4Router` runs them (the single-pool parameters are the same in v4-periphery 1.x and 2.x):
//! `SETTLE_ALL(currency, maxAmount)` pays the pool manager everything the swap owes in
//! `currency`, from the caller through Permit2, at most `maxAmount`; `TAKE_ALL(currency,
//! minAmount)` pays the caller everything the swap is owed in `currency`, at least
//! `minAmount`. The trade's recipient is therefore the caller, its minimum the larger of the
//! swap's `amountOutMinimum` and `TAKE_ALL`'s, its maximum input the smaller of the swap's
//! `amountInMaximum` and `SETTLE_ALL`'s. Either currency may be ether (`Address::ZERO`, V4's
//! native currency): settled from what the call sent the router, so the Universal Router half
//! reads an ether input only for an exact input the call sends exactly (what is left unsettled
//! stays in the router for anyone to sweep). Every other action list (`SETTLE`, `TAKE` to a recipient, `TAKE_PORTION`,
//! positions, an open-delta amount) is not read: the command stays unread
//! ([`super::unread`]).
//!
//! The pool is named by id, `keccak256(abi.encode(PoolKey))`, so the simulator measures the
//! pool the calldata names and no other.
//!
//! The router decodes these parameters with its own calldata decoder, which reads canonical
//! ABI encodings as the ABI does; they are decoded strictly here, so a non-canonical encoding
//! is not read (never read another way).

use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_sol_types::{SolType, SolValue, sol, sol_data};

use super::SwapKind;

sol! {
    /// A V4 pool (`PoolKey`): its currencies sorted, fee, tick spacing and hooks.
    struct PoolKey {
        address currency0;
        address currency1;
        uint24 fee;
        int24 tickSpacing;
        address hooks;
    }
    /// `IV4Router.ExactInputSingleParams` (and, read the same way, `ExactOutputSingleParams`:
    /// `amountOut`, `amountInMaximum`).
    struct SingleParams {
        PoolKey poolKey;
        bool zeroForOne;
        uint128 amount;
        uint128 limit;
        bytes hookData;
    }
}

/// `Actions` of `@uniswap/v4-periphery` (the same in 1.x and 2.x).
const SWAP_EXACT_IN_SINGLE: u8 = 0x06;
const SWAP_EXACT_OUT_SINGLE: u8 = 0x08;
const SETTLE_ALL: u8 = 0x0c;
const TAKE_ALL: u8 = 0x0f;

/// The `V4_SWAP` command's input: `abi.encode(bytes actions, bytes[] params)`.
type Actions = (sol_data::Bytes, sol_data::Array<sol_data::Bytes>);
/// `SETTLE_ALL` and `TAKE_ALL`: `(currency, amount)`.
type CurrencyAmount = (sol_data::Address, sol_data::Uint<256>);

/// A `V4_SWAP` read as one trade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct V4Trade {
    /// Exact input or output, with the bounds of the swap and the settlement together.
    pub(super) kind: SwapKind,
    /// The two currencies in trade order; `Address::ZERO` is native ether.
    pub(super) path: Vec<Address>,
    /// The pool, by id (one hop).
    pub(super) pools: Vec<B256>,
}

/// One swap action as read.
struct SwapAction {
    exact_out: bool,
    /// The exact input, or the exact output.
    amount: U256,
    /// The swap's own minimum output, or maximum input.
    limit: U256,
    /// The two currencies in trade order.
    path: Vec<Address>,
    /// The pool, by id.
    pools: Vec<B256>,
}

/// One single-pool swap action; `Ok(None)` for another action or an open-delta amount (zero:
/// whatever an earlier action left).
fn swap_action(action: u8, params: &[u8]) -> Result<Option<SwapAction>, ()> {
    let exact_out = action == SWAP_EXACT_OUT_SINGLE;
    if !matches!(action, SWAP_EXACT_IN_SINGLE | SWAP_EXACT_OUT_SINGLE) {
        return Ok(None);
    }
    let p = <SingleParams as SolType>::abi_decode_validate(params).map_err(|_| ())?;
    let k = &p.poolKey;
    // zeroForOne sells currency0 for currency1.
    let path = if p.zeroForOne {
        vec![k.currency0, k.currency1]
    } else {
        vec![k.currency1, k.currency0]
    };
    let (amount, limit, pools) = (p.amount, p.limit, vec![keccak256(k.abi_encode())]);
    if amount == 0 {
        return Ok(None);
    }
    Ok(Some(SwapAction {
        exact_out,
        amount: U256::from(amount),
        limit: U256::from(limit),
        path,
        pools,
    }))
}

/// Reads a `V4_SWAP` command's `input` (see the module docs): `Ok(None)` for an action list
/// that is not one trade paid by and to the caller, `Err(())` for parameters that do not
/// decode strictly.
pub(super) fn read(input: &[u8]) -> Result<Option<V4Trade>, ()> {
    let (actions, params) =
        <Actions as SolType>::abi_decode_params_validate(input).map_err(|_| ())?;
    if actions.len() != 3 || params.len() != 3 {
        return Ok(None);
    }
    let Some(SwapAction {
        exact_out,
        amount,
        limit,
        path,
        pools,
    }) = swap_action(actions[0], &params[0])?
    else {
        return Ok(None);
    };
    let (input_currency, output) = (path[0], path[path.len() - 1]);
    if input_currency == output {
        return Ok(None);
    }
    let mut settled = None;
    let mut taken = None;
    for (&action, p) in actions[1..].iter().zip(&params[1..]) {
        let (currency, amount) =
            <CurrencyAmount as SolType>::abi_decode_params_validate(p).map_err(|_| ())?;
        match action {
            SETTLE_ALL if settled.is_none() && currency == input_currency => settled = Some(amount),
            TAKE_ALL if taken.is_none() && currency == output => taken = Some(amount),
            _ => return Ok(None),
        }
    }
    let (Some(most_paid), Some(least_taken)) = (settled, taken) else {
        return Ok(None);
    };
    let kind = if exact_out {
        SwapKind::ExactOut {
            amount_out: amount,
            max_in: limit.min(most_paid),
        }
    } else {
        SwapKind::ExactIn {
            amount_in: amount,
            min_out: limit.max(least_taken),
        }
    };
    Ok(Some(V4Trade { kind, path, pools }))
}

#[cfg(test)]
#[path = "v4_actions/tests.rs"]
mod tests;
