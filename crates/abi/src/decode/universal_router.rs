//! The Universal Router half of [`decode_call_from`](super::decode_call_from): an `execute`
//! plan that is one trade, read as one [`Swap`] from its legs' input to their output, along
//! one route or split across several.
//!
//! The plan's recipients are placeholders the router maps: `address(1)` is the caller (who
//! called `execute`), `address(2)` the router itself. A plan is read when it is, in order:
//! - any `PERMIT2_PERMIT` commands;
//! - optionally `WRAP_ETH` of the call's whole value into the router (the trade sells ether);
//! - one or more routes of exact-input legs (`V3_SWAP_EXACT_IN`, `V2_SWAP_EXACT_IN`), all from
//!   the same input to the same output. A route's first leg is paid by the caller with an
//!   explicit amount, or after `WRAP_ETH` by the router: explicit amounts that add up to the
//!   wrapped value, or the last route everything left (`CONTRACT_BALANCE`). Each later leg of
//!   a route is paid by the router with everything it holds of the token the leg before it
//!   left there. Or one exact-output leg (`V3_SWAP_EXACT_OUT`, `V2_SWAP_EXACT_OUT`) paid by
//!   the caller;
//! - when every route's last leg pays the router: optionally one `PAY_PORTION` of the output
//!   (an interface fee, at most all of it, to anyone), then one payment of the output (`SWEEP`
//!   of that token, `UNWRAP_WETH`, or a `TRANSFER` of everything the router holds of it,
//!   `CONTRACT_BALANCE`, which sets no minimum of its own). Otherwise every route pays the same
//!   recipient.
//!
//! Its minimum is the larger of the routes' last legs' minimums added up and the payment's;
//! after a portion was paid out, the payment's alone (the legs' minimums bound the output
//! before the fee). Its recipient is where the output ends. Any other plan (a command allowed
//! to revert, ether sent and not wrapped whole or left wrapped in the router, an
//! exact-output leg beside another leg, after `WRAP_ETH` or before a portion, a position
//! command, a later leg paid an explicit amount from the router, a `TRANSFER` of part of the
//! output or of anything else, routes between different tokens, a route that ends where another
//! is paid) is `Unknown`; when it holds a swap leg,
//! [`super::unread`] names its legs as not read as one trade.
//!
//! A plan of `PERMIT2_PERMIT` commands and one `V4_SWAP` is read too, when its Uniswap V4
//! actions are one single-pool trade the caller pays and is paid (`v4_actions`), sending no
//! ether; or, selling native ether, sending exactly an exact input, or the maximum input of an
//! exact output with a `SWEEP` of the ether left back to the caller after it.

use super::{DecodeError, DecodedCall, Route, RoutePool, Swap, SwapKind, name, strict, swap};
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
const TRANSFER: u8 = 0x05;
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
    /// Each hop's pool, as the command names it.
    pools: Vec<RoutePool>,
    payer_is_user: bool,
    exact_out: bool,
}

impl Leg {
    /// Decodes a leg of swap command `command` from `input`.
    fn decode(command: u8, input: &[u8], function: &'static str) -> Result<Self, DecodeError> {
        let bad = |_| DecodeError::BadArguments { function };
        let exact_out = matches!(command, V3_SWAP_EXACT_OUT | V2_SWAP_EXACT_OUT);
        let (recipient, amount, limit, path, pools, payer_is_user) =
            if matches!(command, V3_SWAP_EXACT_IN | V3_SWAP_EXACT_OUT) {
                let (recipient, amount, limit, packed, payer) =
                    <V3Leg as SolType>::abi_decode_params_validate(input).map_err(bad)?;
                let mut path = super::v3_router::tokens_of(&packed, function)?;
                let mut pools: Vec<RoutePool> = super::v3_router::fees_of(&packed)
                    .map(|fee| RoutePool::V3 { fee })
                    .collect();
                // An exact-output V3 path is written from the output back to the input.
                if exact_out {
                    path.reverse();
                    pools.reverse();
                }
                (recipient, amount, limit, path, pools, payer)
            } else {
                let (recipient, amount, limit, path, payer) =
                    <V2Leg as SolType>::abi_decode_params_validate(input).map_err(bad)?;
                if path.len() < 2 {
                    return Err(DecodeError::ShortPath { function });
                }
                let pools = vec![RoutePool::V2; path.len() - 1];
                (recipient, amount, limit, path, pools, payer)
            };
        Ok(Self {
            recipient,
            amount,
            limit,
            path,
            pools,
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
                // Everything the router holds of the output, with no minimum of its own.
                TRANSFER if !p.legs.is_empty() => {
                    let (token, recipient, value) =
                        <TokenPayment as SolType>::abi_decode_params_validate(input)
                            .map_err(bad)?;
                    if Some(token) != output || token.is_zero() || value != CONTRACT_BALANCE {
                        return Ok(None);
                    }
                    p.payout = Some((recipient, U256::ZERO, false));
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
/// and any command allowed to revert, a `V4_SWAP` unless the plan is the one V4 trade read
/// (its permits and that command, sending no ether), and a `TRANSFER` unless it is the payment
/// of a plan read as one trade. Empty when every command is one it reads
/// (a plan of V2 and V3 legs may still not be one trade); `None` for a call that is not
/// `execute` or does not decode. For a call sending no ether; [`super::unread`] knows the value.
pub fn unread_commands(data: &[u8]) -> Option<Vec<u8>> {
    unread_commands_sent(data, U256::ZERO)
}

/// [`unread_commands`] of a call sending `value` wei.
pub(super) fn unread_commands_sent(data: &[u8], value: U256) -> Option<Vec<u8>> {
    let (commands, inputs) = execute_args(data)?;
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
    // A `TRANSFER` is read only as the payment of a plan read as one trade (the plan reads
    // no other).
    let transfer_read = commands.contains(&TRANSFER) && one_trade(data, value);
    Some(
        commands
            .iter()
            .copied()
            .filter(|&c| {
                !(read.contains(&c)
                    || (c == V4_SWAP && v4_read)
                    || (c == TRANSFER && transfer_read))
            })
            .collect(),
    )
}

/// The commands and inputs of `execute` calldata (either form); `None` for any other call or
/// one that does not decode.
fn execute_args(data: &[u8]) -> Option<(Bytes, Vec<Bytes>)> {
    match data.get(..4)? {
        s if s == IUniversalRouter::execute_0Call::SELECTOR => {
            let c = IUniversalRouter::execute_0Call::abi_decode_validate(data).ok()?;
            Some((c.commands, c.inputs))
        }
        s if s == IUniversalRouter::execute_1Call::SELECTOR => {
            let c = IUniversalRouter::execute_1Call::abi_decode_validate(data).ok()?;
            Some((c.commands, c.inputs))
        }
        _ => None,
    }
}

/// Whether `execute` calldata `data` sending `value` wei is read as one trade.
fn one_trade(data: &[u8], value: U256) -> bool {
    let Some(selector) = data.get(..4).and_then(|s| <[u8; 4]>::try_from(s).ok()) else {
        return false;
    };
    matches!(
        decode(Address::ZERO, Address::ZERO, value, selector, data),
        Ok(DecodedCall::Swap(_))
    )
}

/// The swap legs of a Universal Router `execute` call sending `value` wei whose every command
/// the decoder reads ([`unread_commands_sent`] found none unread), in plan order, when the plan
/// is not read as one trade (legs between different tokens, paid out in pieces, leaving wrapped
/// ether behind): their minimums and recipients are not the trade's. `None` for a plan read as
/// one trade, one with no swap leg, or a call that is not `execute`.
pub(super) fn unread_legs(data: &[u8], value: U256) -> Option<Vec<u8>> {
    let legs: Vec<u8> = execute_args(data)?
        .0
        .iter()
        .copied()
        .filter(|c| {
            matches!(
                c & COMMAND_TYPE,
                V3_SWAP_EXACT_IN | V3_SWAP_EXACT_OUT | V2_SWAP_EXACT_IN | V2_SWAP_EXACT_OUT
            )
        })
        .collect();
    (!legs.is_empty() && !one_trade(data, value)).then_some(legs)
}

/// A plan of `PERMIT2_PERMIT` commands and one `V4_SWAP` the decoder reads as its trade, sending
/// no ether; `None` for any other plan. A swap selling native ether is settled from what the
/// call sent the router, so it is read when nothing of that can stay there: an exact input the
/// call sends exactly, or an exact output whose call sends its maximum input and whose plan
/// ends with a `SWEEP` of ether back to the caller (what the swap did not take). Actions that do
/// not decode strictly are not read: the plan stays for the policy's opaque routers, as any
/// other V4 action list.
fn v4_plan(commands: &[u8], inputs: &[Bytes], value: U256) -> Option<super::v4_actions::V4Trade> {
    let (swept, commands) = match commands.split_last()? {
        (&SWEEP, rest) => (Some(&inputs[rest.len()]), rest),
        _ => (None, commands),
    };
    let (&V4_SWAP, permits) = commands.split_last()? else {
        return None;
    };
    if permits.iter().any(|&c| c != PERMIT2_PERMIT) {
        return None;
    }
    let trade = super::v4_actions::read(&inputs[commands.len() - 1]).ok()??;
    let refunded = swept.is_some_and(|input| {
        <TokenPayment as SolType>::abi_decode_params_validate(input)
            .is_ok_and(|(token, to, _)| token.is_zero() && to == MSG_SENDER)
    });
    let paid = match (trade.kind, trade.path[0].is_zero()) {
        (SwapKind::ExactIn { amount_in, .. }, true) => {
            amount_in == value && (swept.is_none() || refunded)
        }
        (SwapKind::ExactOut { max_in, .. }, true) => max_in == value && refunded,
        (_, false) => value.is_zero() && swept.is_none(),
    };
    paid.then_some(trade)
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
        let eth_in = trade.path[0].is_zero();
        let eth_out = trade.path[trade.path.len() - 1].is_zero();
        return swap::<IUniversalRouter::execute_0Call>(Swap {
            router,
            kind: trade.kind,
            path: trade.path,
            // `TAKE_ALL` pays the router's caller.
            to: caller,
            deadline,
            eth_in,
            eth_out,
            fee_on_transfer: false,
            v4_pools: trade.pools,
            to_internal: false,
            routes: Vec::new(),
        });
    }
    let Some(plan) = Plan::read(&commands, &inputs, value, function)? else {
        return Ok(DecodedCall::Unknown);
    };
    if plan.legs.is_empty() {
        return Ok(DecodedCall::Unknown);
    }
    let exact_out = plan.legs.iter().any(|l| l.exact_out);
    if exact_out && (plan.legs.len() > 1 || plan.wrapped || plan.portion) {
        return Ok(DecodedCall::Unknown);
    }
    let routes = Chained::of(&plan.legs);
    let Some(amounts) = funding(&routes, plan.wrapped, value) else {
        return Ok(DecodedCall::Unknown);
    };
    let (token_in, token_out) = (routes[0].path[0], routes[0].output());
    let one_trade = routes
        .iter()
        .all(|r| r.path[0] == token_in && r.output() == token_out);
    if token_in == token_out || !one_trade {
        return Ok(DecodedCall::Unknown);
    }
    let map = |a: Address| recipient(a, caller, router);
    // Each exact-input route's own minimum bounds what it delivers; together, the sum.
    let legs_min = routes.iter().fold(U256::ZERO, |sum, r| {
        sum.saturating_add(if r.last.exact_out {
            U256::ZERO
        } else {
            r.last.limit
        })
    });
    let (to, min_out, eth_out) = match plan.payout {
        Some((recipient, min, eth)) if routes.iter().all(|r| r.last.recipient == ADDRESS_THIS) => {
            // After a portion was paid out, the payment's minimum alone bounds what arrives.
            let min = if plan.portion { min } else { legs_min.max(min) };
            (map(recipient), min, eth)
        }
        // A payment after a leg that paid out already pays what the router held before.
        Some(_) => return Ok(DecodedCall::Unknown),
        None => {
            let paid = routes[0].last.recipient;
            if routes.iter().any(|r| r.last.recipient != paid) {
                return Ok(DecodedCall::Unknown);
            }
            (map(paid), legs_min, false)
        }
    };
    let last = routes[0].last;
    let kind = if last.exact_out {
        SwapKind::ExactOut {
            amount_out: last.amount,
            max_in: last.limit,
        }
    } else {
        SwapKind::ExactIn {
            amount_in: amounts.iter().fold(U256::ZERO, |s, a| s.saturating_add(*a)),
            min_out,
        }
    };
    let split = if routes.len() > 1 {
        routes
            .iter()
            .zip(amounts)
            .map(|(r, amount_in)| Route {
                amount_in,
                path: r.path.clone(),
                pools: r.pools.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let path = routes
        .into_iter()
        .next()
        .map(|r| r.path)
        .unwrap_or_default();
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
        to_internal: false,
        routes: split,
    })
}

/// One route of a plan: legs chained through the router, from the first's input to the last's
/// output.
struct Chained<'a> {
    first: &'a Leg,
    last: &'a Leg,
    path: Vec<Address>,
    pools: Vec<RoutePool>,
}

impl<'a> Chained<'a> {
    /// The plan's legs as routes: a leg continues the route before it when it is paid by the
    /// router with everything it holds (`CONTRACT_BALANCE`) of the token that route's last leg
    /// left there; any other leg starts a route (whether it may is [`funding`]'s question).
    fn of(legs: &'a [Leg]) -> Vec<Self> {
        let mut routes: Vec<Self> = Vec::new();
        for leg in legs {
            if let Some(route) = routes.last_mut() {
                let chained = route.last.recipient == ADDRESS_THIS
                    && !leg.payer_is_user
                    && leg.amount == CONTRACT_BALANCE
                    && leg.path[0] == route.output();
                if chained {
                    route.path.extend_from_slice(&leg.path[1..]);
                    route.pools.extend_from_slice(&leg.pools);
                    route.last = leg;
                    continue;
                }
            }
            routes.push(Self {
                first: leg,
                last: leg,
                path: leg.path.clone(),
                pools: leg.pools.clone(),
            });
        }
        routes
    }

    fn output(&self) -> Address {
        self.path[self.path.len() - 1]
    }
}

/// What each route sells, or `None` when the plan is not paid as one trade: without ether,
/// each route's first leg is paid by the caller an explicit amount; after `WRAP_ETH` of the
/// call's `value`, each is paid by the router, explicit amounts adding up to the value, or
/// the last route taking the rest (`CONTRACT_BALANCE`), so no wrapped ether stays behind.
fn funding(routes: &[Chained<'_>], wrapped: bool, value: U256) -> Option<Vec<U256>> {
    if !wrapped {
        let paid = routes
            .iter()
            .all(|r| r.first.payer_is_user && r.first.amount != CONTRACT_BALANCE);
        return paid.then(|| routes.iter().map(|r| r.first.amount).collect());
    }
    if routes.iter().any(|r| r.first.payer_is_user) {
        return None;
    }
    let (last, earlier) = routes.split_last()?;
    let mut spent = U256::ZERO;
    let mut amounts = Vec::with_capacity(routes.len());
    for r in earlier {
        if r.first.amount == CONTRACT_BALANCE {
            return None;
        }
        spent = spent.checked_add(r.first.amount)?;
        amounts.push(r.first.amount);
    }
    let rest = value.checked_sub(spent)?;
    if last.first.amount != CONTRACT_BALANCE && last.first.amount != rest {
        return None;
    }
    amounts.push(rest);
    Some(amounts)
}

#[cfg(test)]
mod tests;
