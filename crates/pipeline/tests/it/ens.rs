//! ENS, a protocol no adapter, descriptor or rule of the project names, on its own registry
//! bytecode (`@ensdomains/ens`, `ENSRegistry`): the account owns `pace.eth`. Its records are
//! kept under name hashes the calls pass whole, which the simulator cannot read as any party's:
//! without the user naming the registry in `opaque_key_targets` even honest administration is
//! refused (`OPAQUE_AUTHORIZATION`). Named, a resolver and a TTL set and a subname kept by the
//! account are approved and executed; handing the name, a subname or every name to a stranger
//! is refused in each form, named or not, and the name stays the account's.

use crate::protocols_bed::{Bed, bed, codes, selector};
use alloy_primitives::{Address, B256, keccak256};
use alloy_sol_types::sol;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{actions::call, npm};
use pace_types::{Call, Policy, ViolationCode as Code};

sol! {
    contract ENSRegistry {
        function setRecord(bytes32 node, address owner, address resolver, uint64 ttl) external;
        function setSubnodeOwner(bytes32 node, bytes32 label, address owner) external returns (bytes32);
        function setOwner(bytes32 node, address owner) external;
        function setResolver(bytes32 node, address resolver) external;
        function setTTL(bytes32 node, uint64 ttl) external;
        function setApprovalForAll(address operator, bool approved) external;
        function owner(bytes32 node) external view returns (address);
        function resolver(bytes32 node) external view returns (address);
        function ttl(bytes32 node) external view returns (uint64);
    }
}

/// The name hash of `label` under `node`.
fn sub(node: B256, label: &str) -> B256 {
    keccak256([node.as_slice(), keccak256(label).as_slice()].concat())
}

/// The resolver the account points its name at (a contract the user picked).
const RESOLVER: Address = Address::repeat_byte(0x5e);

/// The bed with the registry, `eth` held by its deployer and `pace.eth` by the account; the
/// registry and `pace.eth`'s node.
fn with_name() -> (Bed, Address, B256) {
    let mut b = bed();
    let account = b.a().account;
    let deployer = pace_testkit::protocols::deployer();
    let code = npm::ens_registry().unwrap().deploy_code(&[]).unwrap();
    let ens = b.world.evm.deploy(deployer, code).unwrap();
    let set = |node, label: &str, owner| ENSRegistry::setSubnodeOwnerCall {
        node,
        label: keccak256(label),
        owner,
    };
    b.send(deployer, ens, &set(B256::ZERO, "eth", deployer));
    let eth = sub(B256::ZERO, "eth");
    b.send(deployer, ens, &set(eth, "pace", account));
    (b, ens, sub(eth, "pace"))
}

/// The registry's administration allowed, the resolver a known party; the registry named in
/// `opaque_key_targets` when `named`.
fn policy(b: &Bed, ens: Address, named: bool) -> Policy {
    let mut p = b.policy(
        &[ens],
        &[
            selector::<ENSRegistry::setResolverCall>(),
            selector::<ENSRegistry::setTTLCall>(),
            selector::<ENSRegistry::setOwnerCall>(),
            selector::<ENSRegistry::setSubnodeOwnerCall>(),
            selector::<ENSRegistry::setApprovalForAllCall>(),
            selector::<ENSRegistry::setRecordCall>(),
        ],
        &[],
        &[RESOLVER],
    );
    if named {
        p.opaque_key_targets.push(ens);
    }
    p
}

#[test]
fn honest_name_administration_is_approved_and_executed_once_the_registry_is_named() {
    let (mut b, ens, node) = with_name();
    let account = b.a().account;
    let app = sub(node, "app");
    let calls = vec![
        call(
            ens,
            &ENSRegistry::setResolverCall {
                node,
                resolver: RESOLVER,
            },
        ),
        call(ens, &ENSRegistry::setTTLCall { node, ttl: 3_600 }),
        call(
            ens,
            &ENSRegistry::setSubnodeOwnerCall {
                node,
                label: keccak256("app"),
                owner: account,
            },
        ),
    ];
    let unnamed = b.evaluate_claimed(b.intent(calls.clone()), &policy(&b, ens, false));
    assert!(
        codes(&unnamed).contains(&Code::OpaqueAuthorization),
        "{:?}",
        unnamed.decision.violations
    );
    let named = b.evaluate_claimed(b.intent(calls), &policy(&b, ens, true));
    assert!(named.decision.approved(), "{:?}", named.decision.violations);
    assert!(matches!(
        b.submit(&named, &[]),
        ExecutionResult::Executed { .. }
    ));
    let evm = &b.world.evm;
    let owner = |node| evm.view_sol(ens, &ENSRegistry::ownerCall { node }).unwrap();
    let resolver = evm.view_sol(ens, &ENSRegistry::resolverCall { node });
    let ttl = evm.view_sol(ens, &ENSRegistry::ttlCall { node });
    assert_eq!((resolver.unwrap(), ttl.unwrap()), (RESOLVER, 3_600));
    assert_eq!((owner(node), owner(app)), (account, account));
}

#[test]
fn handing_a_name_to_a_stranger_is_refused_in_every_form() {
    let (b, ens, node) = with_name();
    let (account, attacker) = (b.a().account, b.a().attacker);
    let attacks: Vec<(&str, Call, Code)> = vec![
        (
            "the name",
            call(
                ens,
                &ENSRegistry::setOwnerCall {
                    node,
                    owner: attacker,
                },
            ),
            Code::ControllerNotAllowed,
        ),
        (
            "the name with its record",
            call(
                ens,
                &ENSRegistry::setRecordCall {
                    node,
                    owner: attacker,
                    resolver: RESOLVER,
                    ttl: 0,
                },
            ),
            Code::ControllerNotAllowed,
        ),
        (
            "a subname",
            call(
                ens,
                &ENSRegistry::setSubnodeOwnerCall {
                    node,
                    label: keccak256("app"),
                    owner: attacker,
                },
            ),
            Code::RoleHolderNotAllowed,
        ),
        (
            "every name, as operator",
            call(
                ens,
                &ENSRegistry::setApprovalForAllCall {
                    operator: attacker,
                    approved: true,
                },
            ),
            Code::SpenderNotAllowed,
        ),
    ];
    for named in [false, true] {
        let policy = policy(&b, ens, named);
        for (what, attack, code) in &attacks {
            let e = b.evaluate_claimed(b.intent(vec![attack.clone()]), &policy);
            assert!(
                codes(&e).contains(code),
                "{what} (registry named: {named}): {:?}",
                e.decision.violations
            );
        }
    }
    let owner = b
        .world
        .evm
        .view_sol(ens, &ENSRegistry::ownerCall { node })
        .unwrap();
    assert_eq!(owner, account);
}
