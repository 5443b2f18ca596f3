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

fn receipt(token: u8, amount: u64) -> TokenAmount {
    TokenAmount {
        token: addr(token),
        amount: U256::from(amount),
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
        multi: false,
    }];
    r.balance_changes = vec![change(1, 5), change(2, -22)];
    r.payee_receipts = vec![receipt(1, 20)];
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
    r.payee_receipts = vec![receipt(1, 20)];
    let decoded = [(addr(1), U256::from(20u8))];
    assert_eq!(adjusted(&r, &decoded), [(addr(1), i(0)), (addr(2), i(-1))]);
}

#[test]
fn a_payment_is_credited_with_at_most_what_the_payee_received() {
    // 20 paid to the payee in the logs and the calldata; its balance gained 15 (a silent
    // fee of 5), or nothing was measured (nothing is credited).
    let mut r = report();
    r.token_flows = vec![flow(1, ACCOUNT, PAYEE, 20)];
    r.balance_changes = vec![change(1, -20)];
    let decoded = [(addr(1), U256::from(20u8))];
    r.payee_receipts = vec![receipt(1, 15)];
    assert_eq!(adjusted(&r, &decoded), [(addr(1), i(-5))]);
    r.payee_receipts = vec![receipt(2, 20)];
    assert_eq!(adjusted(&r, &decoded), [(addr(1), i(-20))]);
    r.payee_receipts.clear();
    assert_eq!(adjusted(&r, &decoded), [(addr(1), i(-20))]);
    // More received than paid (someone else paid the payee too) credits only the payment.
    r.payee_receipts = vec![receipt(1, 50)];
    assert_eq!(adjusted(&r, &decoded), [(addr(1), i(0))]);
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

// Protocol valuation (adapters).

/// A policy trusting market 9 (a target) and pricing tokens 1 and 2 at 1 wei.
fn trusting_market() -> Policy {
    let price = |t: u8| pace_types::TablePrice {
        token: addr(t),
        amount: U256::from(1u8),
        value: U256::from(1u8),
    };
    Policy {
        allowed_targets: vec![addr(9)],
        prices: vec![price(1), price(2)],
        ..Policy::default()
    }
}

/// The adjusted deltas of `r` under `policy`, with what it trusts of `r`.
fn adjusted_trusting(r: &SimulationReport, policy: &Policy) -> Vec<(Address, I256)> {
    let trusted = super::Trusted::of(r, policy);
    let mut out: Vec<_> = deltas(r, policy, ACCOUNT, Payments::default(), &trusted, &[])
        .into_iter()
        .map(|d| (d.token, d.adjusted))
        .collect();
    out.sort();
    out
}

#[test]
fn a_trusted_debt_token_is_minus_its_underlying() {
    // 50 of token 1 borrowed: the debt token 3 arrives with it.
    let mut r = report();
    r.token_flows = vec![
        flow(1, addr(9), ACCOUNT, 50),
        flow(3, Address::ZERO, ACCOUNT, 50),
    ];
    r.balance_changes = vec![change(1, 50), change(3, 50)];
    r.debt_tokens.push(pace_types::DebtToken {
        token: addr(3),
        underlying: addr(1),
        market: addr(9),
    });
    let policy = trusting_market();
    assert_eq!(adjusted_trusting(&r, &policy), [(addr(1), i(0))]);
    // A market the policy does not trust: the token is a token like any other.
    r.debt_tokens[0].market = addr(8);
    assert_eq!(
        adjusted_trusting(&r, &policy),
        [(addr(1), i(50)), (addr(3), i(50))]
    );
}

#[test]
fn a_trusted_lending_debt_moves_its_token_and_a_trusted_managers_nfts_are_not_counted() {
    let mut r = report();
    r.token_flows = vec![flow(1, addr(9), ACCOUNT, 50)];
    r.balance_changes = vec![change(1, 50), change(9, 1)];
    r.nft_flows = vec![NftFlow {
        token: addr(9),
        from: Address::ZERO,
        to: ACCOUNT,
        id: U256::from(7u8),
        amount: U256::from(1u8),
        multi: false,
    }];
    r.protocols.lending_debts.push(pace_types::LendingDebt {
        market: addr(9),
        token: addr(1),
        before: U256::from(10u8),
        after: U256::from(60u8),
    });
    r.protocols.v3_positions.push(pace_types::V3Position {
        manager: addr(9),
        id: U256::from(7u8),
        pool: addr(5),
        token0: addr(1),
        token1: addr(2),
        tick_lower: -60,
        tick_upper: 60,
        sqrt_lower_x96: U256::from(1u8) << 95usize,
        sqrt_upper_x96: U256::from(1u8) << 97usize,
        before: None,
        after: None,
    });
    assert_eq!(adjusted_trusting(&r, &trusting_market()), [(addr(1), i(0))]);
}

#[test]
fn a_v3_position_counts_as_its_tokens_at_the_trusted_price() {
    // Both tokens at 1 wei: price 1. A position over [1/4, 4] with liquidity L holds L/2 of
    // each (see `v3::amounts`); minted from 10 of each, of which the pool kept all.
    let policy = trusting_market();
    let mut r = report();
    let l = 1_000_000_000u64;
    r.token_flows = vec![
        flow(1, ACCOUNT, addr(5), l / 2),
        flow(2, ACCOUNT, addr(5), l / 2),
    ];
    r.balance_changes = vec![change(1, -(l as i64) / 2), change(2, -(l as i64) / 2)];
    r.protocols.v3_positions.push(pace_types::V3Position {
        manager: addr(9),
        id: U256::from(7u8),
        pool: addr(5),
        token0: addr(1),
        token1: addr(2),
        tick_lower: -13_863,
        tick_upper: 13_863,
        sqrt_lower_x96: U256::from(1u8) << 95usize,
        sqrt_upper_x96: U256::from(1u8) << 97usize,
        before: None,
        after: Some(pace_types::V3Liquidity {
            liquidity: U256::from(l),
            owed0: U256::ZERO,
            owed1: U256::ZERO,
        }),
    });
    let c = super::conservation(&r, &policy, ACCOUNT, Payments::default());
    assert!(c.unpriced.is_empty() && c.problems.is_empty(), "{c:?}");
    // What left is back as the position, to rounding.
    assert!(c.loss <= U256::from(2u8), "{c:?}");
    assert_eq!(c.unpaid_loss, c.loss, "the pool was paid for the position");
    // Without the position, the deposit is a loss.
    r.protocols.v3_positions.clear();
    let c = super::conservation(&r, &policy, ACCOUNT, Payments::default());
    assert_eq!(c.loss, U256::from(l));
}

#[test]
fn a_round_trip_moves_what_left_gross_up_to_what_was_held() {
    use super::moved;
    let pool = addr(0x50);
    let mut r = report();
    // 100 of token 1 out to the pool and 99 back, 5 paid to the payee: 100 moved, not the net 6.
    r.token_flows = vec![
        flow(1, ACCOUNT, pool, 100),
        flow(1, pool, ACCOUNT, 99),
        flow(1, ACCOUNT, PAYEE, 5),
    ];
    r.balances_read = vec![receipt(1, 1_000)];
    assert_eq!(moved(&r, &policy(), ACCOUNT, addr(1)), U256::from(100u64));
    // Never more than was held before the calls: repeating the trip widens nothing.
    r.balances_read = vec![receipt(1, 60)];
    assert_eq!(moved(&r, &policy(), ACCOUNT, addr(1)), U256::from(60u64));
    // An asset whose balance was not read moved nothing the notional counts.
    r.balances_read.clear();
    assert_eq!(moved(&r, &policy(), ACCOUNT, addr(1)), U256::ZERO);
    // Another token's flows are not this one's.
    r.balances_read = vec![receipt(2, 1_000)];
    assert_eq!(moved(&r, &policy(), ACCOUNT, addr(2)), U256::ZERO);
}
