//! Positions nothing reads, on crafted contracts no adapter knows: a lending market that keeps
//! its positions packed under a market id and the user (Morpho Blue's layout, none of the views
//! the adapters read), and a staking pool whose every withdrawal moves a reward checkpoint
//! keyed by the user.
//!
//! A borrow is debt nothing measures: refused, on its own and when its proceeds repay a
//! stranger's loan (the account's balances then do not move at all), unless the policy names
//! the market in `unread_position_targets`; executed through the owner's path, the market holds
//! the debt. A withdrawal of collateral under a health minimum is refused (its health factor
//! cannot be read). A withdrawal from the staking pool, whose stake `balanceOf` reads, is a
//! redemption and is approved and executed; on a market that is also its depositors' share
//! ledger, a redemption of one unit beside a borrow covers the unit, not the borrow.

use crate::protocols_bed::{Bed, bed, codes, deploy, selector};
use alloy_primitives::{Address, U256, keccak256};
use alloy_sol_types::{SolConstructor, sol};
use pace_abi::bindings::IERC20;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::actions::call;
use pace_testkit::protocols::actions::fund_token;
use pace_types::{Policy, TablePrice, TokenAmount, ViolationCode as Code, units::ether};

sol! {
    contract PackedMarket {
        constructor(address collateral_, address loan_, uint256 price_);
        function supplyCollateral(uint256 assets, address onBehalf) external;
        function withdrawCollateral(uint256 assets) external;
        function borrow(uint256 assets) external;
        function repay(uint256 assets, address onBehalf) external;
    }
    contract ShareMarket {
        constructor(address asset_);
        function deposit(uint256 assets) external;
        function withdraw(uint256 shares) external;
        function borrow(uint256 assets) external;
    }
    contract IdLedgerMarket {
        constructor(address asset_);
        function open() external;
        function borrow(uint256 amount) external;
    }
    contract RewardStake {
        constructor(address stakingToken_);
        function stake(uint256 amount) external;
        function withdraw(uint256 amount) external;
        function balanceOf(address user) external view returns (uint256);
    }
}

fn stranger() -> Address {
    Address::from_word(keccak256("pace-unread/stranger"))
}

/// The market (1 WETH lends up to 800 DAI), funded with 50,000 DAI, and the account's 10 WETH
/// of collateral in it, supplied through the owner's path.
fn market(b: &mut Bed) -> Address {
    let a = b.a();
    let args = PackedMarket::constructorCall {
        collateral_: a.weth,
        loan_: a.dai,
        price_: ether(1_000),
    }
    .abi_encode();
    let market = deploy(b, "PackedMarket", &args);
    fund_token(&mut b.world.evm, &a, a.dai, market, ether(50_000)).unwrap();
    b.owner(&[
        call(
            a.weth,
            &IERC20::approveCall {
                spender: market,
                value: ether(10),
            },
        ),
        call(
            market,
            &PackedMarket::supplyCollateralCall {
                assets: ether(10),
                onBehalf: a.account,
            },
        ),
    ]);
    market
}

fn market_policy(b: &Bed, market: Address) -> Policy {
    let a = b.a();
    b.policy(
        &[market, a.dai],
        &[
            selector::<PackedMarket::borrowCall>(),
            selector::<PackedMarket::withdrawCollateralCall>(),
            selector::<PackedMarket::repayCall>(),
            selector::<IERC20::approveCall>(),
        ],
        &[],
        &[],
    )
}

#[test]
fn a_borrow_from_a_market_nothing_reads_is_debt_and_refused() {
    let mut b = bed();
    let a = b.a();
    let market = market(&mut b);
    let policy = market_policy(&b, market);
    let borrow = call(
        market,
        &PackedMarket::borrowCall {
            assets: ether(6_000),
        },
    );
    let e = b.evaluate_claimed(b.intent(vec![borrow.clone()]), &policy);
    assert_eq!(codes(&e), vec![Code::DebtUnreadable], "{:?}", e.decision);
    let unread = &e.report.unread_positions;
    assert!(
        unread
            .iter()
            .any(|u| u.contract == market && u.grew() && !u.redeemed),
        "{unread:?}"
    );
    // Its proceeds repaying a stranger's loan: the account's balances do not move at all.
    fund_token(&mut b.world.evm, &a, a.weth, stranger(), ether(10)).unwrap();
    b.send(
        stranger(),
        a.weth,
        &IERC20::approveCall {
            spender: market,
            value: ether(10),
        },
    );
    b.send(
        stranger(),
        market,
        &PackedMarket::supplyCollateralCall {
            assets: ether(10),
            onBehalf: stranger(),
        },
    );
    b.send(
        stranger(),
        market,
        &PackedMarket::borrowCall {
            assets: ether(6_000),
        },
    );
    let refinance = vec![
        borrow.clone(),
        call(
            a.dai,
            &IERC20::approveCall {
                spender: market,
                value: ether(6_000),
            },
        ),
        call(
            market,
            &PackedMarket::repayCall {
                assets: ether(6_000),
                onBehalf: stranger(),
            },
        ),
    ];
    let e = b.evaluate_claimed(b.intent(refinance), &policy);
    assert!(
        codes(&e).contains(&Code::DebtUnreadable),
        "{:?}",
        e.decision
    );
    // Named by a user who has read what the market records: judged as before, and executed
    // the market holds the debt while the account holds the DAI.
    let mut trusting = policy;
    trusting.unread_position_targets = vec![market];
    let e = b.evaluate_claimed(b.intent(vec![borrow]), &trusting);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let dai = b.balance(a.dai, a.account);
    let r = b.submit(&e, &[a.dai]);
    assert!(matches!(r, ExecutionResult::Executed { .. }), "{r:?}");
    assert_eq!(b.balance(a.dai, a.account), dai + ether(6_000));
}

/// A market that books the debt under a position id kept under the borrower
/// (`owedById[posOf[borrower]]`): no changed slot is keyed by the account, the id it keeps
/// under the account links them. The borrow is debt nothing measures: refused.
#[test]
fn a_borrow_booked_under_a_position_id_is_debt_and_refused() {
    let mut b = bed();
    let a = b.a();
    let args = IdLedgerMarket::constructorCall { asset_: a.dai }.abi_encode();
    let market = deploy(&mut b, "IdLedgerMarket", &args);
    fund_token(&mut b.world.evm, &a, a.dai, market, ether(50_000)).unwrap();
    // Another borrower first, so the account's id is no small constant of the layout.
    b.send(stranger(), market, &IdLedgerMarket::openCall {});
    b.owner(&[call(market, &IdLedgerMarket::openCall {})]);
    let policy = b.policy(
        &[market],
        &[selector::<IdLedgerMarket::borrowCall>()],
        &[],
        &[],
    );
    let borrow = call(
        market,
        &IdLedgerMarket::borrowCall {
            amount: ether(1_000),
        },
    );
    let e = b.evaluate_claimed(b.intent(vec![borrow]), &policy);
    assert_eq!(codes(&e), vec![Code::DebtUnreadable], "{:?}", e.decision);
    assert!(
        e.report
            .unread_positions
            .iter()
            .any(|u| u.contract == market && u.grew()),
        "{:?}",
        e.report.unread_positions
    );
}

#[test]
fn collateral_out_of_a_market_nothing_reads_needs_a_health_factor() {
    let mut b = bed();
    let market = market(&mut b);
    let policy = market_policy(&b, market);
    let withdraw = call(
        market,
        &PackedMarket::withdrawCollateralCall { assets: ether(1) },
    );
    let e = b.evaluate_claimed(b.intent(vec![withdraw.clone()]), &policy);
    assert_eq!(
        codes(&e),
        vec![Code::HealthFactorUnreadable],
        "{:?}",
        e.decision
    );
    // With no health minimum, taking back what the account supplied is no one's concern.
    let mut no_min = policy;
    no_min.min_health_factor_bps = None;
    let e = b.evaluate_claimed(b.intent(vec![withdraw]), &no_min);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
}

#[test]
fn a_staking_withdrawal_read_by_balance_of_is_a_redemption() {
    let mut b = bed();
    let a = b.a();
    let args = RewardStake::constructorCall {
        stakingToken_: a.dai,
    }
    .abi_encode();
    let stake = deploy(&mut b, "RewardStake", &args);
    b.owner(&[
        call(
            a.dai,
            &IERC20::approveCall {
                spender: stake,
                value: ether(1_000),
            },
        ),
        call(
            stake,
            &RewardStake::stakeCall {
                amount: ether(1_000),
            },
        ),
    ]);
    // The stake answers balanceOf: a claim on DAI the account holds, priced as DAI.
    let mut policy = b.policy(
        &[stake],
        &[selector::<RewardStake::withdrawCall>()],
        &[stake],
        &[],
    );
    policy.spend_caps.push(TokenAmount {
        token: stake,
        amount: ether(1_000),
    });
    policy.prices.push(TablePrice {
        token: stake,
        amount: ether(1_000),
        value: ether(1),
    });
    let withdraw = call(stake, &RewardStake::withdrawCall { amount: ether(400) });
    let e = b.evaluate_claimed(b.intent(vec![withdraw]), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    // The checkpoint that grew is reported, as the bookkeeping of a redemption.
    assert!(
        e.report
            .unread_positions
            .iter()
            .all(|u| u.contract == stake && u.redeemed),
        "{:?}",
        e.report.unread_positions
    );
    let dai = b.balance(a.dai, a.account);
    let r = b.submit(&e, &[a.dai]);
    assert!(matches!(r, ExecutionResult::Executed { .. }), "{r:?}");
    assert_eq!(b.balance(a.dai, a.account), dai + ether(400));
}

#[test]
fn a_redemption_covers_what_it_is_worth_not_a_borrow_beside_it() {
    let mut b = bed();
    let a = b.a();
    let args = ShareMarket::constructorCall { asset_: a.dai }.abi_encode();
    let market = deploy(&mut b, "ShareMarket", &args);
    fund_token(&mut b.world.evm, &a, a.dai, market, ether(10_000)).unwrap();
    b.owner(&[
        call(
            a.dai,
            &IERC20::approveCall {
                spender: market,
                value: ether(1_000),
            },
        ),
        call(
            market,
            &ShareMarket::depositCall {
                assets: ether(1_000),
            },
        ),
    ]);
    // Its shares answer balanceOf: a claim on DAI, priced as DAI.
    let mut policy = b.policy(
        &[market],
        &[
            selector::<ShareMarket::withdrawCall>(),
            selector::<ShareMarket::borrowCall>(),
        ],
        &[market],
        &[],
    );
    policy.spend_caps.push(TokenAmount {
        token: market,
        amount: ether(1_000),
    });
    policy.prices.push(TablePrice {
        token: market,
        amount: ether(1_000),
        value: ether(1),
    });
    let withdraw = |shares| call(market, &ShareMarket::withdrawCall { shares });
    let e = b.evaluate_claimed(b.intent(vec![withdraw(ether(400))]), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let borrow = call(market, &ShareMarket::borrowCall { assets: ether(500) });
    let e = b.evaluate_claimed(b.intent(vec![withdraw(U256::from(1u8)), borrow]), &policy);
    assert!(
        codes(&e).contains(&Code::DebtUnreadable),
        "{:?}",
        e.decision
    );
}
