//! A protocol added by a descriptor file alone: an ERC-4626 vault the policy names nowhere but
//! in a descriptor (the vault as root, `deposit` as entry point, its own rate trusted by the
//! `vault_rate` rule), written as JSON with no Rust for it. The deposit is approved with the
//! rate signed as a post-condition, and the vault diluting its shares at execution reverts the
//! PDR; without the rule nothing trusted prices the shares, and the deposit is refused.

use super::dilution::{convertToAssetsCall, depositCall, diluting_vault};
use crate::door::evaluate;
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::SolCall;
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_types::{CompiledPolicy, ProtocolPin, ViolationCode, descriptor::Descriptor};
use pace_world::{World, default_policy};

/// The vault's descriptor, as a user writes it.
fn descriptor(vault: Address, rule: bool) -> Descriptor {
    let prices = if rule {
        r#", "prices": ["vault_rate"]"#
    } else {
        ""
    };
    vault_descriptor(vault, prices)
}

/// A descriptor of the vault as its root and `deposit` as its entry point, with the further
/// fields `more` (JSON, each after a comma).
pub(super) fn vault_descriptor(vault: Address, more: &str) -> Descriptor {
    let json = format!(
        r#"{{"schema": 1, "id": "a-vault", "license": "MIT",
            "roots": [{{"name": "vault", "address": "{vault:#x}"}}],
            "entry_points": [{{"root": "vault", "selectors": ["{:#010x}"]}}]{more}}}"#,
        u32::from_be_bytes(depositCall::SELECTOR)
    );
    Descriptor::from_json_slice(json.as_bytes()).expect("the descriptor loads")
}

/// The default policy with `vault` an allowed token and the descriptor `d` pinned inline.
pub(super) fn pinned(a: &pace_world::Addresses, vault: Address, d: Descriptor) -> CompiledPolicy {
    let mut p = default_policy(a);
    p.allowed_tokens.push(vault);
    p.protocols = vec![ProtocolPin::from(d)];
    CompiledPolicy::try_from(p).unwrap()
}

#[test]
fn a_vault_trusted_by_descriptor_alone_signs_its_rate_and_reverts_a_dilution() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let (vault, intent) = diluting_vault(&mut world);
    let evm = &mut world.evm;
    let policy = |rule: bool| pinned(&a, vault, descriptor(vault, rule));
    let config = PipelineConfig::default();

    let refused = evaluate(evm, &intent, &policy(false), &signer, &config).unwrap();
    assert!(!refused.decision.approved());
    assert!(
        refused.decision.violations.iter().any(
            |v| v.code == ViolationCode::UnpricedAsset || v.code == ViolationCode::LossExceeded
        ),
        "{:?}",
        refused.decision.violations
    );

    let e = evaluate(evm, &intent, &policy(true), &signer, &config).unwrap();
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let checked = e.checked.expect("pass 2 agrees");
    let rate = convertToAssetsCall {
        shares: pace_testkit::ether(1),
    }
    .abi_encode();
    assert!(
        checked
            .signed()
            .pdr
            .checks
            .iter()
            .any(|c| c.target == vault && c.data.as_ref() == rate.as_slice()),
        "the vault's rate is re-checked: {:?}",
        checked.signed().pdr.checks
    );

    // Armed after the decision, the vault dilutes from the next block: the PDR reverts.
    let armed = evm
        .call(
            a.attacker,
            vault,
            U256::ZERO,
            super::dilution::armCall {}.abi_encode().into(),
        )
        .unwrap();
    assert!(armed.success, "arm: {armed:?}");
    let (number, timestamp) = (evm.block_number(), evm.timestamp());
    evm.set_block(number + 1, timestamp + 12);
    let landed = evm
        .call(
            Address::repeat_byte(0x57),
            a.account,
            U256::ZERO,
            checked.calldata().clone(),
        )
        .unwrap();
    assert!(!landed.success, "the diluted deposit executed");
}
