//! Health as descriptor data, on the Morpho-Blue-style market no adapter reads
//! (`PackedMarket`: positions packed under a market id, a fixed price, 80 % LTV, no health
//! view). Without a health model a borrow fails closed; with one, a borrow at or above the
//! policy's minimum is approved and executed, one below it refused, and the reads the health
//! factor rests on are signed: collateral taken out of the position between the decision and
//! the landing reverts the PDR on-chain.

use super::descriptors::{PackedMarket, by_descriptor, packed_market};
use crate::protocols_bed::{Bed, bed, codes};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_pipeline::{Evaluation, ExecutionResult};
use pace_testkit::protocols::{actions, ether};
use pace_types::{
    Policy, ViolationCode as Code,
    descriptor::{Descriptor, HealthModel, ViewRead},
};

/// The market's health: positions 0 (collateral, WETH) and 1 (debt, DAI), its `price()` of
/// 1e18 collateral units in DAI units, liquidated at 80 %.
fn modelled(mut d: Descriptor) -> Descriptor {
    d.health = vec![HealthModel {
        collateral: 0,
        debt: 1,
        price: ViewRead {
            root: "market".into(),
            view: "price()".into(),
            args: vec![],
            word: 0,
        },
        price_scale: ether(1),
        threshold_bps: 8_000,
    }];
    d.entry_points[0]
        .selectors
        .push(PackedMarket::borrowCall::SELECTOR.into());
    d
}

/// 2 WETH of collateral supplied by the owner.
fn supplied(b: &mut Bed, market: Address) {
    let a = b.a();
    b.owner(&[
        actions::approve(a.weth, market, ether(2)),
        actions::call(
            market,
            &PackedMarket::supplyCollateralCall {
                assets: ether(2),
                onBehalf: a.account,
            },
        ),
    ]);
}

fn borrow(b: &Bed, market: Address, dai: u64, policy: &Policy) -> Evaluation {
    let calls = vec![actions::call(
        market,
        &PackedMarket::borrowCall { assets: ether(dai) },
    )];
    b.evaluate_claimed(b.intent(calls), policy)
}

#[test]
fn a_borrow_without_a_health_model_fails_closed() {
    let mut b = bed();
    let (market, d) = packed_market(&mut b);
    supplied(&mut b, market);
    let mut d = d;
    d.entry_points[0]
        .selectors
        .push(PackedMarket::borrowCall::SELECTOR.into());
    let e = borrow(&b, market, 500, &by_descriptor(&b, vec![d]));
    assert!(
        codes(&e).contains(&Code::HealthFactorUnreadable),
        "{:?}",
        codes(&e)
    );
}

#[test]
fn a_modelled_borrow_is_judged_by_its_health_and_signs_what_it_rests_on() {
    let mut b = bed();
    let a = b.a();
    let (market, d) = packed_market(&mut b);
    supplied(&mut b, market);
    let policy = by_descriptor(&b, vec![modelled(d)]);

    // 2 WETH at 1,000 DAI, 80 %: 1,500 DAI owed is 1.067, under the policy's 1.2.
    let low = borrow(&b, market, 1_500, &policy);
    assert!(
        codes(&low).contains(&Code::HealthFactorTooLow),
        "{:?}",
        codes(&low)
    );

    // 500 DAI owed is 3.2: approved, with the collateral, the price and the debt signed.
    let e = borrow(&b, market, 500, &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let fact = e
        .report
        .lending
        .iter()
        .find(|f| f.market == market)
        .expect("a lending fact for the market");
    assert_eq!(fact.after.health_factor_bps, Some(32_000));
    assert!(fact.lowers);
    let checks = &e.checked.as_ref().expect("pass 2 held").signed().pdr.checks;
    let on_market: Vec<_> = checks.iter().filter(|c| c.target == market).collect();
    let price = PackedMarket::priceCall {}.abi_encode();
    assert!(
        on_market.iter().any(|c| c.data.as_ref() == price.as_slice()
            && c.lo == ether(1_000) * U256::from(9_950u64) / U256::from(10_000u64)),
        "the price is kept: {checks:?}"
    );
    assert!(
        on_market
            .iter()
            .any(|c| c.word == 2 && c.lo == ether(2) * U256::from(9_950u64) / U256::from(10_000u64)),
        "the collateral is kept: {checks:?}"
    );
    assert!(
        on_market.iter().any(|c| c.word == 1
            && c.lo.is_zero()
            && c.hi == ether(500) * U256::from(10_050u64) / U256::from(10_000u64)),
        "the debt is capped: {checks:?}"
    );
    let dai = b.balance(a.dai, a.account);
    let done = b.submit(&e, &[a.dai]);
    assert!(matches!(done, ExecutionResult::Executed { .. }), "{done:?}");
    assert_eq!(b.balance(a.dai, a.account), dai + ether(500));
}

/// The decision rested on 2 WETH of collateral. The owner takes 0.6 WETH out after it: the
/// market still lends (1,000 DAI is under 80 % of 1,400) and every balance moves as simulated,
/// but the position would land at 1.12, under the policy's 1.2. The account reverts the PDR.
#[test]
fn collateral_taken_out_before_the_landing_reverts_the_pdr() {
    let mut b = bed();
    let a = b.a();
    let (market, d) = packed_market(&mut b);
    supplied(&mut b, market);
    b.owner(&[actions::call(
        market,
        &PackedMarket::borrowCall { assets: ether(500) },
    )]);
    let policy = by_descriptor(&b, vec![modelled(d)]);
    let e = borrow(&b, market, 500, &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);

    b.owner(&[actions::call(
        market,
        &PackedMarket::withdrawCollateralCall {
            assets: ether(6) / U256::from(10u8),
        },
    )]);
    let dai = b.balance(a.dai, a.account);
    let done = b.submit(&e, &[a.dai]);
    assert_eq!(
        done.revert_name(),
        Some("PaceAccountCheckFailed"),
        "the PDR must revert on its post-condition: {done:?}"
    );
    assert_eq!(b.balance(a.dai, a.account), dai, "nothing borrowed");
}
