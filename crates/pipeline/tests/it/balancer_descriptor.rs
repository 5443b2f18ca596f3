//! Balancer V2 named by descriptor: the Vault and the weighted pool factory as pinned roots, the
//! Vault's swaps as entry points, and a pool admitted because the factory lists it
//! (`isPoolFromFactory`), not because the Vault knows it (the Vault registers any contract that
//! asks). A policy that lists no pool approves and executes a swap; a pool of the same code
//! from another factory, registered in the same Vault, is refused.

use crate::balancer::{fixture, less};
use crate::protocols_bed::selector;
use alloy_primitives::{Address, U256, keccak256};
use alloy_sol_types::SolCall;
use pace_abi::balancer::IBalancerVault as Vault;
use pace_abi::bindings::IERC20;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    balancer::{Balancer, WeightedPool},
    ether, npm,
};
use pace_types::{
    Policy, ProtocolPin, ViolationCode as Code,
    descriptor::{DESCRIPTOR_SCHEMA, Descriptor, EntryPoint, Listing, Members, Root},
};

fn root(f: &crate::balancer::Fixture, name: &str, address: Address) -> Root {
    Root {
        name: name.into(),
        address,
        code_hash: Some(keccak256(f.b.world.evm.code(address).expect("code"))),
        implementation_code_hash: None,
    }
}

pub(crate) fn balancer_v2(f: &crate::balancer::Fixture) -> Descriptor {
    Descriptor {
        schema: DESCRIPTOR_SCHEMA,
        id: "balancer-v2".into(),
        chain_id: Some(f.b.world.evm.chain_id()),
        reviewed_by: Some("the protocols bed's tests".into()),
        license: Some("GPL-3.0-only".into()),
        roots: vec![
            root(f, "vault", f.balancer.vault),
            root(f, "weighted_factory", f.balancer.weighted_factory),
        ],
        entry_points: vec![EntryPoint {
            root: "vault".into(),
            selectors: vec![
                Vault::swapCall::SELECTOR.into(),
                Vault::batchSwapCall::SELECTOR.into(),
            ],
        }],
        members: Members {
            listings: vec![Listing {
                root: "weighted_factory".into(),
                view: "isPoolFromFactory(address)".into(),
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

/// The user's part: tokens, caps, prices and bounds, the tokens' `approve`, and Balancer by
/// descriptor; no Vault, no pool.
fn by_descriptor(f: &crate::balancer::Fixture) -> Policy {
    let a = f.b.a();
    let mut p =
        f.b.policy(&[a.weth], &[selector::<IERC20::approveCall>()], &[], &[]);
    let d = balancer_v2(f);
    p.protocols = vec![ProtocolPin {
        file: None,
        hash: d.hash(),
        descriptor: Some(d),
    }];
    p
}

#[test]
fn a_policy_naming_balancer_by_descriptor_swaps_through_a_listed_pool_only() {
    let mut f = fixture();
    let a = f.b.a();
    let amount = ether(1) / U256::from(10u8);
    let policy = by_descriptor(&f);
    let facts = f.facts(f.weth_for_dai_in(&f.weth_dai, amount, U256::from(1u8), a.account));
    let calls = f.weth_for_dai_in(&f.weth_dai, amount, less(facts.amount_out, 50), a.account);
    let evaluation = f.b.evaluate_claimed(f.b.intent(calls), &policy);
    assert!(
        evaluation.decision.approved(),
        "{:?}",
        evaluation.decision.violations
    );
    let members = &evaluation.report.protocols.members;
    assert!(
        members
            .iter()
            .any(|m| m.contract == f.weth_dai.pool && m.rule == "listing"),
        "{members:?}"
    );
    let result = f.b.submit(&evaluation, &[a.weth, a.dai]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );

    // The same pool code from a factory the descriptor does not pin, in the same Vault.
    let deployer = f.b.bed.deployer;
    let args = alloy_sol_types::SolValue::abi_encode(&f.balancer.vault);
    let other_factory =
        f.b.world
            .evm
            .deploy(
                deployer,
                npm::balancer::weighted_pool_factory()
                    .unwrap()
                    .deploy_code(&args)
                    .unwrap(),
            )
            .unwrap();
    let other = Balancer {
        weighted_factory: other_factory,
        ..f.balancer
    };
    let weight = |percent: u64| ether(percent) / U256::from(100u8);
    let rogue: WeightedPool = other
        .weighted_pool(
            &mut f.b.world.evm,
            &a,
            deployer,
            &[
                (a.weth, weight(80), ether(100)),
                (a.dai, weight(20), ether(25_000)),
            ],
            ether(3) / U256::from(1_000u16),
        )
        .unwrap();
    let calls = f.weth_for_dai_in(&rogue, amount, less(facts.amount_out, 50), a.account);
    let evaluation = f.b.evaluate_claimed(f.b.intent(calls), &policy);
    assert!(!evaluation.decision.approved());
    assert!(
        evaluation
            .decision
            .violations
            .iter()
            .any(|v| v.code == Code::TouchedNotAllowed
                && v.message.contains(&rogue.pool.to_string())),
        "{:?}",
        evaluation.decision.violations
    );
}
