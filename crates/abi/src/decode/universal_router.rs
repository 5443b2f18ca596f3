//! The Universal Router half of [`decode_call_from`](super::decode_call_from): an `execute`
//! plan that is one exact-input trade, read as one [`Swap`] from its first leg's input to its
//! last leg's output.
//!
//! The plan's recipients are placeholders the router maps: `address(1)` is the caller (who
//! called `execute`), `address(2)` the router itself. A plan is read when it is, in order:
//! any `PERMIT2_PERMIT` commands; one or more exact-input legs (`V3_SWAP_EXACT_IN`,
//! `V2_SWAP_EXACT_IN`), the first paid by the caller with an explicit amount, each later one
//! paid by the router with everything it holds (`CONTRACT_BALANCE`) of the token the leg
//! before it left there; then, when the last leg pays the router, one payment of its output
//! (`SWEEP` of that token, or `UNWRAP_WETH`). Its minimum is the larger of the last leg's and
//! the payment's; its recipient is where the output ends. Any other plan (exact-output legs, a
//! command allowed to revert, a transfer, a portion paid out, ether wrapped, a V4 or position
//! command, a leg paid with an explicit amount from the router) is `Unknown`: judged by the
//! general rules, with no calldata facts.

use super::{DecodeError, DecodedCall, Swap, SwapKind, name, strict, swap};
use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, SolType, sol, sol_data};

sol! {
    /// The Universal Router's entry points.
    interface IUniversalRouter {
        function execute(bytes commands, bytes[] inputs, uint256 deadline) external payable;
        function execute(bytes commands, bytes[] inputs) external payable;
    }
}

/// `ActionConstants.MSG_SENDER`: the caller.
const MSG_SENDER: Address = Address::with_last_byte(1);
/// `ActionConstants.ADDRESS_THIS`: the router.
const ADDRESS_THIS: Address = Address::with_last_byte(2);
/// `ActionConstants.CONTRACT_BALANCE`: everything the router holds.
const CONTRACT_BALANCE: U256 = U256::from_limbs([0, 0, 0, 1 << 63]);

/// The command bytes read (`Commands.sol`).
const V3_SWAP_EXACT_IN: u8 = 0x00;
const SWEEP: u8 = 0x04;
const V2_SWAP_EXACT_IN: u8 = 0x08;
const PERMIT2_PERMIT: u8 = 0x0a;
const UNWRAP_WETH: u8 = 0x0c;
/// A command's type bits; the top bit lets it fail without reverting the plan.
const COMMAND_TYPE: u8 = 0x3f;

type V3In = (
    sol_data::Address,
    sol_data::Uint<256>,
    sol_data::Uint<256>,
    sol_data::Bytes,
    sol_data::Bool,
);
type V2In = (
    sol_data::Address,
    sol_data::Uint<256>,
    sol_data::Uint<256>,
    sol_data::Array<sol_data::Address>,
    sol_data::Bool,
);
type Sweep = (sol_data::Address, sol_data::Address, sol_data::Uint<256>);
type Unwrap = (sol_data::Address, sol_data::Uint<256>);

/// One exact-input leg.
struct Leg {
    recipient: Address,
    amount_in: U256,
    min_out: U256,
    path: Vec<Address>,
    payer_is_user: bool,
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
    // Ether sent without a command that wraps it stays in the router.
    if !value.is_zero() {
        return Ok(DecodedCall::Unknown);
    }
    let mut legs: Vec<Leg> = Vec::new();
    let mut payout: Option<(Address, U256, bool)> = None;
    for (&command, input) in commands.iter().zip(&inputs) {
        if command & !COMMAND_TYPE != 0 || payout.is_some() {
            return Ok(DecodedCall::Unknown);
        }
        match command & COMMAND_TYPE {
            PERMIT2_PERMIT if legs.is_empty() => {}
            V3_SWAP_EXACT_IN => {
                let (recipient, amount_in, min_out, path, payer_is_user) =
                    <V3In as SolType>::abi_decode_params_validate(input)
                        .map_err(|_| DecodeError::BadArguments { function })?;
                let path = super::v3_router::tokens_of(&path, function)?;
                legs.push(Leg {
                    recipient,
                    amount_in,
                    min_out,
                    path,
                    payer_is_user,
                });
            }
            V2_SWAP_EXACT_IN => {
                let (recipient, amount_in, min_out, path, payer_is_user) =
                    <V2In as SolType>::abi_decode_params_validate(input)
                        .map_err(|_| DecodeError::BadArguments { function })?;
                if path.len() < 2 {
                    return Err(DecodeError::ShortPath { function });
                }
                legs.push(Leg {
                    recipient,
                    amount_in,
                    min_out,
                    path,
                    payer_is_user,
                });
            }
            SWEEP if !legs.is_empty() => {
                let (token, recipient, min) = <Sweep as SolType>::abi_decode_params_validate(input)
                    .map_err(|_| DecodeError::BadArguments { function })?;
                let output = legs.last().map(|l| l.path[l.path.len() - 1]);
                if output != Some(token) {
                    return Ok(DecodedCall::Unknown);
                }
                payout = Some((recipient, min, false));
            }
            UNWRAP_WETH if !legs.is_empty() => {
                let (recipient, min) = <Unwrap as SolType>::abi_decode_params_validate(input)
                    .map_err(|_| DecodeError::BadArguments { function })?;
                payout = Some((recipient, min, true));
            }
            _ => return Ok(DecodedCall::Unknown),
        }
    }
    let Some((first, later)) = legs.split_first() else {
        return Ok(DecodedCall::Unknown);
    };
    if !first.payer_is_user || first.amount_in == CONTRACT_BALANCE {
        return Ok(DecodedCall::Unknown);
    }
    let mut path = first.path.clone();
    let mut previous = first;
    for leg in later {
        let chained = previous.recipient == ADDRESS_THIS
            && !leg.payer_is_user
            && leg.amount_in == CONTRACT_BALANCE
            && leg.path[0] == path[path.len() - 1];
        if !chained {
            return Ok(DecodedCall::Unknown);
        }
        path.extend_from_slice(&leg.path[1..]);
        previous = leg;
    }
    let last = previous;
    let map = |a: Address| match a {
        MSG_SENDER => caller,
        ADDRESS_THIS => router,
        a => a,
    };
    let (to, min_out, eth_out) = match payout {
        Some((recipient, min, eth)) if last.recipient == ADDRESS_THIS => {
            (map(recipient), last.min_out.max(min), eth)
        }
        // A payment after a leg that paid out already pays what the router held before.
        Some(_) => return Ok(DecodedCall::Unknown),
        None => (map(last.recipient), last.min_out, false),
    };
    swap::<IUniversalRouter::execute_0Call>(Swap {
        router,
        kind: SwapKind::ExactIn {
            amount_in: first.amount_in,
            min_out,
        },
        path,
        to,
        deadline,
        eth_in: false,
        eth_out,
        fee_on_transfer: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Bytes, address};
    use alloy_sol_types::SolValue;

    const ROUTER: Address = address!("66a9893cc07d91d95644aedd05d03f95e1dba8af");
    const ME: Address = address!("00000000000000000000000000000000000000ee");
    const A: Address = address!("00000000000000000000000000000000000000aa");
    const B: Address = address!("00000000000000000000000000000000000000bb");
    const C: Address = address!("00000000000000000000000000000000000000cc");

    fn v3(
        recipient: Address,
        amount: U256,
        min: u64,
        from: Address,
        to: Address,
        user: bool,
    ) -> Bytes {
        let mut path = from.to_vec();
        path.extend_from_slice(&[0x00, 0x01, 0xf4]);
        path.extend_from_slice(to.as_slice());
        (recipient, amount, U256::from(min), Bytes::from(path), user)
            .abi_encode_params()
            .into()
    }

    fn v2(recipient: Address, amount: U256, min: u64, path: Vec<Address>, user: bool) -> Bytes {
        (recipient, amount, U256::from(min), path, user)
            .abi_encode_params()
            .into()
    }

    fn plan(
        commands: Vec<u8>,
        inputs: Vec<Bytes>,
        value: U256,
    ) -> Result<DecodedCall, DecodeError> {
        let data = IUniversalRouter::execute_0Call {
            commands: commands.into(),
            inputs,
            deadline: U256::from(9),
        }
        .abi_encode();
        super::super::decode_call_from(ME, ROUTER, value, &data)
    }

    #[test]
    fn one_trade_is_one_swap_paid_where_its_output_ends() {
        let hundred = U256::from(100);
        let Ok(DecodedCall::Swap(s)) = plan(
            vec![V3_SWAP_EXACT_IN],
            vec![v3(MSG_SENDER, hundred, 90, A, B, true)],
            U256::ZERO,
        ) else {
            panic!("one leg");
        };
        assert_eq!(
            (s.to, s.path.clone(), s.min_output()),
            (ME, vec![A, B], Some(U256::from(90)))
        );
        let Ok(DecodedCall::Swap(s)) = plan(
            vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN, SWEEP],
            vec![
                v3(ADDRESS_THIS, hundred, 0, A, B, true),
                v2(ADDRESS_THIS, CONTRACT_BALANCE, 80, vec![B, C], false),
                (C, MSG_SENDER, U256::from(85)).abi_encode_params().into(),
            ],
            U256::ZERO,
        ) else {
            panic!("chained");
        };
        assert_eq!(
            (s.to, s.path.clone(), s.min_output()),
            (ME, vec![A, B, C], Some(U256::from(85)))
        );
        assert_eq!(s.max_input(), hundred);
        // Without the caller nothing is read.
        let data = IUniversalRouter::execute_1Call {
            commands: vec![V3_SWAP_EXACT_IN].into(),
            inputs: vec![v3(MSG_SENDER, hundred, 90, A, B, true)],
        }
        .abi_encode();
        assert_eq!(
            super::super::decode_call(ROUTER, U256::ZERO, &data),
            Ok(DecodedCall::Unknown)
        );
    }

    #[test]
    fn any_other_plan_is_not_read() {
        let hundred = U256::from(100);
        let leg = || v3(ADDRESS_THIS, hundred, 0, A, B, true);
        let cases: Vec<(Vec<u8>, Vec<Bytes>, U256)> = vec![
            // A leg allowed to revert.
            (vec![0x80 | V3_SWAP_EXACT_IN], vec![leg()], U256::ZERO),
            // Ether sent.
            (vec![V3_SWAP_EXACT_IN], vec![leg()], U256::from(1)),
            // A sweep of another token than the output.
            (
                vec![V3_SWAP_EXACT_IN, SWEEP],
                vec![
                    leg(),
                    (C, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
                ],
                U256::ZERO,
            ),
            // A later leg paid an explicit amount from the router.
            (
                vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
                vec![leg(), v2(MSG_SENDER, U256::from(5), 1, vec![B, C], false)],
                U256::ZERO,
            ),
            // A command after the payment.
            (
                vec![V3_SWAP_EXACT_IN, SWEEP, SWEEP],
                vec![
                    leg(),
                    (B, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
                    (B, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
                ],
                U256::ZERO,
            ),
            // A transfer.
            (
                vec![0x05],
                vec![(A, MSG_SENDER, hundred).abi_encode_params().into()],
                U256::ZERO,
            ),
        ];
        for (i, (commands, inputs, value)) in cases.into_iter().enumerate() {
            assert_eq!(
                plan(commands, inputs, value),
                Ok(DecodedCall::Unknown),
                "case {i}"
            );
        }
        assert_eq!(
            plan(vec![V3_SWAP_EXACT_IN, SWEEP], vec![leg()], U256::ZERO),
            Err(DecodeError::BadArguments {
                function: "execute"
            })
        );
    }
}
