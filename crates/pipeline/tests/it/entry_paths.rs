//! The pipeline on every entry path of the embedded world's `PaceAccount` and of an EOA
//! delegated to `PaceDelegate`: the real EntryPoint v0.8 (its npm bytecode, read at run time)
//! at the canonical address, a PDR signed in the path's domain, pass 2 on the exact
//! transaction (`handleOps` on the EntryPoint path), and the submission executed once: a
//! replay, a PDR from another path and a bundler that inflates a gas field all fail.

use crate::door::execute;
use alloy_primitives::{Address, B256, Bytes, U256, hex};
use alloy_sol_types::{SolCall, SolValue};
use pace_contracts::bindings::PaceDelegate;
use pace_evm::InProcessEvm;
use pace_pipeline::{
    AccountKind, ENTRY_POINT, Entry, ExecutionResult, Pipeline, PipelineConfig, Relayer,
    sequence_for,
};
use pace_testkit::protocols::npm::{NpmArtifact, Package};
use pace_types::{CompiledPolicy, Intent, user_op::pack_account_gas_limits};
use pace_world::{World, default_policy};

alloy_sol_types::sol! {
    function mint(address to, uint256 amount);
}

const ACCOUNT_ABSTRACTION: Package = Package {
    name: "@account-abstraction/contracts",
    version: "0.8.0",
};

/// Places the EntryPoint v0.8 at its canonical address on `evm` (deployed from its creation
/// code, its runtime copied there: what it reads of its own address is recomputed).
fn install_entry_point(evm: &mut InProcessEvm) {
    let artifact = NpmArtifact::load(ACCOUNT_ABSTRACTION, "EntryPoint.json").unwrap();
    let deployed = evm
        .deploy(
            Address::repeat_byte(0xde),
            artifact.deploy_code(&[]).unwrap(),
        )
        .unwrap();
    let runtime = evm.code(deployed).unwrap();
    evm.set_code(ENTRY_POINT, runtime).unwrap();
}

pub(crate) fn world() -> (Pipeline, World, CompiledPolicy) {
    let pipeline = Pipeline::from_key(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(pipeline.verifier()).unwrap();
    install_entry_point(&mut world.evm);
    let policy = CompiledPolicy::try_from(default_policy(&world.addrs)).unwrap();
    (pipeline, world, policy)
}

pub(crate) fn config(world: &World, account: AccountKind, entry: Entry) -> PipelineConfig {
    PipelineConfig {
        relayer: Relayer::free(world.addrs.relayer, world.evm.tx_gas_limit()),
        account,
        entry,
        ..PipelineConfig::default()
    }
}

fn dai_transfer(world: &World, account: Address) -> Intent {
    let amount = U256::from(10u64).pow(U256::from(18u64)) * U256::from(25u64);
    Intent {
        account,
        ..pace_testkit::intents::dai_to_payee(world, amount)
    }
}

fn dai(world: &World, who: Address) -> U256 {
    let data = pace_abi::bindings::IERC20::balanceOfCall { account: who }.abi_encode();
    U256::abi_decode(&world.evm.view(world.addrs.dai, data.into()).unwrap()).unwrap()
}

/// Evaluates `intent` under `config` and submits it: the outcome and the checked submission.
fn run(
    world: &mut World,
    pipeline: &Pipeline,
    policy: &CompiledPolicy,
    config: PipelineConfig,
    intent: &Intent,
    lane: u32,
) -> (ExecutionResult, pace_pipeline::Checked) {
    let pipeline = pipeline.clone().with_config(config);
    let eval = pipeline.evaluate(&world.evm, intent, policy, lane).unwrap();
    assert_eq!(eval.refused, None, "pass 2 agrees");
    let checked = eval.checked.expect("approved and checked");
    let (relayer, dai) = (world.addrs.relayer, world.addrs.dai);
    let outcome = execute(&mut world.evm, relayer, &checked, &[dai]).unwrap();
    (outcome, checked)
}

#[test]
fn a_pace_account_pdr_through_the_entry_point_executes_once() {
    let (pipeline, mut world, policy) = world();
    let (account, payee) = (world.addrs.account, world.addrs.payee);
    let config = config(&world, AccountKind::PaceAccount, Entry::EntryPoint);
    let sequence = sequence_for(&world.evm, account, 0, config.account, config.entry).unwrap();
    assert_eq!(sequence, 0, "the EntryPoint's nonce of lane 0");
    let before = dai(&world, payee);
    let intent = dai_transfer(&world, account);
    let (outcome, checked) = run(&mut world, &pipeline, &policy, config, &intent, 0);
    assert!(
        matches!(outcome, ExecutionResult::Executed { .. }),
        "{outcome:?}"
    );
    assert_eq!(checked.to(), ENTRY_POINT);
    let signed = checked.signed();
    assert!(signed.entry_point.is_some() && signed.is_signed_by(pipeline.verifier()));
    assert_eq!(dai(&world, payee) - before, intent_amount());
    assert_eq!(
        sequence_for(&world.evm, account, 0, config.account, config.entry).unwrap(),
        1,
        "the EntryPoint consumed the nonce"
    );

    // The same bundle again: the nonce is spent, the EntryPoint refuses it whole.
    let (relayer, dai_token) = (world.addrs.relayer, world.addrs.dai);
    let again = execute(&mut world.evm, relayer, &checked, &[dai_token]).unwrap();
    assert!(
        matches!(again, ExecutionResult::Reverted { .. }),
        "{again:?}"
    );
    assert_eq!(dai(&world, payee) - before, intent_amount(), "paid once");

    // Its PDR on the direct path: the domain differs, the account refuses the signature.
    let direct = pace_pipeline::submission_calldata(signed, false);
    let out = world
        .evm
        .call(relayer, account, U256::ZERO, direct)
        .unwrap();
    assert!(
        !out.success,
        "an EntryPoint PDR does not verify on the direct path"
    );
}

#[test]
fn a_bundler_that_changes_a_gas_field_is_refused() {
    let (pipeline, mut world, policy) = world();
    let (account, payee, relayer) = (world.addrs.account, world.addrs.payee, world.addrs.relayer);
    let config = config(&world, AccountKind::PaceAccount, Entry::EntryPoint);
    let intent = dai_transfer(&world, account);
    let eval = pipeline
        .with_config(config)
        .evaluate(&world.evm, &intent, &policy, 0)
        .unwrap();
    let checked = eval.checked.expect("approved");
    let op = checked.signed().user_op().unwrap();
    let before = dai(&world, payee);
    for field in 0..3 {
        let mut tampered = op.clone();
        match field {
            0 => tampered.accountGasLimits = pack_account_gas_limits(5_000_000, 5_000_000),
            1 => tampered.preVerificationGas = U256::from(9_000_000u64),
            _ => tampered.paymasterAndData = Bytes::from(vec![0x11; 52]),
        }
        let mut data = hex!("765e827f").to_vec(); // handleOps(PackedUserOperation[],address)
        data.extend((vec![tampered], relayer).abi_encode_params());
        let out = world
            .evm
            .call(relayer, ENTRY_POINT, U256::ZERO, data.into())
            .unwrap();
        assert!(
            !out.success,
            "field {field}: the EntryPoint refuses the operation"
        );
    }
    assert_eq!(dai(&world, payee), before, "nothing moved");
}

#[test]
fn a_delegated_eoa_runs_pdrs_on_both_paths() {
    let (pipeline, mut world, _) = world();
    // An EOA delegated to PaceDelegate (the designator set directly), set up by itself.
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("PaceDelegate")
        .unwrap()
        .deploy_code(&[]);
    let delegate = world.evm.deploy(Address::repeat_byte(0xd1), code).unwrap();
    let eoa = Address::repeat_byte(0xe0);
    world
        .evm
        .set_code(eoa, pace_types::user_op::delegation_designator(delegate))
        .unwrap();
    let setup = PaceDelegate::setUpCall {
        setup: PaceDelegate::Setup {
            verifier: pipeline.verifier(),
            budgets: Vec::new(),
            // Mapped lanes moved at set-up, read back below.
            lanes: vec![
                PaceDelegate::LaneFloor {
                    key: 7,
                    sequence: 9,
                },
                PaceDelegate::LaneFloor {
                    key: u32::MAX,
                    sequence: 3,
                },
            ],
            nonce: U256::from(1u8),
            deadline: U256::MAX,
        },
        signature: Bytes::new(),
    };
    let out = world
        .evm
        .call(eoa, eoa, U256::ZERO, setup.abi_encode().into())
        .unwrap();
    assert!(out.success, "the EOA sets itself up: {:?}", out.revert);
    let mint = mintCall {
        to: eoa,
        amount: U256::from(10u64).pow(U256::from(20u64)),
    };
    let (owner, dai_token) = (world.addrs.owner, world.addrs.dai);
    let out = world
        .evm
        .call(owner, dai_token, U256::ZERO, mint.abi_encode().into())
        .unwrap();
    assert!(out.success, "the test token mints");
    let mut scoped = default_policy(&world.addrs);
    scoped.account = Some(eoa);
    let policy = CompiledPolicy::try_from(scoped).unwrap();
    let payee = world.addrs.payee;
    // One lane per path: the direct path's PDRs raise the floor the EntryPoint path meets.
    for (entry, lane) in [(Entry::Direct, 0), (Entry::EntryPoint, 1)] {
        let before = dai(&world, payee);
        let config = config(&world, AccountKind::PaceDelegate, entry);
        let intent = dai_transfer(&world, eoa);
        let (outcome, checked) = run(&mut world, &pipeline, &policy, config, &intent, lane);
        assert!(
            matches!(outcome, ExecutionResult::Executed { .. }),
            "{entry:?}: {outcome:?}"
        );
        assert!(checked.signed().delegate_salt.is_some());
        assert_eq!(dai(&world, payee) - before, intent_amount(), "{entry:?}");
    }
    // The lanes read straight from the namespace are what the delegate's view returns.
    for key in [0u32, 1, 7, u32::MAX] {
        let view = pace_abi::bindings::PaceAccount::nextSequenceCall { key }.abi_encode();
        let out = world.evm.view(eoa, view.into()).unwrap();
        assert_eq!(
            pace_pipeline::lane_sequence(&world.evm, eoa, key, AccountKind::PaceDelegate).unwrap(),
            u64::abi_decode(&out).unwrap(),
            "lane {key}"
        );
    }
    // Lane 0 on the EntryPoint path now meets the direct path's floor: refused before signing.
    let config = config(&world, AccountKind::PaceDelegate, Entry::EntryPoint);
    let err = sequence_for(&world.evm, eoa, 0, config.account, config.entry).unwrap_err();
    assert!(
        matches!(
            err,
            pace_pipeline::Error::LaneCancelled {
                key: 0,
                floor: 1,
                sequence: 0
            }
        ),
        "{err}"
    );
}

pub(crate) fn intent_amount() -> U256 {
    U256::from(10u64).pow(U256::from(18u64)) * U256::from(25u64)
}
