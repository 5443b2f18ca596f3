//! The plans read as one trade, and the ones left unread.

use super::*;
use alloy_primitives::{Bytes, address};
use alloy_sol_types::SolValue;

const ROUTER: Address = address!("66a9893cc07d91d95644aedd05d03f95e1dba8af");
const ME: Address = address!("00000000000000000000000000000000000000ee");
const A: Address = address!("00000000000000000000000000000000000000aa");
const B: Address = address!("00000000000000000000000000000000000000bb");
const C: Address = address!("00000000000000000000000000000000000000cc");

fn v3(recipient: Address, amount: U256, min: u64, from: Address, to: Address, user: bool) -> Bytes {
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

fn plan(commands: Vec<u8>, inputs: Vec<Bytes>, value: U256) -> Result<DecodedCall, DecodeError> {
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
fn ether_wrapped_a_portion_paid_and_an_exact_output_are_one_trade_each() {
    let hundred = U256::from(100);
    let wrap = |amount: U256| -> Bytes { (ADDRESS_THIS, amount).abi_encode_params().into() };
    // Ether wrapped whole into the router, which pays the leg: ether sold.
    for amount in [hundred, CONTRACT_BALANCE] {
        let Ok(DecodedCall::Swap(s)) = plan(
            vec![WRAP_ETH, V2_SWAP_EXACT_IN],
            vec![
                wrap(amount),
                v2(MSG_SENDER, CONTRACT_BALANCE, 90, vec![A, B], false),
            ],
            hundred,
        ) else {
            panic!("wrapped {amount}");
        };
        assert!(s.eth_in && !s.eth_out);
        assert_eq!(
            (s.to, s.path.clone(), s.max_input(), s.min_output()),
            (ME, vec![A, B], hundred, Some(U256::from(90)))
        );
    }
    // A portion of the output paid out before the sweep: the sweep's minimum is the one that
    // bounds what the recipient gets, even when the leg's is higher.
    let Ok(DecodedCall::Swap(s)) = plan(
        vec![V3_SWAP_EXACT_IN, PAY_PORTION, SWEEP],
        vec![
            v3(ADDRESS_THIS, hundred, 95, A, B, true),
            (B, C, U256::from(25)).abi_encode_params().into(),
            (B, MSG_SENDER, U256::from(80)).abi_encode_params().into(),
        ],
        U256::ZERO,
    ) else {
        panic!("a portion");
    };
    assert_eq!((s.to, s.min_output()), (ME, Some(U256::from(80))));
    // One exact-output leg, its V3 path written backwards.
    let mut path = B.to_vec();
    path.extend_from_slice(&[0x00, 0x01, 0xf4]);
    path.extend_from_slice(A.as_slice());
    let out: Bytes = (MSG_SENDER, U256::from(50), hundred, Bytes::from(path), true)
        .abi_encode_params()
        .into();
    let Ok(DecodedCall::Swap(s)) = plan(vec![V3_SWAP_EXACT_OUT], vec![out], U256::ZERO) else {
        panic!("exact output");
    };
    assert_eq!(
        (s.to, s.path.clone(), s.kind),
        (
            ME,
            vec![A, B],
            SwapKind::ExactOut {
                amount_out: U256::from(50),
                max_in: hundred
            }
        )
    );
    let Ok(DecodedCall::Swap(s)) = plan(
        vec![V2_SWAP_EXACT_OUT],
        vec![v2(MSG_SENDER, U256::from(50), 100, vec![A, B, C], true)],
        U256::ZERO,
    ) else {
        panic!("exact output, V2");
    };
    assert_eq!((s.path.clone(), s.max_input()), (vec![A, B, C], hundred));
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
        // Part of the value wrapped (the rest stays in the router), or wrapped to the caller.
        (
            vec![WRAP_ETH, V3_SWAP_EXACT_IN],
            vec![
                (ADDRESS_THIS, U256::from(60)).abi_encode_params().into(),
                v3(MSG_SENDER, CONTRACT_BALANCE, 0, A, B, false),
            ],
            hundred,
        ),
        (
            vec![WRAP_ETH, V3_SWAP_EXACT_IN],
            vec![
                (MSG_SENDER, hundred).abi_encode_params().into(),
                v3(MSG_SENDER, hundred, 0, A, B, true),
            ],
            hundred,
        ),
        // Wrapped, then a leg the caller pays.
        (
            vec![WRAP_ETH, V3_SWAP_EXACT_IN],
            vec![
                (ADDRESS_THIS, hundred).abi_encode_params().into(),
                v3(MSG_SENDER, hundred, 0, A, B, true),
            ],
            hundred,
        ),
        // A portion with nothing after it, a portion of another token, more than all of it.
        (
            vec![V3_SWAP_EXACT_IN, PAY_PORTION],
            vec![leg(), (B, C, U256::from(25)).abi_encode_params().into()],
            U256::ZERO,
        ),
        (
            vec![V3_SWAP_EXACT_IN, PAY_PORTION, SWEEP],
            vec![
                leg(),
                (A, C, U256::from(25)).abi_encode_params().into(),
                (B, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
            ],
            U256::ZERO,
        ),
        (
            vec![V3_SWAP_EXACT_IN, PAY_PORTION, SWEEP],
            vec![
                leg(),
                (B, C, U256::from(10_001)).abi_encode_params().into(),
                (B, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
            ],
            U256::ZERO,
        ),
        // An exact-output leg beside another.
        (
            vec![V2_SWAP_EXACT_OUT, V2_SWAP_EXACT_IN],
            vec![
                v2(ADDRESS_THIS, U256::from(5), 100, vec![A, B], true),
                v2(MSG_SENDER, CONTRACT_BALANCE, 1, vec![B, C], false),
            ],
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

/// Each plan `(commands, inputs, value)` is no trade, and [`crate::decode::unread`] names what
/// `unread` says of its commands.
fn unread_each(
    cases: Vec<(Vec<u8>, Vec<Bytes>, U256)>,
    unread: impl Fn(&[u8]) -> crate::decode::Unread,
) {
    for (i, (commands, inputs, value)) in cases.into_iter().enumerate() {
        let data = execute(commands.clone(), inputs.clone());
        let expected = unread(&commands);
        assert_eq!(
            plan(commands, inputs, value),
            Ok(DecodedCall::Unknown),
            "case {i}"
        );
        assert_eq!(
            crate::decode::unread(ME, value, &data),
            Some(expected),
            "case {i}"
        );
    }
}

/// `execute` calldata of `commands` with `inputs`.
fn execute(commands: Vec<u8>, inputs: Vec<Bytes>) -> Vec<u8> {
    IUniversalRouter::execute_0Call {
        commands: commands.into(),
        inputs,
        deadline: U256::from(9),
    }
    .abi_encode()
}

#[test]
fn routes_side_by_side_are_one_split_trade() {
    let n = U256::from;
    let sweep = |min: u64| -> Bytes { (C, MSG_SENDER, n(min)).abi_encode_params().into() };
    // A to C over V3 (A, B) then V2 (B, C), beside A to C over V2 directly, swept to the caller:
    // the minimum is the larger of the sweep's and the legs' added up.
    for (legs, swept, min) in [(0, 85, 85), (90, 85, 90)] {
        let Ok(DecodedCall::Swap(s)) = plan(
            vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN, V2_SWAP_EXACT_IN, SWEEP],
            vec![
                v3(ADDRESS_THIS, n(60), 0, A, B, true),
                v2(ADDRESS_THIS, CONTRACT_BALANCE, 0, vec![B, C], false),
                v2(ADDRESS_THIS, n(40), legs, vec![A, C], true),
                sweep(swept),
            ],
            U256::ZERO,
        ) else {
            panic!("split");
        };
        assert_eq!(
            (s.to, s.path.clone(), s.max_input(), s.min_output()),
            (ME, vec![A, B, C], n(100), Some(n(min)))
        );
        assert_eq!(
            s.routes,
            vec![
                Route {
                    amount_in: n(60),
                    path: vec![A, B, C],
                    pools: vec![RoutePool::V3 { fee: 500 }, RoutePool::V2],
                },
                Route {
                    amount_in: n(40),
                    path: vec![A, C],
                    pools: vec![RoutePool::V2],
                },
            ]
        );
        assert_eq!(s.tokens().collect::<Vec<_>>(), vec![A, B, C, A, B, C, A, C]);
    }
    // Each route paying the caller: the legs' minimums added up.
    let Ok(DecodedCall::Swap(s)) = plan(
        vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
        vec![
            v3(MSG_SENDER, n(60), 50, A, B, true),
            v2(MSG_SENDER, n(40), 30, vec![A, B], true),
        ],
        U256::ZERO,
    ) else {
        panic!("split to the caller");
    };
    assert_eq!((s.to, s.min_output(), s.routes.len()), (ME, Some(n(80)), 2));
    // Ether wrapped and shared: explicit amounts, the last route the rest.
    let wrap: Bytes = (ADDRESS_THIS, n(100)).abi_encode_params().into();
    for last in [n(40), CONTRACT_BALANCE] {
        let Ok(DecodedCall::Swap(s)) = plan(
            vec![WRAP_ETH, V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
            vec![
                wrap.clone(),
                v3(MSG_SENDER, n(60), 50, A, B, false),
                v2(MSG_SENDER, last, 30, vec![A, B], false),
            ],
            n(100),
        ) else {
            panic!("wrapped split {last}");
        };
        assert!(s.eth_in);
        let amounts: Vec<U256> = s.routes.iter().map(|r| r.amount_in).collect();
        assert_eq!((s.max_input(), amounts), (n(100), vec![n(60), n(40)]));
    }
}

/// A `TRANSFER` of everything the router holds of the output is the trade's payment (its
/// minimum the legs'); one of part of the output, or of another token, is not read.
#[test]
fn a_transfer_of_the_whole_output_is_the_payment() {
    let n = U256::from;
    let leg = || v3(ADDRESS_THIS, n(100), 90, A, B, true);
    let transfer = |token: Address, value: U256| -> Bytes {
        (token, MSG_SENDER, value).abi_encode_params().into()
    };
    let Ok(DecodedCall::Swap(s)) = plan(
        vec![V3_SWAP_EXACT_IN, TRANSFER],
        vec![leg(), transfer(B, CONTRACT_BALANCE)],
        U256::ZERO,
    ) else {
        panic!("a transfer of the whole output");
    };
    assert_eq!((s.to, s.min_output()), (ME, Some(n(90))));
    let whole = execute(
        vec![V3_SWAP_EXACT_IN, TRANSFER],
        vec![leg(), transfer(B, CONTRACT_BALANCE)],
    );
    assert_eq!(unread_commands(&whole), Some(vec![]));
    for other in [transfer(B, n(50)), transfer(C, CONTRACT_BALANCE)] {
        let inputs = vec![leg(), other];
        assert_eq!(
            plan(vec![V3_SWAP_EXACT_IN, TRANSFER], inputs.clone(), U256::ZERO),
            Ok(DecodedCall::Unknown)
        );
        let data = execute(vec![V3_SWAP_EXACT_IN, TRANSFER], inputs);
        assert_eq!(unread_commands(&data), Some(vec![TRANSFER]));
    }
    // Alone, it moves what the router held: not read.
    let alone = execute(vec![TRANSFER], vec![transfer(B, CONTRACT_BALANCE)]);
    assert_eq!(unread_commands(&alone), Some(vec![TRANSFER]));
}

#[test]
fn legs_that_are_not_one_trade_are_named_unread() {
    let n = U256::from;
    let wrap: Bytes = (ADDRESS_THIS, n(100)).abi_encode_params().into();
    let cases: Vec<(Vec<u8>, Vec<Bytes>, U256)> = vec![
        // Two trades: A for B and A for C.
        (
            vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
            vec![
                v3(MSG_SENDER, n(60), 50, A, B, true),
                v2(MSG_SENDER, n(40), 30, vec![A, C], true),
            ],
            U256::ZERO,
        ),
        // The same trade paid to two recipients.
        (
            vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
            vec![
                v3(MSG_SENDER, n(60), 50, A, B, true),
                v2(C, n(40), 30, vec![A, B], true),
            ],
            U256::ZERO,
        ),
        // One route paid out, the other swept: the sweep pays what the router held before.
        (
            vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN, SWEEP],
            vec![
                v3(MSG_SENDER, n(60), 50, A, B, true),
                v2(ADDRESS_THIS, n(40), 30, vec![A, B], true),
                (B, MSG_SENDER, n(1)).abi_encode_params().into(),
            ],
            U256::ZERO,
        ),
        // Wrapped ether shared short of the value (the rest stays in the router), or everything
        // taken by a route that is not the last.
        (
            vec![WRAP_ETH, V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
            vec![
                wrap.clone(),
                v3(MSG_SENDER, n(60), 50, A, B, false),
                v2(MSG_SENDER, n(30), 30, vec![A, B], false),
            ],
            n(100),
        ),
        (
            vec![WRAP_ETH, V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
            vec![
                wrap,
                v3(MSG_SENDER, CONTRACT_BALANCE, 50, A, B, false),
                v2(MSG_SENDER, n(30), 30, vec![A, B], false),
            ],
            n(100),
        ),
        // A route back to the input.
        (
            vec![V3_SWAP_EXACT_IN, V2_SWAP_EXACT_IN],
            vec![
                v3(ADDRESS_THIS, n(60), 50, A, B, true),
                v2(MSG_SENDER, CONTRACT_BALANCE, 30, vec![B, A], false),
            ],
            U256::ZERO,
        ),
    ];
    unread_each(cases, |commands| {
        crate::decode::Unread::Legs(
            commands
                .iter()
                .copied()
                .filter(|c| ![WRAP_ETH, SWEEP].contains(c))
                .collect(),
        )
    });
    // One trade, and a plan of no leg, are not.
    let one = execute(
        vec![V3_SWAP_EXACT_IN],
        vec![v3(MSG_SENDER, n(60), 50, A, B, true)],
    );
    assert_eq!(crate::decode::unread(ME, U256::ZERO, &one), None);
    let permit_only = execute(vec![PERMIT2_PERMIT], vec![Bytes::new()]);
    assert_eq!(crate::decode::unread(ME, U256::ZERO, &permit_only), None);
}

/// A `V4_SWAP` input selling 1,000 of `A` for at least 950 of `B` in their one pool, settled
/// and taken by the caller, or its output taken by `stranger` (`TAKE`).
fn v4_swap(stranger: Option<Address>) -> Bytes {
    use crate::decode::v4_actions::{PoolKey, SingleParams};
    use alloy_primitives::aliases::{I24, U24};
    let key = PoolKey {
        currency0: A,
        currency1: B,
        fee: U24::from(3_000),
        tickSpacing: I24::try_from(60).unwrap(),
        hooks: Address::ZERO,
    };
    let swap = SingleParams {
        poolKey: key,
        zeroForOne: true,
        amount: 1_000,
        limit: 950,
        hookData: Bytes::new(),
    };
    let settle: Bytes = (A, U256::from(1_000)).abi_encode_params().into();
    let (take_action, take): (u8, Bytes) = match stranger {
        None => (0x0f, (B, U256::ZERO).abi_encode_params().into()),
        Some(s) => (0x0e, (B, s, U256::ZERO).abi_encode_params().into()),
    };
    let actions = Bytes::from(vec![0x06, 0x0c, take_action]);
    let params: Vec<Bytes> = vec![swap.abi_encode().into(), settle, take];
    (actions, params).abi_encode_params().into()
}

/// A `V4_SWAP` selling exactly 1,000 wei of ether for at least 950 of `B` in their one pool.
fn v4_ether_swap() -> Bytes {
    v4_ether(0x06, 1_000, 950)
}

/// A `V4_SWAP` of single-pool `action` (exact input 0x06, exact output 0x08) selling ether for
/// `B` in their one pool, its `amount` and `limit`.
fn v4_ether(action: u8, amount: u128, limit: u128) -> Bytes {
    use crate::decode::v4_actions::{PoolKey, SingleParams};
    use alloy_primitives::aliases::{I24, U24};
    let swap = SingleParams {
        poolKey: PoolKey {
            currency0: Address::ZERO,
            currency1: B,
            fee: U24::from(3_000),
            tickSpacing: I24::try_from(60).unwrap(),
            hooks: Address::ZERO,
        },
        zeroForOne: true,
        amount,
        limit,
        hookData: Bytes::new(),
    };
    let most = if action == 0x06 { amount } else { limit };
    let settle: Bytes = (Address::ZERO, U256::from(most)).abi_encode_params().into();
    let take: Bytes = (B, U256::ZERO).abi_encode_params().into();
    let params: Vec<Bytes> = vec![swap.abi_encode().into(), settle, take];
    (Bytes::from(vec![action, 0x0c, 0x0f]), params)
        .abi_encode_params()
        .into()
}

/// Ether sold in V4 is read when the call sends exactly the exact input: less cannot settle,
/// more would stay in the router.
#[test]
fn a_v4_ether_swap_is_read_when_the_call_sends_exactly_its_input() {
    let Ok(DecodedCall::Swap(s)) = plan(vec![V4_SWAP], vec![v4_ether_swap()], U256::from(1_000))
    else {
        panic!("an ether V4 trade");
    };
    assert!(s.eth_in && !s.eth_out);
    assert_eq!(
        (s.path.clone(), s.max_input(), s.min_output()),
        (
            vec![Address::ZERO, B],
            U256::from(1_000),
            Some(U256::from(950))
        )
    );
    let data = execute(vec![V4_SWAP], vec![v4_ether_swap()]);
    for value in [0u64, 999, 1_001] {
        let value = U256::from(value);
        assert_eq!(
            plan(vec![V4_SWAP], vec![v4_ether_swap()], value),
            Ok(DecodedCall::Unknown),
            "{value}"
        );
        assert_eq!(
            crate::decode::unread(ME, value, &data),
            Some(crate::decode::Unread::Commands(vec![V4_SWAP])),
            "{value}"
        );
    }
    assert_eq!(crate::decode::unread(ME, U256::from(1_000), &data), None);
}

/// Ether bought exactly in V4: read when the call sends the maximum input and the plan sweeps
/// the ether left back to the caller; without the sweep, or swept to another, not read.
#[test]
fn a_v4_ether_exact_output_is_read_with_its_refund() {
    let n = U256::from;
    let refund =
        |to: Address| -> Bytes { (Address::ZERO, to, U256::ZERO).abi_encode_params().into() };
    let swap = v4_ether(0x08, 950, 1_000);
    let Ok(DecodedCall::Swap(s)) = plan(
        vec![V4_SWAP, SWEEP],
        vec![swap.clone(), refund(MSG_SENDER)],
        n(1_000),
    ) else {
        panic!("an exact-output ether V4 trade with its refund");
    };
    assert!(s.eth_in);
    assert_eq!(
        s.kind,
        SwapKind::ExactOut {
            amount_out: n(950),
            max_in: n(1_000)
        }
    );
    let refused: Vec<(Vec<u8>, Vec<Bytes>, U256)> = vec![
        (vec![V4_SWAP], vec![swap.clone()], n(1_000)),
        (
            vec![V4_SWAP, SWEEP],
            vec![swap.clone(), refund(C)],
            n(1_000),
        ),
        (
            vec![V4_SWAP, SWEEP],
            vec![swap, refund(MSG_SENDER)],
            n(1_001),
        ),
        // A token's swap with a sweep after it.
        (
            vec![V4_SWAP, SWEEP],
            vec![v4_swap(None), refund(MSG_SENDER)],
            U256::ZERO,
        ),
    ];
    unread_each(refused, |_| crate::decode::Unread::Commands(vec![V4_SWAP]));
}

#[test]
fn a_v4_swap_paid_and_taken_by_the_caller_is_one_trade() {
    let Ok(DecodedCall::Swap(s)) = plan(
        vec![PERMIT2_PERMIT, V4_SWAP],
        vec![Bytes::new(), v4_swap(None)],
        U256::ZERO,
    ) else {
        panic!("a V4 trade");
    };
    assert_eq!(
        (s.to, s.path.clone(), s.min_output()),
        (ME, vec![A, B], Some(U256::from(950)))
    );
    assert_eq!(s.v4_pools.len(), 1);
    let data = |inputs: Vec<Bytes>| {
        IUniversalRouter::execute_0Call {
            commands: vec![V4_SWAP].into(),
            inputs,
            deadline: U256::from(9),
        }
        .abi_encode()
    };
    assert_eq!(unread_commands(&data(vec![v4_swap(None)])), Some(vec![]));
    // Its output taken by a recipient the calldata names: unread, and no trade.
    let stranger = Some(Address::repeat_byte(0x5e));
    assert_eq!(
        unread_commands(&data(vec![v4_swap(stranger)])),
        Some(vec![V4_SWAP])
    );
    assert_eq!(
        plan(vec![V4_SWAP], vec![v4_swap(stranger)], U256::ZERO),
        Ok(DecodedCall::Unknown)
    );
    // Ether sent beside it stays in the router: no trade.
    assert_eq!(
        plan(vec![V4_SWAP], vec![v4_swap(None)], U256::from(1)),
        Ok(DecodedCall::Unknown)
    );
}

#[test]
fn v4_actions_that_do_not_decode_are_not_read() {
    let junk = Bytes::from(vec![0xab; 40]);
    assert_eq!(
        plan(vec![V4_SWAP], vec![junk.clone()], U256::ZERO),
        Ok(DecodedCall::Unknown)
    );
    let data = IUniversalRouter::execute_0Call {
        commands: vec![V4_SWAP].into(),
        inputs: vec![junk],
        deadline: U256::from(9),
    }
    .abi_encode();
    assert_eq!(unread_commands(&data), Some(vec![V4_SWAP]));
}

#[test]
fn a_v4_swap_outside_the_one_trade_plan_is_unread() {
    let data = |commands: Vec<u8>, inputs: Vec<Bytes>| {
        IUniversalRouter::execute_0Call {
            commands: commands.into(),
            inputs,
            deadline: U256::from(9),
        }
        .abi_encode()
    };
    // Two read V4 trades in one plan, or one followed by a sweep: not the one trade read, so
    // neither V4_SWAP is read.
    let two = data(vec![V4_SWAP, V4_SWAP], vec![v4_swap(None), v4_swap(None)]);
    assert_eq!(unread_commands(&two), Some(vec![V4_SWAP, V4_SWAP]));
    let swept = data(
        vec![V4_SWAP, SWEEP],
        vec![
            v4_swap(None),
            (B, MSG_SENDER, U256::ZERO).abi_encode_params().into(),
        ],
    );
    assert_eq!(unread_commands(&swept), Some(vec![V4_SWAP]));
    // Ether sent beside the one trade: unread when the value is known.
    let one = data(vec![V4_SWAP], vec![v4_swap(None)]);
    assert_eq!(unread_commands(&one), Some(vec![]));
    assert_eq!(
        crate::decode::unread(ME, U256::from(1), &one),
        Some(crate::decode::Unread::Commands(vec![V4_SWAP]))
    );
}
