//! A two-reserve pool that dilutes its shares only once its boss armed it, in a transaction of
//! its own: every balance moves as simulated and the pool keeps its reserves, but the shares
//! the account received are worth a small part of what it paid. The pool is one the policy
//! trusts to price its shares (`price_pools`); the PDR signs, as a post-condition, what the
//! received shares are worth by the stateless helper `PaceShareValue` (the geometric mean of
//! the reserves per share), and the armed join reverts on-chain whoever lands it. Signed
//! without post-conditions, it executes and the account's shares lose most of their value.

use crate::door::evaluate;
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_abi::bindings::{IERC20, IPaceShareValue, PaceAccount};
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{
    Call, Claims, CompiledPolicy, Intent,
    pdr::{CheckRelation, SHARE_VALUE_HELPER},
};
use pace_world::{Builder, World, default_policy};

sol! {
    function arm();
    function join(uint256 amount0, uint256 amount1, address to) returns (uint256);
}

/// `n` whole USDC (6 decimals).
fn usdc(n: u64) -> U256 {
    U256::from(n) * U256::from(1_000_000u64)
}

#[test]
fn a_pool_diluting_its_shares_at_execution_is_reverted_by_the_signed_share_value() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let deadline = world.deadline();
    // The boss's pool of DAI and USDC, seeded at par.
    let pool = {
        let mut b = Builder::new(&mut world.evm, a.attacker, deadline).unwrap();
        let pool = b
            .project_from(
                a.attacker,
                "RedPillDilutingPool",
                &(a.dai, a.usdc).abi_encode_params(),
                "deploy the pool",
            )
            .unwrap();
        b.mint(a.attacker, a.dai, a.attacker, ether(10_000), "DAI")
            .unwrap();
        b.mint(a.attacker, a.usdc, a.attacker, usdc(10_000), "USDC")
            .unwrap();
        for (token, value) in [(a.dai, ether(10_000)), (a.usdc, usdc(10_000))] {
            let approve = IERC20::approveCall {
                spender: pool,
                value,
            };
            b.call(a.attacker, token, U256::ZERO, &approve, "approve")
                .unwrap();
        }
        let seed = joinCall {
            amount0: ether(10_000),
            amount1: usdc(10_000),
            to: a.attacker,
        };
        b.call(a.attacker, pool, U256::ZERO, &seed, "seed").unwrap();
        pool
    };
    let evm = &mut world.evm;
    let (dai_in, usdc_in) = (ether(1_000), usdc(1_000));
    let call = |target, data: Vec<u8>| Call {
        target,
        value: U256::ZERO,
        data: data.into(),
    };
    let approve = |spender, value| IERC20::approveCall { spender, value }.abi_encode();
    let intent = Intent {
        chain_id: evm.chain_id(),
        account: a.account,
        calls: vec![
            call(a.dai, approve(pool, dai_in)),
            call(a.usdc, approve(pool, usdc_in)),
            call(
                pool,
                joinCall {
                    amount0: dai_in,
                    amount1: usdc_in,
                    to: a.account,
                }
                .abi_encode(),
            ),
        ],
        claimed: Claims::default(),
        metadata: Default::default(),
    };
    let mut policy = default_policy(&a);
    policy.allowed_targets.push(pool);
    policy.allowed_selectors.push(joinCall::SELECTOR.into());
    policy.allowed_tokens.push(pool);
    policy.price_pools.push(pool);
    let tolerance = policy.outcome_tolerance_bps;
    let policy = CompiledPolicy::try_from(policy).unwrap();
    let simulated = pace_pipeline::Pipeline::new(signer.clone())
        .simulate(evm, intent.clone(), &policy)
        .expect("the simulation runs");
    let intent = Intent {
        claimed: crate::protocols_bed::claims_of(simulated.report().get(), a.account),
        ..intent
    };

    let sign = |evm: &pace_evm::InProcessEvm, post_conditions: bool| {
        let config = PipelineConfig {
            post_conditions,
            ..PipelineConfig::default()
        };
        let eval = evaluate(evm, &intent, &policy, &signer, &config).unwrap();
        assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
        eval.checked.expect("pass 2 agrees")
    };
    let checked = sign(evm, true);
    let unchecked = sign(evm, false);
    let checks = &checked.signed().pdr.checks;
    assert_eq!(checks.len(), 1, "{checks:?}");
    let c = &checks[0];
    assert_eq!(c.target, SHARE_VALUE_HELPER);
    assert_eq!(c.relation(), Some(CheckRelation::Within));
    let data = IPaceShareValue::productShareCall {
        pool,
        shares: ether(1),
    }
    .abi_encode();
    assert_eq!(c.data.as_ref(), data.as_slice());
    let worth = |evm: &pace_evm::InProcessEvm| {
        evm.view_sol(
            SHARE_VALUE_HELPER,
            &IPaceShareValue::productShareCall {
                pool,
                shares: ether(1),
            },
        )
        .unwrap()
    };
    let simulated = worth(evm);
    assert_eq!(
        c.lo,
        simulated * U256::from(10_000 - tolerance) / U256::from(10_000u64),
        "the rate before, unchanged by an honest join, less the tolerance"
    );
    assert!(unchecked.signed().pdr.checks.is_empty());

    // The boss arms the pool; a stranger lands each PDR a block later.
    let armed = evm
        .call(a.attacker, pool, U256::ZERO, armCall {}.abi_encode().into())
        .unwrap();
    assert!(armed.success, "arm: {armed:?}");
    let (number, timestamp) = (evm.block_number(), evm.timestamp());
    evm.set_block(number + 1, timestamp + 12);
    let stranger = Address::repeat_byte(0x57);
    let mut without = evm.clone();
    let landed = evm
        .call(stranger, a.account, U256::ZERO, checked.calldata().clone())
        .unwrap();
    assert!(!landed.success, "the diluted join executed");
    let error = landed.decode_revert::<PaceAccount::PaceAccountErrors>();
    assert!(
        matches!(
            error,
            Some(PaceAccount::PaceAccountErrors::PaceAccountCheckFailed(ref e))
                if e.target == SHARE_VALUE_HELPER
        ),
        "{error:?}"
    );

    // Without the post-condition every bound holds and the shares lose most of their value.
    let landed = without
        .call(
            stranger,
            a.account,
            U256::ZERO,
            unchecked.calldata().clone(),
        )
        .unwrap();
    assert!(landed.success, "{landed:?}");
    assert!(worth(&without) < simulated / U256::from(5u8));
}
