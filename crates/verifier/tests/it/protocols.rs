//! Value of what real protocols hold, on the verifier's side: feeds judged by their round
//! (age, sign, completeness, scale), Uniswap V3 pools by their TWAP against `slot0`, debt
//! tokens as negative value whatever the table says, a trusted protocol that could not be read,
//! and an inflow nobody paid for. Each code has a passing case, a failing case whose only
//! violation it is, and the failing case approved with value conservation off.

use crate::case::Case;
use alloy_primitives::{Address, I256, U256};
use pace_testkit::mainnet::*;
use pace_types::{
    AdapterGap, BalanceChange, Check, DebtToken, FeedRound, OraclePrice, PriceFact, PriceSource,
    TablePrice, TokenAmount, TokenFlow, V3PoolPrice, ViolationCode as Code,
};

/// A feed of USDC in ether the policy names.
const FEED: Address = Address::repeat_byte(0xfe);
/// A stranger that pays the account.
const STRANGER: Address = Address::repeat_byte(0x55);
/// A debt token of a lending market the policy trusts (the router stands in for the market).
const DEBT: Address = Address::repeat_byte(0xdd);

/// One USDC (10^6 units) in wei at the benign case's pool price (320 ETH per 1,000,000 USDC).
fn usdc_in_wei() -> U256 {
    ether(320) / U256::from(1_000_000u64)
}

/// The benign swap with USDC priced by [`FEED`] only (18 decimals: scale 10^6), whose round
/// was updated `age` seconds before the simulated block and answers `answer`.
fn feed_priced(scale: U256, age: u64, answer: I256) -> Case {
    Case::benign().with(|c| {
        c.policy.price_pools.clear();
        c.policy.price_oracles.push(OraclePrice {
            oracle: FEED,
            token: USDC,
            quote: Address::ZERO,
            scale,
            max_age_secs: None,
        });
        let r = c.report_mut();
        r.prices.clear();
        r.protocols.feeds.push(FeedRound {
            oracle: FEED,
            token: USDC,
            quote: Address::ZERO,
            decimals: Some(18),
            token_decimals: Some(6),
            quote_decimals: Some(18),
            round_id: U256::from(7u8),
            answer,
            started_at: U256::from(TIMESTAMP - age),
            updated_at: U256::from(TIMESTAMP - age),
            answered_in_round: U256::from(7u8),
        });
    })
}

fn good_answer() -> I256 {
    I256::from_raw(usdc_in_wei())
}

fn fresh() -> Case {
    feed_priced(U256::ZERO, 60, good_answer())
}

/// The benign swap with USDC priced by a Uniswap V3 pool (the pair stands in for it) at its
/// TWAP, whose `slot0` is `spot_bps` away.
fn v3_priced(spot_bps: u64) -> Case {
    Case::benign().with(|c| {
        c.policy.price_pools.clear();
        c.policy.price_v3_pools.push(V3PoolPrice {
            pool: PAIR,
            spot: false,
        });
        let probe = U256::from(1u8) << 128usize;
        let twap = usdc_in_wei() * probe / U256::from(1_000_000u64);
        let spot = twap * U256::from(10_000 + spot_bps) / U256::from(10_000u64);
        let fact = |source, worth| PriceFact {
            token: USDC,
            source,
            via: PAIR,
            amount: probe,
            worth: vec![TokenAmount {
                token: WETH,
                amount: worth,
            }],
        };
        let r = c.report_mut();
        r.prices = vec![
            fact(PriceSource::V3Spot, spot),
            fact(PriceSource::V3Twap, twap),
        ];
    })
}

/// The benign swap, whose output is cut to `kept` tenths of itself, and a stranger paying the
/// account `compensation` wei of WETH for nothing.
fn compensated(kept: u8, compensation: U256) -> Case {
    Case::benign().with(|c| {
        let r = c.report_mut();
        let weth = r
            .balance_changes
            .iter_mut()
            .find(|b| b.token == WETH)
            .expect("the swap's output");
        weth.delta = weth.delta * I256::try_from(kept).unwrap() / I256::try_from(10).unwrap();
        if let Some(f) = r.token_flows.iter_mut().find(|f| f.token == WETH) {
            f.amount = weth.delta.unsigned_abs();
        }
        weth.delta += I256::from_raw(compensation);
        r.token_flows.push(TokenFlow {
            token: WETH,
            from: STRANGER,
            to: ACCOUNT,
            amount: compensation,
        });
    })
}

/// The benign swap, financed by `borrowed` USDC of debt from a market the policy trusts (the
/// router), with the debt token priced at nothing in the policy's table.
fn borrowed(borrowed: U256, trusted: bool) -> Case {
    Case::benign().with(|c| {
        c.policy.allowed_tokens.push(DEBT);
        c.policy.prices.push(TablePrice {
            token: DEBT,
            amount: U256::from(1u8),
            value: U256::ZERO,
        });
        let r = c.report_mut();
        r.token_flows.push(TokenFlow {
            token: DEBT,
            from: Address::ZERO,
            to: ACCOUNT,
            amount: borrowed,
        });
        r.balance_changes.push(BalanceChange {
            token: DEBT,
            delta: I256::from_raw(borrowed),
        });
        r.debt_tokens.push(DebtToken {
            token: DEBT,
            underlying: USDC,
            market: if trusted { ROUTER } else { STRANGER },
        });
    })
}

/// `fail` has exactly `code`, `pass` none, and `fail` passes with value conservation off.
fn judged(name: &str, pass: &Case, fail: &Case, code: Code) {
    let p = pass.decide();
    assert!(
        p.approved(),
        "{name}: passing case rejected: {:#?}",
        p.violations
    );
    let f = fail.decide();
    assert_eq!(
        f.codes().collect::<Vec<_>>(),
        [code],
        "{name}: {:#?}",
        f.violations
    );
    assert_eq!(code.check(), Some(Check::MaxLoss));
    let off = fail
        .clone()
        .with(|c| c.policy.checks.set(Check::MaxLoss, false));
    assert!(
        off.decide().approved(),
        "{name}: still rejected with max_loss off"
    );
}

#[test]
fn a_feed_prices_only_with_a_fresh_complete_positive_round() {
    judged(
        "stale",
        &feed_priced(U256::ZERO, 86_400, good_answer()),
        &feed_priced(U256::ZERO, 86_401, good_answer()),
        Code::FeedStale,
    );
    judged(
        "its own bound",
        &fresh(),
        &fresh().with(|c| c.policy.price_oracles[0].max_age_secs = Some(59)),
        Code::FeedStale,
    );
    judged(
        "non-positive",
        &fresh(),
        &feed_priced(U256::ZERO, 60, I256::ZERO),
        Code::FeedInvalid,
    );
    judged(
        "incomplete",
        &fresh(),
        &fresh().with(|c| c.report_mut().protocols.feeds[0].answered_in_round = U256::from(6u8)),
        Code::FeedInvalid,
    );
    judged(
        "no round",
        &fresh(),
        &fresh().with(|c| c.report_mut().protocols.feeds.clear()),
        Code::FeedUnreadable,
    );
    judged(
        "scale",
        &feed_priced(U256::from(1_000_000u64), 60, good_answer()),
        &feed_priced(U256::from(10_000_000u64), 60, good_answer()),
        Code::FeedScaleMismatch,
    );
}

#[test]
fn a_v3_pool_prices_at_its_twap_while_slot0_stays_near_it() {
    judged(
        "diverging",
        &v3_priced(100),
        &v3_priced(102),
        Code::PoolPriceDiverges,
    );
    // Marked `spot`, the pool prices at slot0 (here 50 bps above the TWAP: a gain).
    let spot = v3_priced(50).with(|c| c.policy.price_v3_pools[0].spot = true);
    assert!(spot.decide().approved());
    // A pool the policy does not name, or a TWAP it lacks, prices nothing.
    let unnamed = v3_priced(0).with(|c| c.policy.price_v3_pools.clear());
    assert_eq!(unnamed.codes(), [Code::UnpricedAsset]);
    let no_twap = v3_priced(0).with(|c| {
        c.report_mut()
            .prices
            .retain(|p| p.source != PriceSource::V3Twap)
    });
    assert_eq!(no_twap.codes(), [Code::UnpricedAsset]);
}

#[test]
fn a_trusted_protocol_that_cannot_be_read_is_refused() {
    let gap = |via| {
        Case::benign().with(move |c| {
            c.report_mut().protocols.gaps.push(AdapterGap {
                via,
                what: "the account's positions".into(),
            })
        })
    };
    // A gap at a contract the policy does not trust says nothing about the account's value.
    judged(
        "gap",
        &gap(STRANGER),
        &gap(ROUTER),
        Code::PositionUnreadable,
    );
}

#[test]
fn an_inflow_nobody_paid_for_cannot_hide_a_loss() {
    // Half the output kept: a loss of about 0.4 ETH; a stranger's 0.4 ETH hides it under the
    // old rule, but nothing reached the stranger from the account.
    let half = ether(4) / U256::from(10u8);
    judged(
        "unpaid",
        &Case::benign(),
        &compensated(5, half),
        Code::UnpaidInflow,
    );
    // The same loss, uncompensated, is a plain loss.
    assert_eq!(compensated(5, U256::ZERO).codes(), [Code::LossExceeded]);
    // A gift with nothing to hide is no violation.
    assert!(compensated(10, half).decide().approved());
}

#[test]
fn debt_is_negative_value_whatever_the_table_says() {
    // 2,500 USDC borrowed and spent on the swap: the account owes 0.8 ETH and received 0.79.
    let debt = usdc(2_500);
    assert_eq!(borrowed(debt, true).codes(), [Code::LossExceeded]);
    // Declared by a market the policy does not trust, the token is what the table says (0):
    // the old blind spot, which only a trusted market's word closes.
    assert!(borrowed(debt, false).decide().approved());
}

#[test]
fn a_report_with_too_many_protocol_facts_is_refused_unread() {
    let many = Case::benign().with(|c| {
        c.report_mut().protocols.gaps = (0..=pace_verifier::MAX_REPORT_LIST_LEN)
            .map(|_| AdapterGap {
                via: STRANGER,
                what: "x".into(),
            })
            .collect();
    });
    assert_eq!(many.codes(), [Code::PositionUnreadable]);
}
