//! What the execution read of its transaction and block (the report's `environment`), from
//! the trace of code other than the account's: nothing for an ERC-20 transfer (the signed
//! transaction is then run neither under another lander nor later), the time for a swap
//! through a pool that stamps its reserves, and every read a contract recording its
//! environment makes.

use crate::door::evaluate;
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, sol};
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_types::{Call, Claims, CompiledPolicy, EnvRead, Intent};
use pace_world::{Builder, World, default_policy, scenarios};

sol! {
    function record(address[] addresses, bytes32[] slots, bytes32 transientSlot);
}

fn world() -> (PdrSigner, World) {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let world = World::new(signer.address()).unwrap();
    (signer, world)
}

#[test]
fn a_transfer_reads_nothing_and_a_swap_reads_the_time() {
    let (signer, world) = world();
    let a = world.addrs;
    let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
    let config = PipelineConfig::default();

    let transfer = pace_testkit::intents::dai_to_payee(&world, pace_testkit::ether(250));
    let e = evaluate(&world.evm, &transfer, &policy, &signer, &config).unwrap();
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    assert!(e.checked.is_some());
    assert_eq!(e.report.environment, Vec::<EnvRead>::new());

    let swap = scenarios(&world)
        .into_iter()
        .find(|s| s.name == "benign swap")
        .unwrap()
        .intent;
    let e = evaluate(&world.evm, &swap, &policy, &signer, &config).unwrap();
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    assert!(e.checked.is_some());
    assert_eq!(e.report.environment, vec![EnvRead::Timestamp]);
}

#[test]
fn a_contract_reading_its_environment_is_seen_reading_it() {
    let (signer, mut world) = world();
    let a = world.addrs;
    let deadline = world.deadline();
    let recorder = Builder::new(&mut world.evm, a.deployer, deadline)
        .unwrap()
        .project("EnvironmentRecorder", &[], "deploy the recorder")
        .unwrap();
    let intent = Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls: vec![Call {
            target: recorder,
            value: U256::ZERO,
            data: recordCall {
                addresses: vec![a.weth, Address::repeat_byte(0x5e)],
                slots: vec![B256::with_last_byte(3)],
                transientSlot: B256::repeat_byte(7),
            }
            .abi_encode()
            .into(),
        }],
        claimed: Claims {
            touched: vec![recorder],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let mut policy = default_policy(&a);
    policy.allowed_targets.push(recorder);
    policy.allowed_selectors.push(recordCall::SELECTOR.into());
    let policy = CompiledPolicy::try_from(policy).unwrap();
    let e = evaluate(
        &world.evm,
        &intent,
        &policy,
        &signer,
        &PipelineConfig::default(),
    )
    .unwrap();
    for read in [
        EnvRead::Origin,
        EnvRead::GasPrice,
        EnvRead::Coinbase,
        EnvRead::Prevrandao,
        EnvRead::GasLimit,
        EnvRead::BaseFee,
        EnvRead::Blob,
        EnvRead::Gas,
        EnvRead::Timestamp,
        EnvRead::Number,
        EnvRead::BlockHash,
    ] {
        assert!(
            e.report.environment.contains(&read),
            "{read:?} in {:?}",
            e.report.environment
        );
    }
    let mut sorted = e.report.environment.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, e.report.environment, "sorted, each once");
}
