//! Post-conditions as descriptor data: a plain ERC-4626 vault (`SealedVault` without a seal),
//! added by a descriptor file alone, that declares a fact every PDR reaching it must keep: its
//! `totalSupply()` at most what the simulation left (`checks`, `keep: at_most`). The deposit is
//! approved with that check signed; a deposit by someone else landing first raises the supply
//! and reverts the PDR on-chain with the check's error, while the same PDR lands on the state
//! it was simulated on. A presented report without the declared read, and a declared view the
//! vault cannot answer, are refused: a fact the decision rests on is never signed blind.

use crate::{
    descriptor_vault::{pinned, vault_descriptor},
    dilution::{depositCall, vault_named},
    door::evaluate,
};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolError, SolValue};
use pace_abi::bindings::IERC20;
use pace_contracts::bindings::PaceAccount;
use pace_pipeline::{Evidence, Pipeline, PipelineConfig};
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{ReadKind, ViolationCode as Code};
use pace_world::{Builder, World};

/// `SealedVault.Seal.None`: an ordinary vault.
const PLAIN: u8 = 0;

/// The vault's descriptor with its rate trusted and the check `view` (`at_most`).
fn with_check(vault: Address, view: &str) -> pace_types::descriptor::Descriptor {
    let more = format!(
        r#", "prices": ["vault_rate"],
           "checks": [{{"read": {{"root": "vault", "view": "{view}"}}, "keep": "at_most"}}]"#
    );
    vault_descriptor(vault, &more)
}

#[test]
fn a_check_a_descriptor_declares_is_signed_and_holds_on_chain() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let deadline = world.deadline();
    let args = (a.dai, U256::from(PLAIN)).abi_encode_params();
    let (vault, intent) = vault_named(&mut world, "SealedVault", &args);
    let config = PipelineConfig::default();
    let policy = pinned(&a, vault, with_check(vault, "totalSupply()"));

    let e = evaluate(&world.evm, &intent, &policy, &signer, &config).unwrap();
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let checked = e.checked.expect("pass 2 agrees");
    let supply = IERC20::totalSupplyCall {}.abi_encode();
    let check = (checked.signed().pdr.checks.iter())
        .find(|c| c.target == vault && c.data.as_ref() == supply.as_slice())
        .unwrap_or_else(|| panic!("the declared check: {:?}", checked.signed().pdr.checks));
    let simulated = (e.report.reads.iter())
        .find(|r| r.kind == ReadKind::DeclaredCeiling)
        .and_then(|r| r.after)
        .expect("the declared read, answered after the calls");
    assert_eq!(simulated, ether(11_000), "the seed and the deposit");
    assert_eq!(check.lo, U256::ZERO);
    assert!(
        check.hi >= simulated && check.hi < ether(11_500),
        "{check:?}"
    );

    // Someone else's deposit lands first: the supply rose past the check, the PDR reverts.
    let mut raced = world.evm.clone();
    let mut b = Builder::new(&mut raced, a.attacker, deadline).unwrap();
    b.mint(a.attacker, a.dai, a.attacker, ether(5_000), "more DAI")
        .unwrap();
    let approve = IERC20::approveCall {
        spender: vault,
        value: ether(5_000),
    };
    b.call(a.attacker, a.dai, U256::ZERO, &approve, "approve")
        .unwrap();
    let deposit = depositCall {
        assets: ether(5_000),
        receiver: a.attacker,
    };
    b.call(a.attacker, vault, U256::ZERO, &deposit, "deposit first")
        .unwrap();
    let relayer = Address::repeat_byte(0x57);
    let calldata = checked.calldata().clone();
    let landed = raced
        .call(relayer, a.account, U256::ZERO, calldata.clone())
        .unwrap();
    assert!(!landed.success, "landed after the supply rose");
    assert_eq!(
        landed.output[..4],
        PaceAccount::PaceAccountCheckFailed::SELECTOR,
        "{:?}",
        landed.output
    );
    let landed = world
        .evm
        .call(relayer, a.account, U256::ZERO, calldata)
        .unwrap();
    assert!(landed.success, "{landed:?}");

    // A report that leaves the declared read out is refused, whoever presents it.
    let mut stripped = e.report.clone();
    stripped
        .reads
        .retain(|r| r.kind != ReadKind::DeclaredCeiling);
    let presented = Evidence::Presented {
        intent,
        report: Some(stripped),
    };
    let judged = Pipeline::new(signer).decide(presented, &policy, e.report.timestamp);
    let codes: Vec<Code> = judged.decision().codes().collect();
    assert_eq!(
        codes,
        vec![Code::PositionUnreadable],
        "{:?}",
        judged.decision()
    );
}

#[test]
fn a_declared_check_the_protocol_cannot_answer_refuses_the_intent() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let args = (a.dai, U256::from(PLAIN)).abi_encode_params();
    let (vault, intent) = vault_named(&mut world, "SealedVault", &args);
    let policy = pinned(&a, vault, with_check(vault, "feeBps()"));
    let e = evaluate(
        &world.evm,
        &intent,
        &policy,
        &signer,
        &PipelineConfig::default(),
    )
    .unwrap();
    let codes: Vec<Code> = e.decision.codes().collect();
    assert_eq!(codes, vec![Code::PositionUnreadable], "{:?}", e.decision);
}
