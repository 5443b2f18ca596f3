//! A Safe 1.4.1 (its npm bytecode, a proxy from the real factory) guarded by `PaceModule`, on
//! the in-process EVM and on anvil: the owners enable the module by their own signed
//! transaction (one owner of a 1-of-1 `Safe`, two of a 2-of-3 `SafeL2`), a PDR signed in Rust
//! for the module's domain (`EntryPath::Module`) moves the Safe's tokens when a relayer submits
//! it, the module's digest and domain are the Rust ones, and the same PDR is refused replayed,
//! at another module, and once the owners pause the module.

use crate::common::VERIFIER;
use alloy::signers::{SignerSync, local::PrivateKeySigner};
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{IERC20, MockERC20, PaceAccount};
use pace_testkit::protocols::{
    Chain,
    node::NodeChain,
    safe::{ISafe, PaceModule, SafeContracts, deploy_module, exec},
};
use pace_types::pdr::{Attestation, Bound, Call, EntryPath, Pdr, PdrTerms};
use pace_world::World;

const DEPLOYER: Address = Address::repeat_byte(0xd5);
const RELAYER: Address = Address::repeat_byte(0x5e);
const RECIPIENT: Address = Address::repeat_byte(0x7e);
const AMOUNT: u64 = 10_000;

fn key(byte: u8) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&B256::repeat_byte(byte)).unwrap()
}

/// The PDR every case signs: a transfer of [`AMOUNT`] of `token` from the Safe, bounded.
fn transfer(token: Address, now: u64, block: u64, sequence: u64) -> Pdr {
    let terms = PdrTerms {
        key: 0,
        sequence,
        valid_after: now - 60,
        valid_until: now + 3_600,
        simulation_block: block,
        max_simulation_age: 50,
        call_gas_kib: 0,
    };
    let mut bound = Bound::balance(token);
    bound.maxOut = U256::from(AMOUNT);
    let data = IERC20::transferCall {
        to: RECIPIENT,
        value: U256::from(AMOUNT),
    }
    .abi_encode();
    Pdr::new(
        Attestation {
            policyHash: B256::repeat_byte(1),
            intentHash: B256::repeat_byte(2),
            simulationHash: B256::repeat_byte(3),
        },
        vec![Call {
            target: token,
            value: U256::ZERO,
            data: data.into(),
        }],
        vec![bound],
        vec![],
        vec![],
        &terms,
    )
}

/// `executeBatchPDR` of `pdr` signed by `verifier` for `signed_for`.
fn submission(
    pdr: &Pdr,
    chain_id: u64,
    signed_for: &EntryPath,
    verifier: &PrivateKeySigner,
) -> Bytes {
    let sig = verifier
        .sign_hash_sync(&pdr.digest_on(chain_id, signed_for))
        .unwrap();
    let compact = sig.as_erc2098();
    PaceAccount::executeBatchPDRCall {
        calls: pdr.calls.iter().map(PaceAccount::Call::from).collect(),
        bounds: pdr.bounds.iter().map(PaceAccount::Bound::from).collect(),
        held: pdr.held.clone(),
        checks: pdr.checks.iter().map(PaceAccount::Check::from).collect(),
        attestation: pdr.attestation_hash(),
        terms: pdr.terms().pack(),
        r: B256::from_slice(&compact[..32]),
        vs: B256::from_slice(&compact[32..]),
    }
    .abi_encode()
    .into()
}

fn balance(chain: &impl Chain, token: Address, who: Address) -> U256 {
    chain
        .view_sol(token, &IERC20::balanceOfCall { account: who })
        .unwrap()
}

/// One Safe (`owners` keys, `threshold`, `SafeL2` when `l2`) with its module, on `chain`,
/// whose latest block is `block`.
fn exercise(
    chain: &mut impl Chain,
    chain_id: u64,
    block: u64,
    l2: bool,
    owners: &[u8],
    threshold: usize,
) {
    chain.fund(DEPLOYER, U256::from(10u128.pow(20))).unwrap();
    chain.fund(RELAYER, U256::from(10u128.pow(20))).unwrap();
    let safes = SafeContracts::deploy(chain, DEPLOYER).unwrap_or_else(|e| panic!("{e}"));
    let keys: Vec<PrivateKeySigner> = owners.iter().map(|b| key(*b)).collect();
    let addresses: Vec<Address> = keys.iter().map(|k| k.address()).collect();
    let safe = safes
        .create_safe(chain, DEPLOYER, l2, &addresses, threshold as u64, 7)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        chain.view_sol(safe, &ISafe::getOwnersCall {}).unwrap(),
        addresses
    );
    let signers: Vec<&PrivateKeySigner> = keys.iter().take(threshold).collect();
    let verifier = key(0x5a);
    let module = deploy_module(chain, DEPLOYER, safe, verifier.address(), &signers)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        chain.view_sol(module, &PaceModule::safeCall {}).unwrap(),
        safe
    );

    let token_ctor = MockERC20::constructorCall {
        name_: "Token".into(),
        symbol_: "TKN".into(),
        decimals_: 18,
    };
    let token = chain
        .deploy(
            DEPLOYER,
            pace_contracts::artifacts()
                .unwrap()
                .get("MockERC20")
                .unwrap()
                .deploy_code(&token_ctor.abi_encode()),
        )
        .unwrap();
    let mint = MockERC20::mintCall {
        to: safe,
        amount: U256::from(1_000_000u64),
    };
    chain.send_sol(DEPLOYER, token, &mint).unwrap();

    let path = EntryPath::Module { module, safe };
    let now = chain.timestamp().unwrap();
    let pdr = transfer(token, now, block, 0);
    // The module's own views give the Rust domain and digest.
    let separator = chain
        .view_sol(module, &PaceAccount::domainSeparatorCall {})
        .unwrap();
    assert_eq!(separator, path.domain(chain_id).separator());
    let view = PaceAccount::pdrDigestCall {
        calls: pdr.calls.iter().map(Into::into).collect(),
        bounds: pdr.bounds.iter().map(Into::into).collect(),
        held: pdr.held.clone(),
        checks: vec![],
        attestation: pdr.attestation_hash(),
        terms: pdr.terms().pack(),
    };
    assert_eq!(
        chain.view_sol(module, &view).unwrap(),
        pdr.digest_on(chain_id, &path)
    );

    // Signed for another module of the same Safe: refused, nothing moves.
    let elsewhere = EntryPath::Module {
        module: Address::repeat_byte(0x99),
        safe,
    };
    let refused = submission(&pdr, chain_id, &elsewhere, &verifier);
    assert!(chain.send(RELAYER, module, U256::ZERO, refused).is_err());
    assert_eq!(balance(chain, token, RECIPIENT), U256::ZERO);

    // Signed for this one: the Safe's tokens move.
    let signed = submission(&pdr, chain_id, &path, &verifier);
    chain
        .send(RELAYER, module, U256::ZERO, signed.clone())
        .unwrap_or_else(|e| panic!("the module's PDR: {e}"));
    assert_eq!(balance(chain, token, RECIPIENT), U256::from(AMOUNT));
    assert_eq!(
        balance(chain, token, safe),
        U256::from(1_000_000u64 - AMOUNT)
    );
    // Replayed: refused.
    assert!(chain.send(RELAYER, module, U256::ZERO, signed).is_err());

    // The owners pause the module by their own transaction: the next PDR is refused.
    let pause = PaceAccount::setPausedCall { paused_: true }
        .abi_encode()
        .into();
    exec(chain, safe, DEPLOYER, module, pause, &signers).unwrap_or_else(|e| panic!("{e}"));
    let next = submission(&transfer(token, now, block, 1), chain_id, &path, &verifier);
    assert!(chain.send(RELAYER, module, U256::ZERO, next).is_err());
    assert_eq!(balance(chain, token, RECIPIENT), U256::from(AMOUNT));
}

#[test]
fn a_safe_module_runs_rust_signed_pdrs_in_process() {
    let mut world = World::new(VERIFIER).unwrap();
    let (chain_id, block) = (world.evm.chain_id(), world.evm.block_number());
    exercise(&mut world.evm, chain_id, block, false, &[0xa1], 1);
    let mut world = World::new(VERIFIER).unwrap();
    exercise(
        &mut world.evm,
        chain_id,
        block,
        true,
        &[0xa1, 0xa2, 0xa3],
        2,
    );
}

#[test]
fn a_safe_module_runs_rust_signed_pdrs_on_anvil() {
    let world = World::new(VERIFIER).unwrap();
    let chain_id = world.evm.chain_id();
    let (anvil, mut node) = NodeChain::start(&world).unwrap_or_else(|e| panic!("{e}"));
    let block = node.block_on(node.client().latest_block()).unwrap().number;
    exercise(&mut node, chain_id, block, false, &[0xa1], 1);
    let block = node.block_on(node.client().latest_block()).unwrap().number;
    exercise(&mut node, chain_id, block, true, &[0xb1, 0xb2, 0xb3], 2);
    drop(anvil);
}
