//! Records a descriptor reads: a share vault (`SealedVault`, checkpointed) whose every deposit
//! keeps under the depositor the supply at that deposit, a slot keyed by the account that no
//! standard view reads. Priced by the policy, a deposit is refused as an opaque record under the
//! account. A descriptor file alone (no Rust for the vault) makes it ordinary use: the vault as
//! root, its own rate trusted (`vault_rate`), and its `recordOf` view naming what it keeps; the
//! same deposit is then approved, lands, and its shares are the account's. A descriptor whose
//! record view reads another word explains nothing.

use crate::{
    descriptor_vault::{pinned, vault_descriptor},
    dilution::{depositCall, vault_named},
    door::evaluate,
};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolValue};
use pace_abi::bindings::IERC20;
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{CompiledPolicy, ViolationCode as Code, descriptor::Descriptor};
use pace_world::{World, default_policy};

/// `SealedVault.Seal.Checkpointed`.
const CHECKPOINTED: u8 = 7;

/// The vault's descriptor, as a user writes it: the vault as root, `deposit` its entry point,
/// its rate trusted, and the record view `record`.
fn descriptor(vault: Address, record: &str) -> Descriptor {
    let more = format!(
        r#", "prices": ["vault_rate"], "records": [{{"view": "{record}", "args": ["account"]}}]"#
    );
    vault_descriptor(vault, &more)
}

#[test]
fn a_record_a_descriptor_reads_is_ordinary_use() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let args = (a.dai, U256::from(CHECKPOINTED)).abi_encode_params();
    let (vault, intent) = vault_named(&mut world, "SealedVault", &args);
    let evm = &mut world.evm;
    let config = PipelineConfig::default();

    let mut priced = default_policy(&a);
    priced.allowed_targets.push(vault);
    priced.allowed_selectors.push(depositCall::SELECTOR.into());
    priced.allowed_tokens.push(vault);
    priced.price_vaults.push(vault);
    let e = evaluate(
        evm,
        &intent,
        &CompiledPolicy::try_from(priced).unwrap(),
        &signer,
        &config,
    )
    .unwrap();
    let codes: Vec<Code> = e.decision.codes().collect();
    assert_eq!(codes, vec![Code::OpaqueAuthorization], "{:?}", e.decision);

    let by_descriptor = |record: &str| pinned(&a, vault, descriptor(vault, record));
    // A view of the shares, not of the checkpoint, explains nothing.
    let wrong = evaluate(
        evm,
        &intent,
        &by_descriptor("balanceOf(address)"),
        &signer,
        &config,
    )
    .unwrap();
    let codes: Vec<Code> = wrong.decision.codes().collect();
    assert_eq!(
        codes,
        vec![Code::OpaqueAuthorization],
        "{:?}",
        wrong.decision
    );

    let e = evaluate(
        evm,
        &intent,
        &by_descriptor("recordOf(address)"),
        &signer,
        &config,
    )
    .unwrap();
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let checked = e.checked.expect("pass 2 agrees");
    let landed = evm
        .call(
            Address::repeat_byte(0x57),
            a.account,
            U256::ZERO,
            checked.calldata().clone(),
        )
        .unwrap();
    assert!(landed.success, "{landed:?}");
    let shares = evm
        .view_sol(vault, &IERC20::balanceOfCall { account: a.account })
        .unwrap();
    assert_eq!(shares, ether(1_000), "the seed deposit set the rate at one");
}
