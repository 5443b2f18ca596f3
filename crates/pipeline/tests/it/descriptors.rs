//! Protocols trusted by descriptor, on the npm bytecode of the protocols bed: a policy that
//! names Uniswap V3 and Aave V3 by descriptor (roots, entry points, membership rules), and no
//! pool, library, implementation or rate strategy, approves and executes a supply and a swap;
//! a contract no rule admits is refused; a root whose code is not the pinned code is refused.

use crate::protocols_bed::{Bed, bed, codes};
use alloy_primitives::{Address, B256, I256, U256, keccak256};
use alloy_sol_types::{SolCall, SolConstructor, sol};
use pace_abi::rights::IAaveV3Pool;
use pace_testkit::protocols::{
    bindings::{AavePool, SwapRouter},
    ether,
    uniswap_v3::deadline,
};
use pace_types::{
    Policy, ProtocolPin, ViolationCode as Code,
    descriptor::{
        DESCRIPTOR_SCHEMA, Descriptor, EntryPoint, Members, PositionKind, PositionView, Registry,
        Root,
    },
};

/// ERC-20 `approve`.
const APPROVE: [u8; 4] = [0x09, 0x5e, 0xa7, 0xb3];

fn code_hash(b: &Bed, a: Address) -> B256 {
    keccak256(b.world.evm.code(a).expect("code"))
}

fn root(b: &Bed, name: &str, address: Address, pin: bool) -> Root {
    Root {
        name: name.into(),
        address,
        code_hash: pin.then(|| code_hash(b, address)),
        implementation_code_hash: None,
    }
}

/// Uniswap V3: the factory and SwapRouter (its code pinned, its two exact-input swaps the
/// entry points); a pool belongs when the factory's `getPool` names it for its own tokens
/// and fee.
fn uniswap_v3(b: &Bed) -> Descriptor {
    let v3 = b.bed.uniswap_v3;
    Descriptor {
        schema: DESCRIPTOR_SCHEMA,
        id: "uniswap-v3".into(),
        chain_id: Some(b.world.evm.chain_id()),
        reviewed_by: Some("the protocols bed's tests".into()),
        license: Some("GPL-2.0-or-later".into()),
        roots: vec![
            root(b, "factory", v3.factory, true),
            root(b, "router", v3.swap_router, true),
        ],
        entry_points: vec![EntryPoint {
            root: "router".into(),
            selectors: vec![
                SwapRouter::exactInputSingleCall::SELECTOR.into(),
                SwapRouter::exactInputCall::SELECTOR.into(),
            ],
        }],
        members: Members {
            registries: vec![Registry {
                root: "factory".into(),
                lookup: "getPool(address,address,uint24)".into(),
                args: vec!["token0()".into(), "token1()".into(), "fee()".into()],
            }],
            ..Members::default()
        },
        positions: Vec::new(),
        health: Vec::new(),
        prices: Vec::new(),
        rates: Vec::new(),
        records: Vec::new(),
        checks: Vec::new(),
    }
}

/// Aave V3: the pool behind its proxy (the implementation's code pinned), its registry, ACL
/// manager, oracle, data provider, the oracle's feeds and the logic libraries as roots; the
/// pool's four functions as entry points; reserve tokens and rate strategies by code hash, and
/// every implementation behind a root or member.
fn aave_v3(b: &Bed) -> Descriptor {
    let (aave, f) = (&b.bed.aave, &b.bed.feeds);
    let mut roots = vec![
        Root {
            implementation_code_hash: Some(code_hash(b, aave.pool_implementation)),
            ..root(b, "pool", aave.pool, true)
        },
        root(b, "addresses_provider", aave.addresses_provider, false),
        root(b, "acl_manager", aave.acl_manager, false),
        root(b, "oracle", aave.oracle, false),
        root(b, "data_provider", aave.data_provider, false),
        root(b, "feed_eth_usd", f.eth_usd, false),
        root(b, "feed_dai_usd", f.dai_usd, false),
        root(b, "feed_usdc_usd", f.usdc_usd, false),
    ];
    for (name, &address) in &aave.libraries {
        roots.push(root(b, name, address, true));
    }
    let mut code_hashes = Vec::new();
    for r in aave.reserves() {
        let data = b
            .world
            .evm
            .view_sol(
                aave.pool,
                &IAaveV3Pool::getReserveDataCall { asset: r.asset },
            )
            .expect("the reserve");
        for a in [
            r.a_token,
            r.variable_debt_token,
            r.stable_debt_token,
            data.interestRateStrategyAddress,
        ] {
            let h = code_hash(b, a);
            if !code_hashes.contains(&h) {
                code_hashes.push(h);
            }
        }
    }
    Descriptor {
        schema: DESCRIPTOR_SCHEMA,
        id: "aave-v3".into(),
        chain_id: Some(b.world.evm.chain_id()),
        reviewed_by: Some("the protocols bed's tests".into()),
        license: Some("BUSL-1.1".into()),
        roots,
        entry_points: vec![EntryPoint {
            root: "pool".into(),
            selectors: vec![
                AavePool::supplyCall::SELECTOR.into(),
                AavePool::borrowCall::SELECTOR.into(),
                AavePool::repayCall::SELECTOR.into(),
                AavePool::withdrawCall::SELECTOR.into(),
            ],
        }],
        members: Members {
            code_hashes,
            implementations: true,
            ..Members::default()
        },
        positions: Vec::new(),
        health: Vec::new(),
        prices: Vec::new(),
        rates: Vec::new(),
        records: Vec::new(),
        checks: Vec::new(),
    }
}

fn pinned(d: Descriptor) -> ProtocolPin {
    ProtocolPin {
        file: None,
        hash: d.hash(),
        descriptor: Some(d),
    }
}

/// The user's part of a policy (tokens, caps, prices, bounds; the aTokens it will hold) and
/// the protocols by descriptor: no target but WETH (for its `approve`), no counterparty.
pub(super) fn by_descriptor(b: &Bed, protocols: Vec<Descriptor>) -> Policy {
    let a = b.a();
    let a_weth = b.bed.aave.weth.a_token;
    let mut p = b.policy(&[a.weth], &[APPROVE], &[a_weth], &[]);
    p.protocols = protocols.into_iter().map(pinned).collect();
    p
}

/// 10 WETH supplied to Aave, then 1 WETH swapped for DAI on Uniswap V3.
fn supply_and_swap(b: &Bed) -> Vec<pace_types::Call> {
    let (a, v3, aave) = (b.a(), b.bed.uniswap_v3, &b.bed.aave);
    let pool = v3.weth_dai;
    let quote = v3.quote(&b.world.evm, &pool, a.weth, ether(1)).unwrap();
    let mut calls = aave.supply(a.weth, ether(10), a.account);
    calls.extend(v3.exact_input_single(
        &pool,
        a.weth,
        ether(1),
        quote * U256::from(9_950u64) / U256::from(10_000u64),
        a.account,
        deadline(&b.world.evm).unwrap(),
    ));
    calls
}

#[test]
fn a_policy_naming_protocols_by_descriptor_runs_a_supply_and_a_swap() {
    let mut b = bed();
    let a = b.a();
    let policy = by_descriptor(&b, vec![uniswap_v3(&b), aave_v3(&b)]);
    let evaluation = b.evaluate_claimed(b.intent(supply_and_swap(&b)), &policy);
    assert!(
        evaluation.decision.approved(),
        "{:?}",
        evaluation.decision.violations
    );
    let members = &evaluation.report.protocols.members;
    let rule_of = |c: Address| {
        members
            .iter()
            .find(|m| m.contract == c)
            .map(|m| m.rule.as_str())
    };
    assert_eq!(rule_of(b.bed.uniswap_v3.weth_dai.address), Some("registry"));
    assert_eq!(
        rule_of(b.bed.aave.pool_implementation),
        Some("implementation")
    );
    assert_eq!(rule_of(b.bed.aave.weth.a_token), Some("code_hash"));
    // Without the descriptors the same policy names nothing the calls reach.
    let bare = by_descriptor(&b, Vec::new());
    let refused = b.evaluate_claimed(b.intent(supply_and_swap(&b)), &bare);
    for code in [Code::TargetNotAllowed, Code::TouchedNotAllowed] {
        assert!(codes(&refused).contains(&code), "{:?}", codes(&refused));
    }
    let result = b.submit(&evaluation, &[a.weth, a.dai]);
    super::valuation::support::reads_back(&evaluation, &result, &[a.weth, a.dai], U256::ZERO);
}

#[test]
fn a_pool_no_rule_admits_is_refused() {
    let b = bed();
    let mut v3 = uniswap_v3(&b);
    v3.members.registries.clear();
    let policy = by_descriptor(&b, vec![v3, aave_v3(&b)]);
    let evaluation = b.evaluate_claimed(b.intent(supply_and_swap(&b)), &policy);
    let pool = b.bed.uniswap_v3.weth_dai.address;
    assert!(
        evaluation
            .decision
            .violations
            .iter()
            .any(|v| v.code == Code::TouchedNotAllowed && v.message.contains(&pool.to_string())),
        "{:?}",
        evaluation.decision.violations
    );
}

#[test]
fn a_root_running_other_code_than_pinned_is_refused() {
    let b = bed();
    for stale in ["router", "pool"] {
        let (mut v3, mut aave) = (uniswap_v3(&b), aave_v3(&b));
        let reviewed = Some(keccak256(b"the code reviewed last year"));
        if stale == "router" {
            v3.roots[1].code_hash = reviewed;
        } else {
            aave.roots[0].implementation_code_hash = reviewed;
        }
        let policy = by_descriptor(&b, vec![v3, aave]);
        let evaluation = b.evaluate_claimed(b.intent(supply_and_swap(&b)), &policy);
        assert_eq!(
            codes(&evaluation),
            [Code::ProtocolCodeChanged],
            "{stale}: {:?}",
            evaluation.decision.violations
        );
    }
}

#[test]
fn a_pin_that_is_not_the_descriptors_hash_does_not_compile() {
    let b = bed();
    let mut policy = by_descriptor(&b, vec![uniswap_v3(&b)]);
    policy.protocols[0]
        .descriptor
        .as_mut()
        .unwrap()
        .entry_points[0]
        .selectors
        .push(AavePool::borrowCall::SELECTOR.into());
    let e = policy.compile().unwrap_err().to_string();
    assert!(e.contains("protocols[0].hash"), "{e}");
}

sol! {
    contract PackedMarket {
        constructor(address collateral_, address loan_, uint256 price_);
        function id() external view returns (bytes32);
        function supplyCollateral(uint256 assets, address onBehalf) external;
        function repay(uint256 assets, address onBehalf) external;
        function borrow(uint256 assets) external;
        function withdrawCollateral(uint256 assets) external;
        function price() external view returns (uint256);
    }
}

/// A Morpho-Blue-style market no adapter reads, described as data: its entry points, and its
/// `position(id, account)` view's collateral (word 2) as the account's WETH and its borrow
/// (word 1) as DAI it owes.
pub(super) fn packed_market(b: &mut Bed) -> (Address, Descriptor) {
    let a = b.a();
    let args = PackedMarket::constructorCall {
        collateral_: a.weth,
        loan_: a.dai,
        price_: ether(1_000),
    }
    .abi_encode();
    let market = crate::protocols_bed::deploy(b, "PackedMarket", &args);
    pace_testkit::protocols::actions::fund_token(
        &mut b.world.evm,
        &a,
        a.dai,
        market,
        ether(50_000),
    )
    .unwrap();
    let id = b
        .world
        .evm
        .view_sol(market, &PackedMarket::idCall {})
        .unwrap();
    let view = |word, token, kind| PositionView {
        root: "market".into(),
        view: "position(bytes32,address)".into(),
        args: vec![id.to_string(), "account".into()],
        word,
        token,
        kind,
        secures_debt: true,
    };
    let d = Descriptor {
        schema: DESCRIPTOR_SCHEMA,
        id: "packed-market".into(),
        chain_id: Some(b.world.evm.chain_id()),
        reviewed_by: None,
        license: Some("MIT".into()),
        roots: vec![root(b, "market", market, true)],
        entry_points: vec![EntryPoint {
            root: "market".into(),
            selectors: vec![
                PackedMarket::supplyCollateralCall::SELECTOR.into(),
                PackedMarket::repayCall::SELECTOR.into(),
            ],
        }],
        members: Members::default(),
        positions: vec![
            view(2, a.weth, PositionKind::Asset),
            view(1, a.dai, PositionKind::Debt),
        ],
        health: Vec::new(),
        prices: Vec::new(),
        rates: Vec::new(),
        records: Vec::new(),
        checks: Vec::new(),
    };
    (market, d)
}

/// Collateral supplied and a loan repaid on that market: without the descriptor, value given
/// for nothing (refused); with it, the position its view reads counts as the account's, and
/// both are approved and executed as simulated.
#[test]
fn a_position_a_descriptor_reads_counts_as_the_accounts_value() {
    let mut b = bed();
    let a = b.a();
    let (market, d) = packed_market(&mut b);
    let supply = vec![
        pace_testkit::protocols::actions::approve(a.weth, market, ether(2)),
        pace_testkit::protocols::actions::call(
            market,
            &PackedMarket::supplyCollateralCall {
                assets: ether(2),
                onBehalf: a.account,
            },
        ),
    ];
    let mut without = b.policy(&[a.weth, market], &[APPROVE], &[], &[]);
    without
        .allowed_selectors
        .extend(d.entry_points[0].selectors.iter().copied());
    let refused = b.evaluate_claimed(b.intent(supply.clone()), &without);
    assert!(
        codes(&refused).contains(&Code::LossExceeded),
        "{:?}",
        codes(&refused)
    );

    let policy = by_descriptor(&b, vec![d]);
    let approved = b.evaluate_claimed(b.intent(supply), &policy);
    assert!(
        approved.decision.approved(),
        "{:?}",
        approved.decision.violations
    );
    let counted = &approved.report.positions;
    assert!(
        counted.iter().any(|p| p.market == market
            && p.token == a.weth
            && p.delta == I256::try_from(ether(2)).unwrap()),
        "{counted:?}"
    );
    let result = b.submit(&approved, &[a.weth]);
    super::valuation::support::reads_back(&approved, &result, &[a.weth], U256::ZERO);

    // A loan taken through the owner's path, repaid by a PDR: the debt falls as the DAI leaves.
    b.owner(&[pace_testkit::protocols::actions::call(
        market,
        &PackedMarket::borrowCall { assets: ether(500) },
    )]);
    let repay = vec![
        pace_testkit::protocols::actions::approve(a.dai, market, ether(500)),
        pace_testkit::protocols::actions::call(
            market,
            &PackedMarket::repayCall {
                assets: ether(500),
                onBehalf: a.account,
            },
        ),
    ];
    let mut policy = policy;
    policy.allowed_targets.push(a.dai);
    let repaid = b.evaluate_claimed(b.intent(repay), &policy);
    assert!(
        repaid.decision.approved(),
        "{:?}",
        repaid.decision.violations
    );
    let result = b.submit(&repaid, &[a.dai]);
    super::valuation::support::reads_back(&repaid, &result, &[a.dai], U256::ZERO);
}
