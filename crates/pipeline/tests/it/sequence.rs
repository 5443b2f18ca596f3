//! `next_sequence` reads a lane's sequence straight from the account's storage: it must return
//! what the account's own `nextSequence` view returns, on lane 0 (packed beside the verifier,
//! the pause flag and the budgets flag) and on the mapped lanes, whatever else is set.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::PaceAccount;
use pace_pipeline::{Error, next_sequence};
use pace_world::World;

fn view(world: &World, key: u32) -> u64 {
    world
        .evm
        .view_sol(world.addrs.account, &PaceAccount::nextSequenceCall { key })
        .unwrap()
}

fn owner_call<C: SolCall>(world: &mut World, call: &C) {
    let (owner, account) = (world.addrs.owner, world.addrs.account);
    let out = world
        .evm
        .call(owner, account, U256::ZERO, call.abi_encode().into())
        .unwrap();
    assert!(out.success, "{:?}", out.revert);
}

#[test]
fn next_sequence_reads_what_the_view_returns() {
    let mut world = World::new(Address::repeat_byte(0x42)).unwrap();
    let account = world.addrs.account;
    let lanes = [0u32, 1, 2, 7, 0xffff, u32::MAX];
    let check = |world: &World| {
        for key in lanes {
            assert_eq!(
                next_sequence(&world.evm, account, key).unwrap(),
                view(world, key),
                "lane {key}"
            );
        }
    };
    check(&world);
    // Every lane moved, to values that fill their bits; lane 0's neighbours in its word set.
    for (i, key) in lanes.into_iter().enumerate() {
        let sequence = if key == u32::MAX {
            u64::MAX
        } else {
            (1u64 << (8 * i + 3)) + 5
        };
        owner_call(&mut world, &PaceAccount::cancelNoncesCall { key, sequence });
    }
    owner_call(&mut world, &PaceAccount::setPausedCall { paused_: true });
    let dai = world.addrs.dai;
    owner_call(
        &mut world,
        &PaceAccount::setBudgetCall {
            token: dai,
            limit: 1_000,
            period: 3_600,
        },
    );
    check(&world);
    assert_eq!(view(&world, u32::MAX), u64::MAX);
    assert_ne!(view(&world, 0), 0);
}

#[test]
fn an_account_without_code_is_no_pace_account() {
    let world = World::new(Address::repeat_byte(0x42)).unwrap();
    let err = next_sequence(&world.evm, world.addrs.owner, 0).unwrap_err();
    assert!(
        matches!(err, Error::NotPaceAccount { account, .. } if account == world.addrs.owner),
        "{err}"
    );
}
