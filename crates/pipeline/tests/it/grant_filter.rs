//! The account's grant filter, computed twice: by the account (`PdrCalls.grantBits`, on the
//! calls of PDRs it executes) and by the signer's mirror (`pace_types::pdr::grant_bits_of_call`).
//! Both must agree on every call: a bit the mirror thinks recorded that the account never set
//! would drop a `GRANTED` bound the account needed.

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::PaceAccount;
use pace_signer::PdrSigner;
use pace_types::pdr::{PdrTerms, grant_bits_of_call};
use pace_world::World;

/// Call data shaped like what the account's rule looks at: an ERC-20 `transfer` of exactly 68
/// bytes or of another length, Permit2's `approve` with a token, and anything else.
fn data_for(seed: B256) -> Vec<u8> {
    let word = seed.as_slice();
    let shape = word[0] % 5;
    let selector: [u8; 4] = match shape {
        0 | 1 => [0xa9, 0x05, 0x9c, 0xbb],
        2 => [0x87, 0x51, 0x7c, 0x45],
        _ => [word[1], word[2], word[3], word[4]],
    };
    let len = match shape {
        0 | 2 => 68,
        _ => usize::from(word[5] % 100),
    };
    let mut data = selector.to_vec();
    data.extend(keccak256(seed).iter().cycle().take(len.saturating_sub(4)));
    data.truncate(len.max(usize::from(word[6] % 4)));
    data
}

/// Runs one call of `world`'s account as a PDR on the lean path, signed by `signer` over the
/// digest the account computes itself.
fn run_pdr(world: &mut World, signer: &PdrSigner, target: Address, data: &[u8]) {
    let a = world.addrs;
    let evm = &mut world.evm;
    let sequence = evm
        .view_sol(a.account, &PaceAccount::nextSequenceCall { key: 0 })
        .unwrap();
    let terms = PdrTerms {
        key: 0,
        sequence,
        valid_after: 0,
        valid_until: evm.timestamp() + 3_600,
        simulation_block: evm.block_number(),
        max_simulation_age: 10,
        call_gas_kib: 0,
    }
    .pack();
    let attestation = keccak256(data);
    let calls = vec![PaceAccount::Call {
        target,
        value: U256::ZERO,
        data: Bytes::copy_from_slice(data),
    }];
    let digest = PaceAccount::pdrDigestCall {
        calls,
        bounds: vec![],
        held: vec![],
        checks: vec![],
        attestation,
        terms,
    };
    let digest = evm.view_sol(a.account, &digest).unwrap();
    let signature = signer.sign_digest(digest).unwrap();
    let call = PaceAccount::executePDRCall {
        target,
        value: U256::ZERO,
        data: Bytes::copy_from_slice(data),
        attestation,
        terms,
        r: signature.r,
        vs: signature.vs,
    };
    let out = evm
        .call(a.relayer, a.account, U256::ZERO, call.abi_encode().into())
        .unwrap();
    assert!(out.success, "{out:?}");
}

#[test]
fn the_account_and_the_signer_record_the_same_bits() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let filter = |world: &World| {
        world
            .evm
            .view_sol(a.account, &PaceAccount::grantFilterCall {})
            .unwrap()
    };
    let fresh = world.clone();
    let mut expected = 0;
    let mut saturated = 0;
    for i in 0..200u32 {
        // Back to the world as built every few calls, so that bits stay to be set.
        if i % 6 == 0 {
            world = fresh.clone();
            expected = filter(&world);
        }
        let seed = keccak256(i.to_be_bytes());
        // An address with no code: the call succeeds whatever its data.
        let target = Address::from_slice(&keccak256(seed)[12..]);
        let data = data_for(seed);
        run_pdr(&mut world, &signer, target, &data);
        expected |= grant_bits_of_call(a.account, target, &data);
        assert_eq!(
            filter(&world),
            expected,
            "call {i}: {}",
            alloy_primitives::hex::encode(&data)
        );
        saturated += usize::from(expected == u16::MAX);
    }
    assert_eq!(saturated, 0, "every call had bits left to set");
}
