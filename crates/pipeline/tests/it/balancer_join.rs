//! Joins and exits of a Balancer V2 weighted pool on the real Vault and pool
//! (`@balancer-labs/v2-deployments`). A pool the policy trusts to price its shares
//! (`price_pools`) values them by its balances in the Vault over its supply, so a join paying
//! WETH and DAI for the pool's shares, and an exit paying the shares back for both tokens,
//! conserve value and are approved; both land as simulated. For shares the account receives
//! the PDR keeps the pool's own invariant per share (`getRate`) from falling at execution, so
//! shares minted for nothing between the decision and the landing revert the join. A pool whose
//! own price a trade pushed away from the policy's prices before the decision values no shares
//! (`POOL_PRICE_DIVERGES`): its balances would overstate them. A pool the policy does not trust
//! prices nothing: its shares are unpriced, and the join is refused.

use crate::balancer::{Fixture, fixture};
use crate::door::{execute, world_relayer};
use crate::protocols_bed::selector;
use alloy_primitives::Address;
use alloy_primitives::U256;
use alloy_sol_types::{SolCall, sol};
use pace_abi::balancer::IBalancerPoolView;
use pace_pipeline::{Evaluation, ExecutionResult};
use pace_testkit::ether;
use pace_testkit::protocols::{
    actions::{fund_and_approve, fund_token},
    balancer::GIVEN_IN,
    uniswap_v3::deadline,
};
use pace_types::{Call, Policy, ViolationCode as Code};

sol! {
    function joinPool(bytes32 poolId, address sender, address recipient, (address[],uint256[],bytes,bool) request) external payable;
    function exitPool(bytes32 poolId, address sender, address recipient, (address[],uint256[],bytes,bool) request) external;
    function totalSupply() external view returns (uint256);
}

/// The storage slot of a Balancer pool token's `_totalSupply` (after `_balances` and
/// `_allowances`); checked against `totalSupply()` where it is used.
const SUPPLY_SLOT: u8 = 2;

/// The fixture's policy with joins and exits allowed, the WETH/DAI pool's shares a token and
/// the pool trusted to price them (`trusted`), and the Vault's fee collector touched.
fn policy(f: &Fixture, trusted: bool) -> Policy {
    let mut p = f.policy();
    p.allowed_selectors.push(selector::<joinPoolCall>().into());
    p.allowed_selectors.push(selector::<exitPoolCall>().into());
    p.allowed_tokens.push(f.weth_dai.pool);
    p.allowed_touched.push(f.balancer.fees_collector);
    p.spend_caps.push(pace_types::TokenAmount {
        token: f.weth_dai.pool,
        amount: ether(1_000),
    });
    if trusted {
        p.price_pools.push(f.weth_dai.pool);
    }
    p
}

/// WETH and DAI amounts in the pool's token order.
fn amounts(f: &Fixture, weth: U256, dai: U256) -> Vec<U256> {
    let a = f.b.a();
    f.weth_dai
        .tokens
        .iter()
        .map(|t| if *t == a.weth { weth } else { dai })
        .collect()
}

/// Approve the Vault for both tokens, then join with them (1,000 DAI per WETH at the pool's
/// 80/20 weights: 250 DAI per WETH keeps its proportions).
fn join(f: &Fixture, weth: U256, dai: U256) -> Vec<Call> {
    let a = f.b.a();
    let shares = U256::from(1u8);
    vec![
        f.balancer.approve(a.weth, weth),
        f.balancer.approve(a.dai, dai),
        f.balancer.join(
            &f.weth_dai,
            &amounts(f, weth, dai),
            shares,
            a.account,
            a.account,
        ),
    ]
}

fn decide(f: &Fixture, calls: Vec<Call>, policy: &Policy) -> Evaluation {
    f.b.evaluate_claimed(f.b.intent(calls), policy)
}

fn codes(e: &Evaluation) -> Vec<Code> {
    e.decision.violations.iter().map(|v| v.code).collect()
}

/// The fixture with 250 DAI beside the account's 10 WETH.
fn funded() -> Fixture {
    let mut f = fixture();
    let a = f.b.a();
    fund_token(&mut f.b.world.evm, &a, a.dai, a.account, ether(250)).unwrap();
    f
}

fn supply(f: &Fixture) -> U256 {
    f.b.world
        .evm
        .view_sol(f.weth_dai.pool, &totalSupplyCall {})
        .unwrap()
}

#[test]
fn a_join_of_a_trusted_pool_is_approved_and_lands_and_its_shares_exit_again() {
    let mut f = funded();
    let a = f.b.a();
    let dai_before = f.b.balance(a.dai, a.account);
    let e = decide(&f, join(&f, ether(1), ether(250)), &policy(&f, true));
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let checked = e.checked.as_ref().unwrap();
    let rate = checked
        .signed()
        .pdr
        .checks
        .iter()
        .find(|c| {
            c.target == f.weth_dai.pool
                && c.data.as_ref() == IBalancerPoolView::getRateCall::SELECTOR
        })
        .expect("the pool's invariant per share is a post-condition");
    assert!(rate.lo > U256::ZERO, "{rate:?}");
    let result = f.b.submit(&e, &[a.weth, a.dai, f.weth_dai.pool]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    let shares = f.b.balance(f.weth_dai.pool, a.account);
    assert!(shares > U256::ZERO);
    assert_eq!(f.b.balance(a.dai, a.account), dai_before - ether(250));

    // Half of them paid back, for both tokens, in proportion.
    let half = shares / U256::from(2u8);
    let exit = f.balancer.exit(
        &f.weth_dai,
        half,
        &amounts(&f, U256::from(1u8), U256::from(1u8)),
        a.account,
        a.account,
    );
    let (weth, dai) = (
        f.b.balance(a.weth, a.account),
        f.b.balance(a.dai, a.account),
    );
    let e = decide(&f, vec![exit], &policy(&f, true));
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let result = f.b.submit(&e, &[a.weth, a.dai, f.weth_dai.pool]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(f.b.balance(f.weth_dai.pool, a.account), shares - half);
    // About half of what went in (the shares' part of the pool), less rounding.
    let got = f.b.balance(a.dai, a.account) - dai;
    assert!(got > ether(124) && got <= ether(125), "{got}");
    assert!(f.b.balance(a.weth, a.account) - weth > ether(49) / U256::from(100u8));
}

#[test]
fn shares_minted_for_nothing_before_the_join_lands_revert_it() {
    let mut f = funded();
    let a = f.b.a();
    let e = decide(&f, join(&f, ether(1), ether(250)), &policy(&f, true));
    let checked = e.checked.expect("approved");
    // The pool's supply doubled after the decision, its balances unchanged: each share is
    // worth half (as if the pool minted shares for nothing).
    let pool = f.weth_dai.pool;
    let slot = U256::from(SUPPLY_SLOT);
    let was = supply(&f);
    assert_eq!(f.b.world.evm.storage(pool, slot).unwrap(), was);
    f.b.world
        .evm
        .set_storage(pool, slot, was * U256::from(2u8))
        .unwrap();
    let result = execute(&mut f.b.world.evm, world_relayer(), &checked, &[a.weth]).unwrap();
    let ExecutionResult::Reverted { error, .. } = &result else {
        panic!("landed: {result:?}");
    };
    assert!(error.starts_with("PaceAccountCheckFailed"), "{error}");
    assert_eq!(f.b.balance(pool, a.account), U256::ZERO);
}

#[test]
fn a_pool_a_descriptor_lists_with_the_pool_share_rule_prices_its_shares() {
    let mut f = funded();
    let a = f.b.a();
    // No pool in the policy: Balancer by descriptor, its pools admitted by the factory's list.
    let pinned = |rule: bool| {
        let mut p = policy(&f, false);
        let mut d = crate::balancer_descriptor::balancer_v2(&f);
        d.entry_points[0].selectors.extend(
            [joinPoolCall::SELECTOR, exitPoolCall::SELECTOR].map(pace_types::Selector::from),
        );
        if rule {
            d.prices.push(pace_types::descriptor::PriceRule::PoolShare);
        }
        p.allowed_touched.retain(|t| *t != f.weth_dai.pool);
        p.protocols = vec![pace_types::ProtocolPin::from(d)];
        p
    };
    let without = decide(&f, join(&f, ether(1), ether(250)), &pinned(false));
    assert_eq!(codes(&without), vec![Code::UnpricedAsset]);
    let e = decide(&f, join(&f, ether(1), ether(250)), &pinned(true));
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    assert!(
        e.report
            .protocols
            .members
            .iter()
            .any(|m| m.contract == f.weth_dai.pool && m.rule == "listing")
    );
    let rate = IBalancerPoolView::getRateCall::SELECTOR;
    assert!(
        e.checked
            .as_ref()
            .unwrap()
            .signed()
            .pdr
            .checks
            .iter()
            .any(|c| { c.target == f.weth_dai.pool && c.data.as_ref() == rate }),
        "the pool's invariant per share is a post-condition"
    );
    let result = f.b.submit(&e, &[a.weth, a.dai, f.weth_dai.pool]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert!(f.b.balance(f.weth_dai.pool, a.account) > U256::ZERO);
}

#[test]
fn a_pool_pushed_off_the_policys_prices_values_no_shares() {
    let mut f = funded();
    let a = f.b.a();
    // A stranger buys WETH with 61,500 DAI before the decision (in steps: the pool takes at most
    // 30 % of a balance in one swap): the pool holds far more DAI than the policy's 1,000 DAI
    // per WETH says it should. At the policy's prices its balances are then worth more than
    // its shares fetch once it is traded back.
    let stranger = Address::repeat_byte(0x5e);
    let evm = &mut f.b.world.evm;
    fund_and_approve(evm, &a, a.dai, (stranger, f.balancer.vault), ether(61_500)).unwrap();
    for step in [7_000, 9_000, 11_500, 15_000, 19_000] {
        let d = deadline(&*evm).unwrap();
        let skew = f.balancer.swap(
            &f.weth_dai,
            GIVEN_IN,
            a.dai,
            a.weth,
            ether(step),
            U256::from(1u8),
            stranger,
            stranger,
            d,
        );
        let out = evm
            .call(stranger, skew.target, U256::ZERO, skew.data)
            .unwrap();
        assert!(out.success, "{out:?}");
    }
    let e = decide(&f, join(&f, ether(1), ether(250)), &policy(&f, true));
    assert_eq!(codes(&e), vec![Code::PoolPriceDiverges]);
    let message = &e.decision.violations[0].message;
    assert!(
        message.contains("its shares are not valued by its balances"),
        "{message}"
    );
}

#[test]
fn a_pool_the_policy_does_not_trust_prices_nothing() {
    let f = funded();
    let e = decide(&f, join(&f, ether(1), ether(250)), &policy(&f, false));
    assert_eq!(codes(&e), vec![Code::UnpricedAsset]);
    // Trusted, a join paying WETH alone (a trade inside the pool, at its fee) is within the
    // policy's loss bound.
    let one_sided = decide(&f, join(&f, ether(1), U256::ZERO), &policy(&f, true));
    assert!(
        one_sided.decision.approved(),
        "{:?}",
        one_sided.decision.violations
    );
}
