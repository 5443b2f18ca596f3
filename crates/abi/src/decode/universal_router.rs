//! The Universal Router half of [`decode_call_from`](super::decode_call_from): an `execute`
//! plan that is one trade, read as one [`Swap`] from its first leg's input to its last leg's
//! output.
//!
//! The plan's recipients are placeholders the router maps: `address(1)` is the caller (who
//! called `execute`), `address(2)` the router itself. A plan is read when it is, in order:
//! - any `PERMIT2_PERMIT` commands;
//! - optionally `WRAP_ETH` of the call's whole value into the router (the trade sells ether);
//! - one or more exact-input legs (`V3_SWAP_EXACT_IN`, `V2_SWAP_EXACT_IN`): the first paid by
//!   the caller with an explicit amount, or after `WRAP_ETH` by the router with the wrapped
//!   value (or everything it holds, `CONTRACT_BALANCE`); each later one paid by the router
//!   with everything it holds of the token the leg before it left there. Or one exact-output
//!   leg (`V3_SWAP_EXACT_OUT`, `V2_SWAP_EXACT_OUT`) paid by the caller;
//! - when the last leg pays the router: optionally one `PAY_PORTION` of the output (an
//!   interface fee, at most all of it, to anyone), then one payment of the output (`SWEEP`
//!   of that token, or `UNWRAP_WETH`).
//!
//! Its minimum is the larger of the last leg's and the payment's; after a portion was paid
//! out, the payment's alone (the leg's minimum bounds the output before the fee). Its recipient
//! is where the output ends. Any other plan (a command allowed to revert, a transfer, ether
//! sent and not wrapped whole, an exact-output leg beside another leg, after `WRAP_ETH` or
//! before a portion, a position command, a later leg paid an explicit amount from the router)
//! is `Unknown`: judged by the general rules, with no calldata facts.
//!
//! A plan of `PERMIT2_PERMIT` commands and one `V4_SWAP` is read too, when its Uniswap V4
//! actions are one single-pool trade the caller pays and is paid (`v4_actions`), sending no
//! ether.

use super::{DecodeError, DecodedCall, Swap, SwapKind, name, strict, swap};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolType, sol, sol_data};

sol! {
    /// The Universal Router's entry points.
    interface IUniversalRouter {
        function execute(bytes commands, bytes[] inputs, uint256 deadline) external payable;
        function execute(bytes commands, bytes[] inputs) external payable;
    }
}

/// `ActionConstants.MSG_SENDER` (SwapRouter02's `Constants.MSG_SENDER`): the caller.
pub(super) const MSG_SENDER: Address = Address::with_last_byte(1);
/// `ActionConstants.ADDRESS_THIS` (SwapRouter02's `Constants.ADDRESS_THIS`): the router.
pub(super) const ADDRESS_THIS: Address = Address::with_last_byte(2);

/// A recipient as the Uniswap routers read it: `address(1)` is `caller`, `address(2)` the
/// `router` itself.
pub(super) fn recipient(a: Address, caller: Address, router: Address) -> Address {
    match a {
        MSG_SENDER => caller,
        ADDRESS_THIS => router,
        a => a,
    }
}
/// `ActionConstants.CONTRACT_BALANCE`: everything the router holds.
const CONTRACT_BALANCE: U256 = U256::from_limbs([0, 0, 0, 1 << 63]);
/// A whole output in basis points (`PAY_PORTION`'s `bips`).
const ALL_BIPS: U256 = U256::from_limbs([10_000, 0, 0, 0]);

/// The command bytes read (`Commands.sol`).
const V3_SWAP_EXACT_IN: u8 = 0x00;
const V3_SWAP_EXACT_OUT: u8 = 0x01;
const SWEEP: u8 = 0x04;
const PAY_PORTION: u8 = 0x06;
const V2_SWAP_EXACT_IN: u8 = 0x08;
const V2_SWAP_EXACT_OUT: u8 = 0x09;
const PERMIT2_PERMIT: u8 = 0x0a;
const WRAP_ETH: u8 = 0x0b;
const UNWRAP_WETH: u8 = 0x0c;
const V4_SWAP: u8 = 0x10;
/// A command's type bits; the top bit lets it fail without reverting the plan.
const COMMAND_TYPE: u8 = 0x3f;

/// A V3 leg: `(recipient, amount, limit, path, payerIsUser)`.
type V3Leg = (
    sol_data::Address,
    sol_data::Uint<256>,
    sol_data::Uint<256>,
    sol_data::Bytes,
    sol_data::Bool,
);
/// A V2 leg: `(recipient, amount, limit, path, payerIsUser)`.
type V2Leg = (
    sol_data::Address,
    sol_data::Uint<256>,
    sol_data::Uint<256>,
    sol_data::Array<sol_data::Address>,
    sol_data::Bool,
);
/// `SWEEP` and `PAY_PORTION`: `(token, recipient, amountMin or bips)`.
type TokenPayment = (sol_data::Address, sol_data::Address, sol_data::Uint<256>);
/// `WRAP_ETH` and `UNWRAP_WETH`: `(recipient, amount)`.
type EthPayment = (sol_data::Address, sol_data::Uint<256>);

/// One leg, its path from input to output.
struct Leg {
    recipient: Address,
    /// The input (exact input) or the output (exact output).
    amount: U256,
    /// The minimum output (exact input) or the maximum input (exact output).
    limit: U256,
    path: Vec<Address>,
    payer_is_user: bool,
    exact_out: bool,
}

impl Leg {
    /// Decodes a leg of swap command `command` from `input`.
    fn decode(command: u8, input: &[u8], function: &'static str) -> Result<Self, DecodeError> {
        let bad = |_| DecodeError::BadArguments { function };
        let exact_out = matches!(command, V3_SWAP_EXACT_OUT | V2_SWAP_EXACT_OUT);
        let (recipient, amount, limit, path, payer_is_user) =
            if matches!(command, V3_SWAP_EXACT_IN | V3_SWAP_EXACT_OUT) {
                let (recipient, amount, limit, path, payer) =
                    <V3Leg as SolType>::abi_decode_params_validate(input).map_err(bad)?;
                let mut path = super::v3_router::tokens_of(&path, function)?;
                // An exact-output V3 path is written from the output back to the input.
                if exact_out {
                    path.reverse();
                }
                (recipient, amount, limit, path, payer)
            } else {
                let (recipient, amount, limit, path, payer) =
                    <V2Leg as SolType>::abi_decode_params_validate(input).map_err(bad)?;
                if path.len() < 2 {
                    return Err(DecodeError::ShortPath { function });
                }
                (recipient, amount, limit, path, payer)
            };
        Ok(Self {
            recipient,
            amount,
            limit,
            path,
            payer_is_user,
            exact_out,
        })
    }

    fn output(&self) -> Address {
        self.path[self.path.len() - 1]
    }
}

/// What a plan's commands came to, before its legs are chained.
#[derive(Default)]
struct Plan {
    /// `WRAP_ETH` of the whole value into the router.
    wrapped: bool,
    legs: Vec<Leg>,
    /// A `PAY_PORTION` of the output.
    portion: bool,
    /// The output's payment: recipient, minimum, as ether.
    payout: Option<(Address, U256, bool)>,
}

impl Plan {
    /// Reads `commands` with their `inputs` for a call sending `value`; `None` for a plan that
    /// is not one trade.
    fn read(
        commands: &[u8],
        inputs: &[Bytes],
        value: U256,
        function: &'static str,
    ) -> Result<Option<Self>, DecodeError> {
        let bad = |_| DecodeError::BadArguments { function };
        let mut p = Self::default();
        for (&command, input) in commands.iter().zip(inputs) {
            if command & !COMMAND_TYPE != 0 || p.payout.is_some() {
                return Ok(None);
            }
            let output = p.legs.last().map(Leg::output);
            match command & COMMAND_TYPE {
                PERMIT2_PERMIT if p.legs.is_empty() && !p.wrapped => {}
                WRAP_ETH if p.legs.is_empty() && !p.wrapped => {
                    let (recipient, amount) =
                        <EthPayment as SolType>::abi_decode_params_validate(input).map_err(bad)?;
                    let whole = amount == CONTRACT_BALANCE || amount == value;
                    if recipient != ADDRESS_THIS || !whole || value.is_zero() {
                        return Ok(None);
                    }
                    p.wrapped = true;
                }
                c @ (V3_SWAP_EXACT_IN | V2_SWAP_EXACT_IN | V3_SWAP_EXACT_OUT
                | V2_SWAP_EXACT_OUT)
                    if !p.portion =>
                {
                    p.legs.push(Leg::decode(c, input, function)?);
                }
                PAY_PORTION if !p.legs.is_empty() && !p.portion => {
                    let (token, _, bips) =
                        <TokenPayment as SolType>::abi_decode_params_validate(input)
                            .map_err(bad)?;
                    if Some(token) != output || bips > ALL_BIPS {
                        return Ok(None);
                    }
                    p.portion = true;
                }
                SWEEP if !p.legs.is_empty() => {
                    let (token, recipient, min) =
                        <TokenPayment as SolType>::abi_decode_params_validate(input)
                            .map_err(bad)?;
                    if Some(token) != output {
                        return Ok(None);
                    }
                    p.payout = Some((recipient, min, false));
                }
                UNWRAP_WETH if !p.legs.is_empty() => {
                    let (recipient, min) =
                        <EthPayment as SolType>::abi_decode_params_validate(input).map_err(bad)?;
                    p.payout = Some((recipient, min, true));
                }
                _ => return Ok(None),
            }
        }
        // Ether sent and not wrapped stays in the router; a portion paid out with nothing
        // after it leaves the rest there.
        if (!value.is_zero() && !p.wrapped) || (p.portion && p.payout.is_none()) {
            return Ok(None);
        }
        Ok(Some(p))
    }
}

/// The commands of a Universal Router `execute` call that the decoder does not read, in plan
/// order, as their bytes (flag included): any command outside those listed in the module docs,
/// and any command allowed to revert, and a `V4_SWAP` unless the plan is the one V4 trade read
/// (its permits and that command, sending no ether). Empty when every command is one it reads
/// (a plan of V2 and V3 legs may still not be one trade); `None` for a call that is not
/// `execute` or does not decode. For a call sending no ether; [`super::unread`] knows the value.
pub fn unread_commands(data: &[u8]) -> Option<Vec<u8>> {
    unread_commands_sent(data, U256::ZERO)
}

/// [`unread_commands`] of a call sending `value` wei.
pub(super) fn unread_commands_sent(data: &[u8], value: U256) -> Option<Vec<u8>> {
    let (commands, inputs) = match data.get(..4)? {
        s if s == IUniversalRouter::execute_0Call::SELECTOR => {
            let c = IUniversalRouter::execute_0Call::abi_decode_validate(data).ok()?;
            (c.commands, c.inputs)
        }
        s if s == IUniversalRouter::execute_1Call::SELECTOR => {
            let c = IUniversalRouter::execute_1Call::abi_decode_validate(data).ok()?;
            (c.commands, c.inputs)
        }
        _ => return None,
    };
    let read = [
        V3_SWAP_EXACT_IN,
        V3_SWAP_EXACT_OUT,
        SWEEP,
        PAY_PORTION,
        V2_SWAP_EXACT_IN,
        V2_SWAP_EXACT_OUT,
        PERMIT2_PERMIT,
        WRAP_ETH,
        UNWRAP_WETH,
    ];
    let v4_read = commands.len() == inputs.len() && v4_plan(&commands, &inputs, value).is_some();
    Some(
        commands
            .iter()
            .copied()
            .filter(|&c| !(read.contains(&c) || (c == V4_SWAP && v4_read)))
            .collect(),
    )
}

/// A plan of `PERMIT2_PERMIT` commands and one `V4_SWAP` the decoder reads, sending no ether,
/// as its trade; `None` for any other plan. Actions that do not decode strictly are not read:
/// the plan stays for the policy's opaque routers, as any other V4 action list.
fn v4_plan(commands: &[u8], inputs: &[Bytes], value: U256) -> Option<super::v4_actions::V4Trade> {
    let (&V4_SWAP, permits) = commands.split_last()? else {
        return None;
    };
    if !value.is_zero() || permits.iter().any(|&c| c != PERMIT2_PERMIT) {
        return None;
    }
    super::v4_actions::read(&inputs[inputs.len() - 1]).ok()?
}

/// Decodes a call to a Universal Router `router` made by `caller`; `Unknown` for any other
/// selector or plan.
pub(super) fn decode(
    caller: Address,
    router: Address,
    value: U256,
    selector: [u8; 4],
    data: &[u8],
) -> Result<DecodedCall, DecodeError> {
    let (commands, inputs, deadline) = match selector {
        IUniversalRouter::execute_0Call::SELECTOR => {
            let c = strict::<IUniversalRouter::execute_0Call>(data)?;
            (c.commands, c.inputs, c.deadline)
        }
        IUniversalRouter::execute_1Call::SELECTOR => {
            let c = strict::<IUniversalRouter::execute_1Call>(data)?;
            (c.commands, c.inputs, U256::MAX)
        }
        _ => return Ok(DecodedCall::Unknown),
    };
    let function = name::<IUniversalRouter::execute_0Call>();
    if commands.len() != inputs.len() {
        // The router reverts (`LengthMismatch`).
        return Err(DecodeError::BadArguments { function });
    }
    if let Some(trade) = v4_plan(&commands, &inputs, value) {
        let eth_out = trade.path[trade.path.len() - 1].is_zero();
        return swap::<IUniversalRouter::execute_0Call>(Swap {
            router,
            kind: trade.kind,
            path: trade.path,
            // `TAKE_ALL` pays the router's caller.
            to: caller,
            deadline,
            eth_in: false,
            eth_out,
            fee_on_transfer: false,
            v4_pools: trade.pools,
        });
    }
    let Some(plan) = Plan::read(&commands, &inputs, value, function)? else {
        return Ok(DecodedCall::Unknown);
    };
    let Some((first, later)) = plan.legs.split_first() else {
        return Ok(DecodedCall::Unknown);
    };
    let exact_out = plan.legs.iter().any(|l| l.exact_out);
    if exact_out && (!later.is_empty() || plan.wrapped || plan.portion) {
        return Ok(DecodedCall::Unknown);
    }
    // The first leg: the caller pays an explicit amount, or the router pays the wrapped value.
    let paid = if plan.wrapped {
        !first.payer_is_user && (first.amount == CONTRACT_BALANCE || first.amount == value)
    } else {
        first.payer_is_user && first.amount != CONTRACT_BALANCE
    };
    if !paid {
        return Ok(DecodedCall::Unknown);
    }
    let mut path = first.path.clone();
    let mut previous = first;
    for leg in later {
        let chained = previous.recipient == ADDRESS_THIS
            && !leg.payer_is_user
            && leg.amount == CONTRACT_BALANCE
            && leg.path[0] == path[path.len() - 1];
        if !chained {
            return Ok(DecodedCall::Unknown);
        }
        path.extend_from_slice(&leg.path[1..]);
        previous = leg;
    }
    let last = previous;
    let map = |a: Address| recipient(a, caller, router);
    // The leg's own minimum (exact input) bounds what reached the router before a portion.
    let leg_min = if last.exact_out {
        U256::ZERO
    } else {
        last.limit
    };
    let (to, min_out, eth_out) = match plan.payout {
        Some((recipient, min, eth)) if last.recipient == ADDRESS_THIS => {
            let min = if plan.portion { min } else { leg_min.max(min) };
            (map(recipient), min, eth)
        }
        // A payment after a leg that paid out already pays what the router held before.
        Some(_) => return Ok(DecodedCall::Unknown),
        None => (map(last.recipient), leg_min, false),
    };
    let kind = if last.exact_out {
        SwapKind::ExactOut {
            amount_out: last.amount,
            max_in: last.limit,
        }
    } else {
        SwapKind::ExactIn {
            amount_in: if plan.wrapped { value } else { first.amount },
            min_out,
        }
    };
    swap::<IUniversalRouter::execute_0Call>(Swap {
        router,
        kind,
        path,
        to,
        deadline,
        eth_in: plan.wrapped,
        eth_out,
        fee_on_transfer: false,
        v4_pools: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
