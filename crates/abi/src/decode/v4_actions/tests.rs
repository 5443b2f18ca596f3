//! V4 action lists read as one trade, with their bounds, currencies and pools; every other list
//! left unread.

use super::*;
use alloy_primitives::{
    Bytes, address,
    aliases::{I24, U24},
};

const A: Address = address!("00000000000000000000000000000000000000aa");
const B: Address = address!("00000000000000000000000000000000000000bb");
const TAKE: u8 = 0x0e;

fn key(a: Address, b: Address) -> PoolKey {
    let (currency0, currency1) = if a < b { (a, b) } else { (b, a) };
    PoolKey {
        currency0,
        currency1,
        fee: U24::from(3_000),
        tickSpacing: I24::try_from(60).unwrap(),
        hooks: Address::ZERO,
    }
}

fn single(a: Address, b: Address, amount: u128, limit: u128) -> Bytes {
    let k = key(a, b);
    SingleParams {
        zeroForOne: a == k.currency0,
        poolKey: k,
        amount,
        limit,
        hookData: Bytes::new(),
    }
    .abi_encode()
    .into()
}

fn pair(currency: Address, amount: u64) -> Bytes {
    (currency, U256::from(amount)).abi_encode_params().into()
}

fn plan(actions: &[u8], params: Vec<Bytes>) -> Vec<u8> {
    (Bytes::from(actions.to_vec()), params).abi_encode_params()
}

#[test]
fn a_single_exact_input_is_one_trade_with_the_larger_minimum() {
    let input = plan(
        &[SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL],
        vec![single(A, B, 1_000, 900), pair(A, 1_000), pair(B, 950)],
    );
    let t = read(&input).unwrap().expect("read");
    assert_eq!(t.path, vec![A, B]);
    assert_eq!(
        t.kind,
        SwapKind::ExactIn {
            amount_in: U256::from(1_000),
            min_out: U256::from(950)
        }
    );
    assert_eq!(t.pools, vec![keccak256(key(A, B).abi_encode())]);
    // Selling currency1: the same pool, the other way.
    let input = plan(
        &[SWAP_EXACT_IN_SINGLE, TAKE_ALL, SETTLE_ALL],
        vec![single(B, A, 1_000, 900), pair(A, 0), pair(B, 1_000)],
    );
    let t = read(&input).unwrap().expect("read in either order");
    assert_eq!(t.path, vec![B, A]);
    assert_eq!(t.pools, vec![keccak256(key(A, B).abi_encode())]);
    assert_eq!(
        t.kind,
        SwapKind::ExactIn {
            amount_in: U256::from(1_000),
            min_out: U256::from(900)
        }
    );
}

#[test]
fn multi_hop_actions_are_not_read_whatever_their_layout() {
    // v4-periphery 1.x's `(currency, path, amount, limit)` and 2.x's with `maxHopSlippage`
    // after the path: the same bytes mean different amounts to the two routers.
    let hop = (
        B,
        U24::from(3_000),
        I24::try_from(60).unwrap(),
        Address::ZERO,
        Bytes::new(),
    );
    let v1 = (A, vec![hop.clone()], 1_000u128, 5u128).abi_encode();
    let v2 = (A, vec![hop], Vec::<U256>::new(), 1_000u128, 5u128).abi_encode();
    for (action, params) in [
        (0x07, v1.clone()),
        (0x07, v2.clone()),
        (0x09, v1),
        (0x09, v2),
    ] {
        let input = plan(
            &[action, SETTLE_ALL, TAKE_ALL],
            vec![params.into(), pair(A, 1_000), pair(B, 7)],
        );
        assert_eq!(read(&input), Ok(None), "action {action:#04x}");
    }
}

#[test]
fn other_action_lists_are_not_read() {
    let swap = single(A, B, 1_000, 900);
    let unread = |actions: &[u8], params: Vec<Bytes>| read(&plan(actions, params)).unwrap();
    // TAKE pays a recipient the calldata names: not read.
    let take: Bytes = (B, Address::repeat_byte(0x5e), U256::ZERO)
        .abi_encode_params()
        .into();
    assert_eq!(
        unread(
            &[SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE],
            vec![swap.clone(), pair(A, 1_000), take]
        ),
        None
    );
    // Settling or taking another currency than the route's ends.
    assert_eq!(
        unread(
            &[SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL],
            vec![swap.clone(), pair(B, 1_000), pair(A, 1)]
        ),
        None
    );
    // Two swaps, or a missing settlement.
    assert_eq!(
        unread(&[SWAP_EXACT_IN_SINGLE, TAKE_ALL], vec![swap, pair(B, 1)]),
        None
    );
    // An open-delta amount (zero): whatever an earlier action left.
    assert_eq!(
        unread(
            &[SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL],
            vec![single(A, B, 0, 900), pair(A, 1_000), pair(B, 1)]
        ),
        None
    );
    // Native ether in is read too (its start is `Address::ZERO`): what the call must send for
    // it is the Universal Router half's question.
    let t = read(&plan(
        &[SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL],
        vec![
            single(Address::ZERO, B, 1_000, 900),
            pair(Address::ZERO, 1_000),
            pair(B, 1),
        ],
    ))
    .unwrap()
    .unwrap();
    assert_eq!(t.path, vec![Address::ZERO, B]);
    // Native ether out is read: its end is `Address::ZERO`.
    let t = read(&plan(
        &[SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL],
        vec![
            single(B, Address::ZERO, 1_000, 900),
            pair(B, 1_000),
            pair(Address::ZERO, 1),
        ],
    ))
    .unwrap()
    .expect("read");
    assert_eq!(t.path, vec![B, Address::ZERO]);
}

#[test]
fn dirty_words_do_not_decode() {
    let mut settle = pair(A, 1_000).to_vec();
    settle[0] = 1;
    assert_eq!(
        read(&plan(
            &[SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL],
            vec![single(A, B, 1_000, 900), settle.into(), pair(B, 1)]
        )),
        Err(())
    );
}
