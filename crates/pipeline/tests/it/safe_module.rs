//! The pipeline for a Safe 1.4.1 (its npm bytecode, a proxy from the real factory) guarded by
//! `PaceModule`: the intent's account is the Safe, the pipeline finds the one module that
//! guards it on the Safe's own module list, simulates in the module's transaction (the calls
//! made from the Safe), signs in the module's domain, checks pass 2 on that transaction and
//! submits it: the Safe's DAI moves once. Two guarding modules, or none, are refused before
//! anything is signed, and so is the EntryPoint path.

use crate::door::execute;
use crate::entry_paths::{config, world};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolValue};
use pace_pipeline::{AccountKind, Entry, ExecutionResult};
use pace_testkit::protocols::safe::{PrivateKeySigner, SafeContracts, deploy_module};
use pace_types::{CompiledPolicy, Intent};
use pace_world::{World, default_policy};

alloy_sol_types::sol! {
    function mint(address to, uint256 amount);
}

const DEPLOYER: Address = Address::repeat_byte(0xd5);

fn dai(world: &World, who: Address) -> U256 {
    let data = pace_abi::bindings::IERC20::balanceOfCall { account: who }.abi_encode();
    U256::abi_decode(&world.evm.view(world.addrs.dai, data.into()).unwrap()).unwrap()
}

/// A 1-of-1 Safe holding 100 DAI, with a `PaceModule` trusting `verifier` enabled by its owner.
fn safe_with_module(world: &mut World, verifier: Address) -> (Address, Address, PrivateKeySigner) {
    world
        .evm
        .fund(DEPLOYER, U256::from(10u128.pow(20)))
        .unwrap();
    let contracts = SafeContracts::deploy(&mut world.evm, DEPLOYER).unwrap();
    let owner = PrivateKeySigner::from_bytes(&B256::repeat_byte(0xa1)).unwrap();
    let safe = contracts
        .create_safe(&mut world.evm, DEPLOYER, false, &[owner.address()], 1, 1)
        .unwrap();
    let module = deploy_module(&mut world.evm, DEPLOYER, safe, verifier, &[&owner]).unwrap();
    let mint = mintCall {
        to: safe,
        amount: U256::from(10u64).pow(U256::from(20u64)),
    };
    let (minter, token) = (world.addrs.owner, world.addrs.dai);
    let out = world
        .evm
        .call(minter, token, U256::ZERO, mint.abi_encode().into())
        .unwrap();
    assert!(out.success, "the test token mints");
    (safe, module, owner)
}

fn policy_for(world: &World, safe: Address) -> CompiledPolicy {
    let mut scoped = default_policy(&world.addrs);
    scoped.account = Some(safe);
    CompiledPolicy::try_from(scoped).unwrap()
}

fn dai_transfer(world: &World, safe: Address) -> Intent {
    Intent {
        account: safe,
        ..pace_testkit::intents::dai_to_payee(world, crate::entry_paths::intent_amount())
    }
}

#[test]
fn a_safe_pays_through_its_module_once() {
    let (pipeline, mut world, _) = world();
    let (safe, module, _) = safe_with_module(&mut world, pipeline.verifier());
    let policy = policy_for(&world, safe);
    let payee = world.addrs.payee;
    let before = (dai(&world, payee), dai(&world, safe));
    let intent = dai_transfer(&world, safe);
    let pipeline = pipeline.with_config(config(&world, AccountKind::PaceModule, Entry::Direct));
    let eval = pipeline.evaluate(&world.evm, &intent, &policy, 0).unwrap();
    assert_eq!(eval.refused, None, "pass 2 agrees");
    let checked = eval.checked.expect("approved and checked");
    assert_eq!(checked.to(), module, "the transaction goes to the module");
    let signed = checked.signed();
    assert_eq!((signed.account, signed.module), (safe, Some(module)));
    assert_eq!(signed.kind(), AccountKind::PaceModule);
    assert!(signed.is_signed_by(pipeline.verifier()));
    // The signed record reads back as it was written (the module is part of it).
    let json = serde_json::to_string(signed).unwrap();
    assert_eq!(
        &serde_json::from_str::<pace_signer::SignedPdr>(&json).unwrap(),
        signed
    );

    let (relayer, token) = (world.addrs.relayer, world.addrs.dai);
    let outcome = execute(&mut world.evm, relayer, &checked, &[token]).unwrap();
    assert!(
        matches!(outcome, ExecutionResult::Executed { .. }),
        "{outcome:?}"
    );
    let amount = crate::entry_paths::intent_amount();
    assert_eq!(dai(&world, payee) - before.0, amount);
    assert_eq!(before.1 - dai(&world, safe), amount, "the Safe paid");
    // Again: the module's lane moved, it refuses the replay.
    let again = execute(&mut world.evm, relayer, &checked, &[token]).unwrap();
    assert!(
        matches!(again, ExecutionResult::Reverted { .. }),
        "{again:?}"
    );
    assert_eq!(dai(&world, payee) - before.0, amount, "paid once");
}

#[test]
fn a_safe_without_exactly_one_guarding_module_is_refused() {
    let (pipeline, mut world, _) = world();
    let (safe, _, owner) = safe_with_module(&mut world, pipeline.verifier());
    let policy = policy_for(&world, safe);
    let intent = dai_transfer(&world, safe);

    let direct =
        pipeline
            .clone()
            .with_config(config(&world, AccountKind::PaceModule, Entry::EntryPoint));
    let err = direct
        .evaluate(&world.evm, &intent, &policy, 0)
        .unwrap_err();
    assert!(err.to_string().contains("direct path"), "{err}");

    // A second module guarding the same Safe: which one takes its PDRs is ambiguous.
    deploy_module(
        &mut world.evm,
        DEPLOYER,
        safe,
        pipeline.verifier(),
        &[&owner],
    )
    .unwrap();
    let pipeline = pipeline.with_config(config(&world, AccountKind::PaceModule, Entry::Direct));
    let err = pipeline
        .evaluate(&world.evm, &intent, &policy, 0)
        .unwrap_err();
    assert!(err.to_string().contains("ambiguous"), "{err}");

    // A plain account named as a Safe: no Safe answers.
    let account = world.addrs.account;
    let intent = dai_transfer(&world, account);
    let policy = CompiledPolicy::try_from(default_policy(&world.addrs)).unwrap();
    let err = pipeline
        .evaluate(&world.evm, &intent, &policy, 0)
        .unwrap_err();
    assert!(err.to_string().contains("getModulesPaginated"), "{err}");
}
