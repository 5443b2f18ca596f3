//! How the account's delta per asset is read from the trace and the balance changes: each
//! token keeps its own flows, zero and self transfers are no movement, logged flows count
//! when the balance change says less, a token without flows of its own keeps its measured
//! change, and a payment the calldata makes is added back whatever else moved (mutation
//! testing found these untested); and which facts may price a token at all.

use super::{Payments, Valuer, deltas};
use alloy_primitives::{Address, I256, U256};
use pace_types::{
    BalanceChange, ETH, FeedRound, NftFlow, OraclePrice, Policy, PriceFact, PriceSource,
    SimulationReport, TokenAmount, TokenFlow,
};

const ACCOUNT: Address = Address::repeat_byte(0xaa);
const PAYEE: Address = Address::repeat_byte(0xbb);
const STRANGER: Address = Address::repeat_byte(0xcc);

fn addr(b: u8) -> Address {
    Address::repeat_byte(b)
}

fn report() -> SimulationReport {
    serde_json::from_str(
        r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
            "block_number":1,"timestamp":1,"success":true}"#,
    )
    .unwrap()
}

fn flow(token: u8, from: Address, to: Address, amount: u64) -> TokenFlow {
    TokenFlow {
        token: addr(token),
        from,
        to,
        amount: U256::from(amount),
    }
}

fn change(token: u8, delta: i64) -> BalanceChange {
    BalanceChange {
        token: addr(token),
        delta: I256::try_from(delta).unwrap(),
    }
}

fn policy() -> Policy {
    Policy {
        allowed_recipients: vec![PAYEE],
        ..Policy::default()
    }
}

/// The adjusted delta of every token of `r`, with the calldata's `decoded` payments.
fn adjusted(r: &SimulationReport, decoded: &[(Address, U256)]) -> Vec<(Address, I256)> {
    let payments = Payments {
        decoded,
        dust: U256::ZERO,
    };
    let trusted = super::Trusted::default();
    let mut out: Vec<_> = deltas(r, &policy(), ACCOUNT, payments, &trusted, &[])
        .into_iter()
        .map(|d| (d.token, d.adjusted))
        .collect();
    out.sort();
    out
}

fn i(v: i64) -> I256 {
    I256::try_from(v).unwrap()
}

#[test]
fn a_token_without_flows_of_its_own_keeps_its_measured_change() {
    // Token 1: the calldata pays the payee 20, no log of it, and the balance rose by 5 (the
    // change is all there is: 5 + 20 paid back). Token 2 and an NFT 3 have flows of their own.
    let mut r = report();
    r.token_flows = vec![flow(2, ACCOUNT, STRANGER, 22)];
    r.nft_flows = vec![NftFlow {
        token: addr(3),
        from: STRANGER,
        to: ACCOUNT,
        id: U256::from(7u8),
        amount: U256::from(1u8),
    }];
    r.balance_changes = vec![change(1, 5), change(2, -22)];
    let decoded = [(addr(1), U256::from(20u8))];
    assert_eq!(
        adjusted(&r, &decoded),
        [(addr(1), i(25)), (addr(2), i(-22)), (addr(3), i(1))]
    );
}

#[test]
fn logged_flows_count_when_the_balance_change_says_less() {
    // 10 left in the logs, the balance says 5: the larger fall counts.
    let mut r = report();
    r.token_flows = vec![flow(1, ACCOUNT, STRANGER, 10)];
    r.balance_changes = vec![change(1, -5)];
    assert_eq!(adjusted(&r, &[]), [(addr(1), i(-10))]);
}

#[test]
fn zero_and_self_transfers_are_no_movement() {
    // A zero-amount log and a self-transfer (anyone can emit both) leave the measured gain.
    let mut r = report();
    r.token_flows = vec![flow(1, ACCOUNT, STRANGER, 0), flow(1, ACCOUNT, ACCOUNT, 9)];
    r.balance_changes = vec![change(1, 5)];
    assert_eq!(adjusted(&r, &[]), [(addr(1), i(5))]);
}

#[test]
fn each_token_keeps_its_own_flows() {
    // Token 2 arrives only in the logs (no balance change measured for it).
    let mut r = report();
    r.token_flows = vec![
        flow(1, ACCOUNT, STRANGER, 10),
        flow(2, STRANGER, ACCOUNT, 10),
    ];
    r.balance_changes = vec![change(1, -10)];
    assert_eq!(adjusted(&r, &[]), [(addr(1), i(-10)), (addr(2), i(10))]);
}

#[test]
fn a_decoded_payment_counts_beside_other_tokens_flows() {
    let mut r = report();
    r.token_flows = vec![flow(2, ACCOUNT, STRANGER, 1)];
    r.balance_changes = vec![change(1, -20), change(2, -1)];
    let decoded = [(addr(1), U256::from(20u8))];
    assert_eq!(adjusted(&r, &decoded), [(addr(1), i(0)), (addr(2), i(-1))]);
}

fn pool_fact(token: u8, via: u8, worth_wei: u64) -> PriceFact {
    PriceFact {
        token: addr(token),
        source: PriceSource::Pool,
        via: addr(via),
        amount: U256::from(1u8),
        worth: vec![TokenAmount {
            token: ETH,
            amount: U256::from(worth_wei),
        }],
    }
}

#[test]
fn only_a_tokens_own_facts_price_it() {
    let policy = Policy {
        price_pools: vec![addr(9)],
        ..Policy::default()
    };
    // A trusted pool's rate for token 3 says nothing about token 2.
    let facts = [pool_fact(3, 9, 4)];
    let v = Valuer::new(&policy, &facts);
    assert_eq!(v.value(addr(2), U256::from(5u8), false), None);
    assert_eq!(
        v.value(addr(3), U256::from(5u8), false),
        Some(U256::from(20u8))
    );
}

/// A fresh round of feed 7 answering `answer` for token 2 in ether, at time 100.
pub(super) fn round(answer: i64) -> FeedRound {
    FeedRound {
        oracle: addr(7),
        token: addr(2),
        quote: ETH,
        decimals: Some(0),
        token_decimals: Some(18),
        quote_decimals: Some(18),
        round_id: U256::from(1u8),
        answer: I256::try_from(answer).unwrap(),
        started_at: U256::from(100u8),
        updated_at: U256::from(100u8),
        answered_in_round: U256::from(1u8),
    }
}

#[test]
fn a_named_feed_comes_before_a_pool() {
    // Feed 7 says 1 of token 2 is worth 3 wei; trusted pool 9 says 4. The feed is asked first,
    // whatever order the report lists the pool's rate in.
    let policy = Policy {
        price_oracles: vec![OraclePrice {
            oracle: addr(7),
            token: addr(2),
            quote: ETH,
            scale: U256::from(1u8),
            max_age_secs: None,
        }],
        price_pools: vec![addr(9)],
        ..Policy::default()
    };
    let rounds = [round(3)];
    let facts = [pool_fact(2, 9, 4)];
    let v = Valuer::with_feeds(&policy, &facts, &rounds, 100);
    assert_eq!(
        v.value(addr(2), U256::from(5u8), false),
        Some(U256::from(15u8))
    );
    // Stale, the feed is skipped (and reported): the pool prices.
    let v = Valuer::with_feeds(&policy, &facts, &rounds, 100 + 86_401);
    assert_eq!(
        v.value(addr(2), U256::from(5u8), false),
        Some(U256::from(20u8))
    );
    assert_eq!(v.problems()[0].code, pace_types::ViolationCode::FeedStale);
}
