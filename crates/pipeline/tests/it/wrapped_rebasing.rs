//! A wrapper of a rebasing token in Lido's wstETH shape (`WrappedRebasingToken`: a plain ERC-20
//! of the token's shares, no ERC-4626 vault), valued by a descriptor's `rates` alone.
//!
//! Wrapping is value given for a token nothing prices until a pinned descriptor says what the
//! wrapper's own `stEthPerToken()` answers: then the wrap is approved, lands, and the PDR
//! carries the rate as a post-condition, so a rebase down between the decision and the landing
//! (each wrapped unit worth less than the decision counted) reverts it.

use crate::{
    door::{execute, world_relayer},
    rebasing::{balanceOfCall, decide, policy, rebaseCall, token, view},
};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_pipeline::ExecutionResult;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{
    Approval, Call, Claims, CompiledPolicy, Intent, ProtocolPin, ReadKind, TokenAmount,
    ViolationCode as Code, descriptor::Descriptor,
};
use pace_world::{Builder, World};

sol! {
    function stEthPerToken() returns (uint256);
    function wrap(uint256 amount) returns (uint256);
    function approve(address spender, uint256 amount) returns (bool);
}

/// The world with the rebasing token and its wrapper.
fn wrapped() -> (World, Address, Address) {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let token = token(&mut world);
    let (deployer, deadline) = (world.addrs.deployer, world.deadline());
    let mut b = Builder::new(&mut world.evm, deployer, deadline).unwrap();
    let wrapper = b
        .project("WrappedRebasingToken", &token.abi_encode(), "deploy")
        .unwrap();
    (world, token, wrapper)
}

/// The account wraps `amount` of its rebasing token.
fn wrap(world: &World, (token, wrapper): (Address, Address), amount: U256) -> Intent {
    let holder = world.addrs.account;
    let call = |target, data: Vec<u8>| Call {
        target,
        value: U256::ZERO,
        data: data.into(),
    };
    let approve = approveCall {
        spender: wrapper,
        amount,
    };
    Intent {
        chain_id: world.evm.chain_id(),
        account: holder,
        calls: vec![
            call(token, approve.abi_encode()),
            call(wrapper, wrapCall { amount }.abi_encode()),
        ],
        claimed: Claims {
            outflows: vec![TokenAmount { token, amount }],
            approvals: vec![Approval {
                token,
                spender: wrapper,
                amount,
            }],
            ..Claims::default()
        },
        metadata: Default::default(),
    }
}

/// The token's policy with the wrapper allowed; with `rated`, a descriptor of the wrapper that
/// rates it by `stEthPerToken()` in the token pinned.
fn wrap_policy(world: &World, (token, wrapper): (Address, Address), rated: bool) -> CompiledPolicy {
    let mut p = policy(world, token).policy().clone();
    p.allowed_tokens.push(wrapper);
    p.allowed_targets.push(wrapper);
    p.allowed_selectors.push(wrapCall::SELECTOR.into());
    p.allowed_selectors.push(approveCall::SELECTOR.into());
    if rated {
        let json = format!(
            r#"{{"schema": 1, "id": "a-wrapper", "license": "MIT",
                "roots": [{{"name": "wrapper", "address": "{wrapper:#x}"}}],
                "rates": [{{"read": {{"root": "wrapper", "view": "stEthPerToken()"}},
                            "per": "1000000000000000000", "asset": "{token:#x}"}}]}}"#
        );
        let d = Descriptor::from_json_slice(json.as_bytes()).expect("the descriptor loads");
        p.protocols = vec![ProtocolPin::from(d)];
    }
    CompiledPolicy::try_from(p).unwrap()
}

#[test]
fn a_wrap_is_priced_by_the_descriptor_rate_alone_and_lands() {
    let (mut world, token, wrapper) = wrapped();
    let holder = world.addrs.account;
    let all = view(&world, token, &balanceOfCall { holder });
    let intent = wrap(&world, (token, wrapper), all);
    let unrated = decide(
        &world,
        &intent,
        &wrap_policy(&world, (token, wrapper), false),
    );
    let codes: Vec<Code> = unrated.decision.codes().collect();
    assert!(
        codes.contains(&Code::UnpricedAsset) || codes.contains(&Code::LossExceeded),
        "{codes:?}"
    );

    let e = decide(
        &world,
        &intent,
        &wrap_policy(&world, (token, wrapper), true),
    );
    assert!(e.decision.approved(), "{:#?}", e.decision.violations);
    assert!(
        e.report
            .reads
            .iter()
            .any(|r| r.kind == ReadKind::Valuation && r.target == wrapper),
        "{:?}",
        e.report.reads
    );
    let checked = e.checked.expect("pass 2 agrees");
    let result = execute(&mut world.evm, world_relayer(), &checked, &[token, wrapper]).unwrap();
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    // 400 shares, each wrapped unit one share.
    assert_eq!(view(&world, wrapper, &balanceOfCall { holder }), ether(400));
    assert!(view(&world, token, &balanceOfCall { holder }) <= U256::from(1));
}

#[test]
fn a_rebase_down_before_the_landing_reverts_the_wrap() {
    let (mut world, token, wrapper) = wrapped();
    let intent = wrap(&world, (token, wrapper), ether(100));
    let e = decide(
        &world,
        &intent,
        &wrap_policy(&world, (token, wrapper), true),
    );
    let checked = e.checked.expect("approved");
    let rate = checked
        .signed()
        .pdr
        .checks
        .iter()
        .find(|c| c.target == wrapper && c.data.starts_with(&stEthPerTokenCall::SELECTOR))
        .expect("the wrapper's rate is a post-condition")
        .clone();
    // Slashed by 10 % after the decision: each wrapped unit is worth 10 % less.
    let oracle = world.addrs.deployer;
    let pooled = ether(990);
    world
        .evm
        .call_sol(oracle, token, U256::ZERO, &rebaseCall { pooled })
        .unwrap();
    // The rate the PDR keeps (at least the simulated 1.1 less the tolerance) is no longer there.
    assert_eq!((rate.relation, rate.word), (0, 0), "{rate:?}");
    assert!(rate.lo > ether(1) && rate.lo <= ether(11) / U256::from(10u8));
    assert!(view(&world, wrapper, &stEthPerTokenCall {}) < rate.lo);
    let result = execute(&mut world.evm, world_relayer(), &checked, &[token, wrapper]).unwrap();
    let ExecutionResult::Reverted { error, .. } = &result else {
        panic!("landed: {result:?}");
    };
    assert!(error.starts_with("PaceAccountCheckFailed"), "{error}");
}
