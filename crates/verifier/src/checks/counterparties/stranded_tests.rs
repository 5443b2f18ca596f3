//! Who counts as having given something back for what it kept: an asset of its own leaving
//! (per token, not netted across tokens), its own token minted to another, another token
//! minted by it to another, the account's position with it improving, a payment back to the
//! account, or an intake only from share issuers that minted; nothing else. The
//! account, the zero address, payees and fee collectors are never holders (mutation testing
//! found these untested).

use super::stranded;
use crate::value::Trusted;
use alloy_primitives::{Address, I256, U256};
use pace_types::{Minter, PositionChange, SimulationReport, TokenFlow};

const ACCOUNT: Address = Address::repeat_byte(0xaa);
const STRANGER: Address = Address::repeat_byte(0x5e);
const POOL: Address = Address::repeat_byte(0x50);
const OTHER: Address = Address::repeat_byte(0x51);
const T1: Address = Address::repeat_byte(0x01);
const T2: Address = Address::repeat_byte(0x02);

fn flow(token: Address, from: Address, to: Address, amount: u64) -> TokenFlow {
    TokenFlow {
        token,
        from,
        to,
        amount: U256::from(amount),
    }
}

/// The account pays the pool 10 of T1, plus `more`.
fn report(more: impl FnOnce(&mut SimulationReport)) -> SimulationReport {
    let mut r: SimulationReport = serde_json::from_str(
        r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
            "block_number":1,"timestamp":1,"success":true}"#,
    )
    .unwrap();
    r.token_flows.push(flow(T1, ACCOUNT, POOL, 10));
    more(&mut r);
    r
}

fn holders(r: &SimulationReport) -> Vec<Address> {
    stranded(r, ACCOUNT, &[], &[], &Trusted::default())
        .into_iter()
        .map(|s| s.0)
        .collect()
}

#[test]
fn a_pool_that_pays_another_token_back_gave_something() {
    // A swap: 10 T1 in, 4 T2 out. The two tokens are not netted together.
    let r = report(|r| r.token_flows.push(flow(T2, POOL, ACCOUNT, 4)));
    assert!(holders(&r).is_empty());
    // Nothing back: the pool keeps the 10.
    assert_eq!(holders(&report(|_| {})), [POOL]);
}

#[test]
fn minting_its_own_token_to_another_is_giving_and_moving_it_is_not() {
    // LP tokens minted to the account.
    let minted = report(|r| r.token_flows.push(flow(POOL, Address::ZERO, ACCOUNT, 5)));
    assert!(holders(&minted).is_empty());
    // Minted to itself: nothing given.
    let to_itself = report(|r| r.token_flows.push(flow(POOL, Address::ZERO, POOL, 5)));
    assert_eq!(holders(&to_itself), [POOL]);
    // Its token moved between others, not minted: nothing given by the pool.
    let moved = report(|r| r.token_flows.push(flow(POOL, STRANGER, ACCOUNT, 5)));
    assert_eq!(holders(&moved), [POOL]);
    // Another token minted to the account: not the pool's own.
    let other = report(|r| r.token_flows.push(flow(T2, Address::ZERO, ACCOUNT, 5)));
    assert_eq!(holders(&other), [POOL]);
}

#[test]
fn a_mint_the_pool_made_to_another_is_giving() {
    let mint =
        |by: Address, to: Address| report(move |r| r.minters.push(Minter { token: T2, to, by }));
    assert!(holders(&mint(POOL, ACCOUNT)).is_empty());
    // Made by another contract, or by the pool to itself: nothing given by the pool.
    assert_eq!(holders(&mint(OTHER, ACCOUNT)), [POOL]);
    assert_eq!(holders(&mint(POOL, POOL)), [POOL]);
}

#[test]
fn a_better_position_with_it_is_giving() {
    let position = |market: Address, delta: i64| {
        report(move |r| {
            r.positions.push(PositionChange {
                market,
                token: T1,
                delta: I256::try_from(delta).unwrap(),
            })
        })
    };
    assert!(holders(&position(POOL, 5)).is_empty());
    // A better position elsewhere, or a worse one with it: nothing given by the pool.
    assert_eq!(holders(&position(OTHER, 5)), [POOL]);
    assert_eq!(holders(&position(POOL, -5)), [POOL]);
}

#[test]
fn the_account_the_zero_address_payees_and_fee_collectors_keep_what_they_get() {
    let bare = |flows: Vec<TokenFlow>| {
        let mut r = report(|_| {});
        r.token_flows = flows;
        r
    };
    // An airdrop to the account; a stranger's burn.
    assert!(holders(&bare(vec![flow(T2, STRANGER, ACCOUNT, 3)])).is_empty());
    assert!(holders(&bare(vec![flow(T2, STRANGER, Address::ZERO, 3)])).is_empty());
    // A payee and a fee collector paid by the pool's counterpart.
    let paid = bare(vec![
        flow(T2, STRANGER, OTHER, 3),
        flow(T1, STRANGER, POOL, 3),
    ]);
    assert_eq!(
        stranded(&paid, ACCOUNT, &[OTHER], &[POOL], &Trusted::default()),
        Vec::<(Address, Address, U256)>::new()
    );
    assert_eq!(holders(&paid), [OTHER, POOL]);
}

// Protocol valuation (adapters).

/// A trusted market (its address among the policy's targets) and what the adapters read.
fn trusted_report(
    more: impl FnOnce(&mut SimulationReport),
) -> (SimulationReport, pace_types::Policy) {
    let policy = pace_types::Policy {
        allowed_targets: vec![POOL, OTHER],
        ..pace_types::Policy::default()
    };
    (report(more), policy)
}

fn trusted_holders(r: &SimulationReport, p: &pace_types::Policy) -> Vec<Address> {
    stranded(r, ACCOUNT, &[], &[], &Trusted::of(r, p))
        .into_iter()
        .map(|s| s.0)
        .collect()
}

#[test]
fn an_nft_a_seller_mints_of_its_own_is_giving() {
    let nft = |token: Address, to: Address| {
        report(move |r| {
            r.nft_flows.push(pace_types::NftFlow {
                token,
                from: Address::ZERO,
                to,
                id: U256::from(1u8),
                amount: U256::from(1u8),
                multi: false,
            })
        })
    };
    assert!(holders(&nft(POOL, ACCOUNT)).is_empty());
    assert_eq!(holders(&nft(POOL, POOL)), [POOL]);
    assert_eq!(holders(&nft(OTHER, ACCOUNT)), [POOL]);
}

#[test]
fn a_trusted_markets_addresses_are_one_counterparty() {
    // The account repays 10 of T1 to the aToken (OTHER's member T2) and the market burns the
    // account's debt token (T2): the aToken gave back the debt.
    let group = |market: Address| pace_types::CounterpartyGroup {
        market,
        members: vec![market, T2, STRANGER],
    };
    let debt = |market: Address| pace_types::DebtToken {
        token: T2,
        underlying: T1,
        market,
    };
    let repay = |market: Address| {
        trusted_report(move |r| {
            r.token_flows = vec![
                flow(T1, ACCOUNT, STRANGER, 10),
                flow(T2, ACCOUNT, Address::ZERO, 10),
            ];
            r.protocols.groups.push(group(market));
            r.debt_tokens.push(debt(market));
        })
    };
    let (r, p) = repay(OTHER);
    assert!(trusted_holders(&r, &p).is_empty());
    // Declared by a market the policy does not trust: the aToken keeps the repayment.
    let (r, p) = repay(Address::repeat_byte(0x77));
    assert_eq!(trusted_holders(&r, &p), [STRANGER]);
}

#[test]
fn a_better_v3_position_or_a_lower_debt_is_giving() {
    let v3 = |liquidity_after: u64| {
        trusted_report(move |r| {
            r.protocols.v3_positions.push(pace_types::V3Position {
                manager: OTHER,
                id: U256::from(1u8),
                pool: POOL,
                token0: T1,
                token1: T2,
                tick_lower: -10,
                tick_upper: 10,
                sqrt_lower_x96: U256::from(1u8),
                sqrt_upper_x96: U256::from(2u8),
                before: None,
                after: Some(pace_types::V3Liquidity {
                    liquidity: U256::from(liquidity_after),
                    owed0: U256::ZERO,
                    owed1: U256::ZERO,
                }),
            })
        })
    };
    let (r, p) = v3(5);
    assert!(trusted_holders(&r, &p).is_empty());
    let (r, p) = v3(0);
    assert_eq!(trusted_holders(&r, &p), [POOL]);
    let debt = |before: u64, after: u64| {
        trusted_report(move |r| {
            r.protocols.lending_debts.push(pace_types::LendingDebt {
                market: POOL,
                token: T1,
                before: U256::from(before),
                after: U256::from(after),
            })
        })
    };
    let (r, p) = debt(10, 0);
    assert!(trusted_holders(&r, &p).is_empty());
    let (r, p) = debt(0, 10);
    assert_eq!(trusted_holders(&r, &p), [POOL]);
}

#[test]
fn a_round_trip_pays_back_and_a_strategy_sits_behind_its_vault() {
    // 10 T1 in, 10 T2 out, 10 T2 back in, 9 T1 out: the pool keeps a fee of 1 T1 and paid the
    // account in the same calls, so value conservation prices what it kept.
    let round_trip = report(|r| {
        r.token_flows.push(flow(T2, POOL, ACCOUNT, 10));
        r.token_flows.push(flow(T2, ACCOUNT, POOL, 10));
        r.token_flows.push(flow(T1, POOL, ACCOUNT, 9));
    });
    assert!(holders(&round_trip).is_empty());
    // Paying a stranger is no payment back.
    let to_stranger = report(|r| r.token_flows.push(flow(T1, POOL, STRANGER, 1)));
    assert!(holders(&to_stranger).contains(&POOL));
    // The vault (POOL) mints its shares to the account and forwards the deposit to OTHER.
    let vault = |mint: bool| {
        report(move |r| {
            if mint {
                r.token_flows.push(flow(POOL, Address::ZERO, ACCOUNT, 10));
            }
            r.token_flows.push(flow(T1, POOL, OTHER, 10));
        })
    };
    assert!(holders(&vault(true)).is_empty());
    // No shares minted: the vault gave nothing, so what reached its strategy is stranded.
    assert_eq!(holders(&vault(false)), [OTHER]);
    // A holder fed by the issuer and by someone else is not behind the issuer alone.
    let mixed = report(|r| {
        r.token_flows.push(flow(POOL, Address::ZERO, ACCOUNT, 10));
        r.token_flows.push(flow(T1, POOL, OTHER, 10));
        r.token_flows.push(flow(T1, ACCOUNT, OTHER, 3));
    });
    assert_eq!(holders(&mixed), [OTHER]);
}
