//! Uniswap V4's real `PoolManager` (`@uniswap/v4-core` 1.0.2) behind the real Universal Router
//! 2.1, built with it: a `V4_SWAP` whose actions are one trade the account pays and is paid
//! carries swap facts like any router's swap. The pool the calldata names is measured, its
//! `slot0` price before and after the call the quote and the impact; the larger of the swap's
//! and `TAKE_ALL`'s minimums is the minimum. Honest trades are approved and land as simulated;
//! a zero minimum is refused, and the output taken by a recipient the calldata names (`TAKE`)
//! is a command nothing reads. Named by descriptor (router, pool manager and Permit2 as pinned
//! roots), V4 trades with no router or manager in the policy's lists.

use crate::protocols_bed::{Bed, bed, codes, selector};
use alloy_primitives::{Address, U256};
use pace_abi::bindings::IERC20;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    bindings::{MockPermit2, UniversalRouter},
    ether,
    uniswap_v3::deadline,
    uniswap_v4::UniswapV4,
};
use pace_types::{Call, Policy, SwapFacts, ViolationCode as Code};

pub(crate) fn setup() -> (Bed, UniswapV4) {
    let mut b = bed();
    let a = b.a();
    let (v3, permit2, deployer) = (
        b.bed.uniswap_v3,
        b.bed.universal_router.permit2,
        b.bed.deployer,
    );
    let v4 = UniswapV4::deploy(&mut b.world.evm, &a, &v3, permit2, deployer).unwrap();
    (b, v4)
}

pub(crate) fn policy(b: &Bed, v4: &UniswapV4) -> Policy {
    let a = b.a();
    b.policy(
        &[a.weth, v4.permit2, v4.router],
        &[
            selector::<IERC20::approveCall>(),
            selector::<MockPermit2::approveCall>(),
            selector::<UniversalRouter::executeCall>(),
        ],
        &[],
        &[v4.router, v4.permit2, v4.pool_manager],
    )
}

/// 0.1 WETH sold for DAI through the V4 pool, with the swap's `min_out`, taken by the
/// account or by `take`.
fn trade(b: &Bed, v4: &UniswapV4, min_out: u128, take: Option<Address>) -> Vec<Call> {
    let a = b.a();
    let amount = ether(1) / U256::from(10u8);
    let input = UniswapV4::exact_in_single(&v4.weth_dai, a.weth, amount.to(), min_out, take);
    let expiration = b.world.evm.timestamp() + 3_600;
    v4.via_permit2(
        a.weth,
        amount,
        input,
        expiration,
        deadline(&b.world.evm).unwrap(),
    )
}

fn facts(b: &Bed, policy: &Policy, calls: Vec<Call>) -> SwapFacts {
    b.swap_facts(calls, policy)
}

fn refused(b: &Bed, policy: &Policy, calls: Vec<Call>) -> Vec<Code> {
    let evaluation = b.evaluate_claimed(b.intent(calls), policy);
    assert!(!evaluation.decision.approved());
    codes(&evaluation)
}

/// The honest trade at `f`'s output less 0.5 %, evaluated under `policy`: approved, submitted,
/// and the account's DAI risen by the simulated output.
fn trade_lands(b: &mut Bed, v4: &UniswapV4, policy: &Policy, f: &SwapFacts) {
    let a = b.a();
    let min_out: u128 = (f.amount_out * U256::from(995u16) / U256::from(1_000u16)).to();
    let evaluation = b.evaluate_claimed(b.intent(trade(b, v4, min_out, None)), policy);
    assert!(
        evaluation.decision.approved(),
        "{:?}",
        evaluation.decision.violations
    );
    let before = b.balance(a.dai, a.account);
    let result = b.submit(&evaluation, &[a.weth, a.dai]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(b.balance(a.dai, a.account) - before, f.amount_out);
}

#[test]
fn a_v4_trade_is_priced_at_its_pools_slot0_and_lands_as_simulated() {
    let (mut b, v4) = setup();
    let a = b.a();
    let policy = policy(&b, &v4);
    let f = facts(&b, &policy, trade(&b, &v4, 1, None));
    assert_eq!(f.pool, v4.pool_manager);
    assert_eq!((f.token_in, f.token_out), (a.weth, a.dai));
    assert_eq!(f.amount_in, ether(1) / U256::from(10u8));
    // 1,000 DAI per WETH at the pool's price: 100 DAI, to the rounding of √P.
    let hundred = ether(100);
    assert!(
        f.quoted_out.abs_diff(hundred) < U256::from(10u64).pow(U256::from(12u8)),
        "{}",
        f.quoted_out
    );
    // The 0.3 % fee and about 0.2 % of impact for 0.1 % of the pool's WETH.
    assert!(f.amount_out < hundred * U256::from(997u16) / U256::from(1_000u16));
    assert!(
        (10..=30).contains(&f.price_impact_bps),
        "{}",
        f.price_impact_bps
    );

    trade_lands(&mut b, &v4, &policy, &f);
}

#[test]
fn a_zero_minimum_or_a_named_taker_is_refused() {
    let (b, v4) = setup();
    let policy = policy(&b, &v4);
    let codes = refused(&b, &policy, trade(&b, &v4, 0, None));
    assert!(codes.contains(&Code::SlippageExceeded), "{codes:?}");
    let stranger = Address::repeat_byte(0x5e);
    let codes = refused(&b, &policy, trade(&b, &v4, 1, Some(stranger)));
    assert!(codes.contains(&Code::PlanNotDecoded), "{codes:?}");
}

/// Uniswap V4 by descriptor: the Universal Router, the pool manager and the Permit2 the
/// router pulls through as pinned roots, `execute` and Permit2's `approve` as entry points.
/// V4 pools are no contracts of their own (the manager keeps them), so nothing else belongs.
fn uniswap_v4_descriptor(b: &Bed, v4: &UniswapV4) -> pace_types::descriptor::Descriptor {
    use pace_types::descriptor::{DESCRIPTOR_SCHEMA, Descriptor, EntryPoint, Members, Root};
    let root = |name: &str, address: Address| Root {
        name: name.into(),
        address,
        code_hash: Some(alloy_primitives::keccak256(
            b.world.evm.code(address).expect("code"),
        )),
        implementation_code_hash: None,
    };
    Descriptor {
        schema: DESCRIPTOR_SCHEMA,
        id: "uniswap-v4".into(),
        chain_id: Some(b.world.evm.chain_id()),
        reviewed_by: Some("the protocols bed's tests".into()),
        license: Some("BUSL-1.1".into()),
        roots: vec![
            root("router", v4.router),
            root("pool_manager", v4.pool_manager),
            root("permit2", v4.permit2),
        ],
        entry_points: vec![
            EntryPoint {
                root: "router".into(),
                selectors: vec![selector::<UniversalRouter::executeCall>().into()],
            },
            EntryPoint {
                root: "permit2".into(),
                selectors: vec![selector::<MockPermit2::approveCall>().into()],
            },
        ],
        members: Members::default(),
        positions: Vec::new(),
        health: Vec::new(),
        prices: Vec::new(),
        rates: Vec::new(),
        records: Vec::new(),
        checks: Vec::new(),
    }
}

#[test]
fn a_policy_naming_v4_by_descriptor_trades_with_no_router_in_its_lists() {
    let (mut b, v4) = setup();
    let a = b.a();
    let named = policy(&b, &v4);
    let f = facts(&b, &named, trade(&b, &v4, 1, None));
    let mut policy = b.policy(&[a.weth], &[selector::<IERC20::approveCall>()], &[], &[]);
    let d = uniswap_v4_descriptor(&b, &v4);
    policy.protocols = vec![pace_types::ProtocolPin {
        file: None,
        hash: d.hash(),
        descriptor: Some(d),
    }];
    trade_lands(&mut b, &v4, &policy, &f);
    // Without the descriptor, the same lists refuse the router.
    policy.protocols.clear();
    let codes = refused(&b, &policy, trade(&b, &v4, 1_000, None));
    assert!(codes.contains(&Code::TargetNotAllowed), "{codes:?}");
}
