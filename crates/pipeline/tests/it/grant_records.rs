//! Grants recorded under the account that look like something else (`GrantDesk`): an expiry
//! keyed by the account and an agent's index is a time, but not the account's own; a mask of
//! agents keyed by the account and a payee names a party the policy knows, and so does a flag
//! keyed by the account, a payee and an agent's index; a mask keyed by the
//! desk's own address names the desk; a pass kept where an ERC-1155 `balanceOf(account, id)`
//! answers it was never logged as one. Each is a record that may authorise the agent, and is
//! refused (`OPAQUE_AUTHORIZATION`); a plain flag under the account and the payee is a right the
//! rights rules judge, and is approved. A time under the account and a small id is such a record
//! too, and nothing more: naming the desk in `opaque_key_targets` approves it.
//!
//! A redemption (`BookingVault`: shares paid at their worth) is no cover for a record that grew
//! beside it in a vault that can still pull the account's tokens: a debt booked there with no
//! log is `DEBT_UNREADABLE`; with no allowance left to the vault, the redemption stays one.

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
    function lock(uint256 id);
    function enable(address party);
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
        lockCall::SELECTOR,
        enableCall::SELECTOR,
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
            "a flag under a payee and an index",
            enableCall { party }.abi_encode(),
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

#[test]
fn a_record_under_the_account_and_a_small_id_names_no_holder() {
    let (world, desk, policy) = desk();
    // `lockUntil[account][1]`: a time per id, a record nothing reads, and no more: the bytes
    // after the id's zeros run into the hash of the account's slot, which names no one.
    let lock = lockCall { id: U256::ONE }.abi_encode();
    let codes_lock = codes(&world, desk, &policy, lock.clone());
    assert_eq!(codes_lock, vec![Code::OpaqueAuthorization]);
    // Read by the user and named: the way out holds.
    let mut named = policy.policy().clone();
    named.opaque_key_targets.push(desk);
    let named = CompiledPolicy::try_from(named).unwrap();
    assert_eq!(codes(&world, desk, &named, lock), vec![]);
}

sol! {
    function deposit(uint256 assets);
    function exit(uint256 shares);
}

/// A vault that books a debt beside each redemption, holding the account's 10,000 DAI, with
/// the allowance the deposit took (`standing`: 40,000 more left to it), and the default policy
/// with `exit` allowed and the shares priced as DAI.
fn booking(standing: bool) -> (World, Address, CompiledPolicy) {
    use pace_testkit::{
        ether,
        protocols::actions::{call, owner_execute},
    };
    let signer = PdrSigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let (a, deadline) = (world.addrs, world.deadline());
    let mut b = Builder::new(&mut world.evm, a.deployer, deadline).unwrap();
    let vault = b
        .project("BookingVault", &a.dai.abi_encode(), "deploy")
        .unwrap();
    b.mint(a.deployer, a.dai, a.account, ether(10_000), "mint")
        .unwrap();
    let allowed = ether(if standing { 50_000 } else { 10_000 });
    let approve = pace_abi::bindings::IERC20::approveCall {
        spender: vault,
        value: allowed,
    };
    let deposited = depositCall {
        assets: ether(10_000),
    };
    owner_execute(
        &mut world.evm,
        &a,
        &[call(a.dai, &approve), call(vault, &deposited)],
    )
    .unwrap();
    let mut p = default_policy(&a);
    p.allowed_targets.push(vault);
    p.allowed_selectors.push(exitCall::SELECTOR.into());
    p.allowed_tokens.push(vault);
    for token in [a.dai, vault] {
        p.prices.push(pace_types::TablePrice {
            token,
            amount: ether(1_000),
            value: ether(1),
        });
    }
    p.spend_caps.push(pace_types::TokenAmount {
        token: vault,
        amount: ether(10_000),
    });
    (world, vault, CompiledPolicy::try_from(p).unwrap())
}

#[test]
fn a_debt_booked_beside_a_redemption_is_refused_where_the_vault_can_still_pull() {
    for standing in [true, false] {
        let (world, vault, policy) = booking(standing);
        let exit = exitCall {
            shares: pace_testkit::ether(1_000),
        };
        let codes = codes(&world, vault, &policy, exit.abi_encode());
        // With an allowance left standing, the booked debt is one the vault can collect.
        let expected = if standing {
            vec![Code::DebtUnreadable]
        } else {
            vec![]
        };
        assert_eq!(codes, expected, "standing {standing}");
    }
}
