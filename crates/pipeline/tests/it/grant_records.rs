//! Grants recorded under the account that look like something else (`GrantDesk`): an expiry
//! keyed by the account and an agent's index is a time, but not the account's own; a mask of
//! agents keyed by the account and a payee names a party the policy knows; a mask keyed by the
//! desk's own address names the desk; a pass kept where an ERC-1155 `balanceOf(account, id)`
//! answers it was never logged as one. Each is a record that may authorise the agent, and is
//! refused (`OPAQUE_AUTHORIZATION`); a plain flag under the account and the payee is a right the
//! rights rules judge, and is approved.

use crate::rebasing::decide;
use alloy_primitives::{Address, U256, keccak256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_signer::PdrSigner;
use pace_types::{Call, Claims, CompiledPolicy, Intent, ViolationCode as Code};
use pace_world::{Builder, World, default_policy};

sol! {
    function renewSession();
    function subscribe(address party);
    function follow(address party);
    function checkInSelf();
    function checkInPass();
}

/// The world with a desk whose one agent is a stranger, and the default policy with the desk a
/// target of every function above.
fn desk() -> (World, Address, CompiledPolicy) {
    let signer = PdrSigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let (deployer, deadline) = (world.addrs.deployer, world.deadline());
    let agent = Address::from_word(keccak256("pace-grants/agent"));
    let mut b = Builder::new(&mut world.evm, deployer, deadline).unwrap();
    let desk = b
        .project("GrantDesk", &vec![agent].abi_encode_params(), "deploy")
        .unwrap();
    let mut p = default_policy(&world.addrs);
    p.allowed_targets.push(desk);
    for s in [
        renewSessionCall::SELECTOR,
        subscribeCall::SELECTOR,
        followCall::SELECTOR,
        checkInSelfCall::SELECTOR,
        checkInPassCall::SELECTOR,
    ] {
        p.allowed_selectors.push(s.into());
    }
    (world, desk, CompiledPolicy::try_from(p).unwrap())
}

fn codes(world: &World, desk: Address, policy: &CompiledPolicy, data: Vec<u8>) -> Vec<Code> {
    let intent = Intent {
        chain_id: world.evm.chain_id(),
        account: world.addrs.account,
        calls: vec![Call {
            target: desk,
            value: U256::ZERO,
            data: data.into(),
        }],
        claimed: Claims::default(),
        metadata: Default::default(),
    };
    decide(world, &intent, policy).decision.codes().collect()
}

#[test]
fn grants_that_look_like_times_parties_or_balances_are_refused() {
    let (world, desk, policy) = desk();
    let party = world.addrs.payee;
    for (what, data) in [
        (
            "an expiry under an agent's index",
            renewSessionCall {}.abi_encode(),
        ),
        (
            "a mask beside a payee",
            subscribeCall { party }.abi_encode(),
        ),
        (
            "a mask under the desk's own key",
            checkInSelfCall {}.abi_encode(),
        ),
        ("a pass no log issued", checkInPassCall {}.abi_encode()),
    ] {
        let codes = codes(&world, desk, &policy, data);
        assert!(
            codes.contains(&Code::OpaqueAuthorization),
            "{what}: {codes:?}"
        );
    }
    // A flag for the payee alone: a right of a party the policy names.
    let follow = followCall { party }.abi_encode();
    assert_eq!(codes(&world, desk, &policy, follow), vec![]);
}
