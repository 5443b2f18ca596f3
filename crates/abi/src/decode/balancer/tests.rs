//! The Vault's swaps read as one route each, with their limits, recipients and ether ends, and
//! every shape left unread named.

use super::*;
use alloy_primitives::{B256, Bytes, I256, address};

const VAULT: Address = address!("ba12222222228d8ba445958a75a0704d566bf2c8");
const ME: Address = address!("00000000000000000000000000000000000000ee");
const A: Address = address!("00000000000000000000000000000000000000aa");
const B: Address = address!("00000000000000000000000000000000000000bb");
const C: Address = address!("00000000000000000000000000000000000000cc");
const TO: Address = address!("0000000000000000000000000000000000000042");

fn decoded(value: U256, call: &impl SolCall) -> Result<DecodedCall, DecodeError> {
    super::super::decode_call_from(ME, VAULT, value, &call.abi_encode())
}

fn swap_of(value: U256, call: &impl SolCall) -> Swap {
    match decoded(value, call) {
        Ok(DecodedCall::Swap(s)) => s,
        other => panic!("not a swap: {other:?}"),
    }
}

fn funds(sender: Address, recipient: Address) -> Vault::FundManagement {
    Vault::FundManagement {
        sender,
        fromInternalBalance: false,
        recipient,
        toInternalBalance: false,
    }
}

fn single(kind: u8, asset_in: Address, asset_out: Address, limit: u64) -> Vault::swapCall {
    Vault::swapCall {
        singleSwap: Vault::SingleSwap {
            poolId: B256::repeat_byte(1),
            kind,
            assetIn: asset_in,
            assetOut: asset_out,
            amount: U256::from(1_000),
            userData: Bytes::new(),
        },
        funds: funds(ME, ME),
        limit: U256::from(limit),
        deadline: U256::from(77),
    }
}

fn step(asset_in: usize, asset_out: usize, amount: u64) -> Vault::BatchSwapStep {
    Vault::BatchSwapStep {
        poolId: B256::repeat_byte(asset_in as u8 + 1),
        assetInIndex: U256::from(asset_in),
        assetOutIndex: U256::from(asset_out),
        amount: U256::from(amount),
        userData: Bytes::new(),
    }
}

fn batch(kind: u8, steps: Vec<Vault::BatchSwapStep>, limits: &[i64]) -> Vault::batchSwapCall {
    Vault::batchSwapCall {
        kind,
        swaps: steps,
        assets: vec![A, B, C],
        funds: funds(ME, TO),
        limits: limits.iter().map(|&l| I256::try_from(l).unwrap()).collect(),
        deadline: U256::from(88),
    }
}

#[test]
fn a_single_swap_reads_its_limit_as_the_minimum_or_the_maximum() {
    let s = swap_of(U256::ZERO, &single(GIVEN_IN, A, B, 990));
    assert_eq!(s.router, VAULT);
    assert_eq!(s.path, vec![A, B]);
    assert_eq!(s.to, ME);
    assert_eq!(s.deadline, U256::from(77));
    assert_eq!(
        s.kind,
        SwapKind::ExactIn {
            amount_in: U256::from(1_000),
            min_out: U256::from(990)
        }
    );
    let s = swap_of(U256::ZERO, &single(GIVEN_OUT, A, B, 1_010));
    assert_eq!(
        s.kind,
        SwapKind::ExactOut {
            amount_out: U256::from(1_000),
            max_in: U256::from(1_010)
        }
    );
    // The Vault reverts on a kind out of range.
    assert!(matches!(
        decoded(U256::ZERO, &single(2, A, B, 1)),
        Err(DecodeError::BadArguments { function: "swap" })
    ));
}

#[test]
fn ether_is_the_vaults_zero_asset() {
    let s = swap_of(U256::from(1_000), &single(GIVEN_IN, Address::ZERO, B, 1));
    assert!(s.eth_in && !s.eth_out);
    assert_eq!(s.token_in(), Address::ZERO);
    let s = swap_of(U256::ZERO, &single(GIVEN_IN, A, Address::ZERO, 1));
    assert!(!s.eth_in && s.eth_out);
    // Ether sent to a swap that takes none is not read.
    let call = single(GIVEN_IN, A, B, 1).abi_encode();
    assert_eq!(
        unread_swap(ME, U256::from(1), &call),
        Some("ether sent to a swap that takes none")
    );
}

#[test]
fn a_chained_batch_is_one_route_with_its_limits() {
    // A -> B -> C, selling 1,000 A, at least 900 C.
    let s = swap_of(
        U256::ZERO,
        &batch(
            GIVEN_IN,
            vec![step(0, 1, 1_000), step(1, 2, 0)],
            &[1_000, 0, -900],
        ),
    );
    assert_eq!(s.path, vec![A, B, C]);
    assert_eq!(s.to, TO);
    assert_eq!(
        s.kind,
        SwapKind::ExactIn {
            amount_in: U256::from(1_000),
            min_out: U256::from(900)
        }
    );
    // A non-negative limit on the output leaves no minimum.
    let s = swap_of(
        U256::ZERO,
        &batch(
            GIVEN_IN,
            vec![step(0, 1, 1_000), step(1, 2, 0)],
            &[1_000, 0, 5],
        ),
    );
    assert_eq!(s.min_output(), Some(U256::ZERO));
    // GIVEN_OUT walks backwards: buy 1,000 C with B, that B with A, paying at most 1,200 A.
    let s = swap_of(
        U256::ZERO,
        &batch(
            GIVEN_OUT,
            vec![step(1, 2, 1_000), step(0, 1, 0)],
            &[1_200, 0, -1_000],
        ),
    );
    assert_eq!(s.path, vec![A, B, C]);
    assert_eq!(
        s.kind,
        SwapKind::ExactOut {
            amount_out: U256::from(1_000),
            max_in: U256::from(1_200)
        }
    );
}

#[test]
fn a_batch_that_is_not_one_route_is_named_unread() {
    let why = |call: Vault::batchSwapCall| {
        let data = call.abi_encode();
        assert_eq!(
            super::super::decode_call_from(ME, VAULT, U256::ZERO, &data),
            Ok(DecodedCall::Unknown)
        );
        unread_swap(ME, U256::ZERO, &data)
    };
    let not_a_route = Some("a batch whose steps are not one route");
    // Two independent sales of A.
    assert_eq!(
        why(batch(
            GIVEN_IN,
            vec![step(0, 1, 500), step(0, 2, 500)],
            &[1_000, -1, -1]
        )),
        not_a_route
    );
    // A later step with an amount of its own sells more than the route's output.
    assert_eq!(
        why(batch(
            GIVEN_IN,
            vec![step(0, 1, 500), step(1, 2, 7)],
            &[1_000, 0, -1]
        )),
        not_a_route
    );
    // A round trip A -> B -> A.
    assert_eq!(
        why(batch(
            GIVEN_IN,
            vec![step(0, 1, 500), step(1, 0, 0)],
            &[1_000, 0, 0]
        )),
        not_a_route
    );
    // An index outside the assets.
    assert_eq!(
        why(batch(GIVEN_IN, vec![step(0, 3, 500)], &[1_000, 0, 0])),
        not_a_route
    );
    assert_eq!(
        why(batch(GIVEN_IN, vec![step(0, 1, 500)], &[1_000])),
        Some("a batch with fewer limits than assets")
    );
}

#[test]
fn an_output_to_the_internal_balance_is_read_and_other_funds_named_unread() {
    let mut call = single(GIVEN_IN, A, B, 1);
    call.funds.toInternalBalance = true;
    let Ok(DecodedCall::Swap(swap)) = decoded(U256::ZERO, &call) else {
        panic!("an output credited inside the Vault, not read");
    };
    assert!(swap.to_internal);
    assert_eq!(unread_swap(ME, U256::ZERO, &call.abi_encode()), None);
    let mut call = single(GIVEN_IN, A, B, 1);
    call.funds.fromInternalBalance = true;
    assert_eq!(decoded(U256::ZERO, &call), Ok(DecodedCall::Unknown));
    assert_eq!(
        unread_swap(ME, U256::ZERO, &call.abi_encode()),
        Some("funds from the Vault's internal balances")
    );
    // Ether never sits in the Vault's internal balances.
    let mut call = single(GIVEN_IN, A, Address::ZERO, 1);
    call.funds.toInternalBalance = true;
    assert_eq!(
        unread_swap(ME, U256::ZERO, &call.abi_encode()),
        Some("ether to the Vault's internal balances")
    );
    let mut call = single(GIVEN_IN, A, B, 1);
    call.funds.sender = TO;
    assert_eq!(
        unread_swap(ME, U256::ZERO, &call.abi_encode()),
        Some("a sender other than the caller")
    );
    // A read swap, and any other function, is not unread.
    assert_eq!(
        unread_swap(ME, U256::ZERO, &single(GIVEN_IN, A, B, 1).abi_encode()),
        None
    );
    assert_eq!(unread_swap(ME, U256::ZERO, &[0xde, 0xad, 0xbe, 0xef]), None);
}

#[test]
fn dirty_words_do_not_decode() {
    let mut data = single(GIVEN_IN, A, B, 1).abi_encode();
    // The first word after the selector is the offset of `singleSwap`; `funds.sender` is the
    // second head word: set a bit above its 20 bytes.
    data[4 + 32 + 4] = 1;
    assert!(matches!(
        super::super::decode_call_from(ME, VAULT, U256::ZERO, &data),
        Err(DecodeError::BadArguments { function: "swap" })
    ));
}
