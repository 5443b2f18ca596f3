//! What pass 1 simulates is the transaction that executes: a contract recording everything it
//! can read of its environment (`EnvironmentRecorder`) is run through the door on a fork of a
//! node, then the checked transaction is sent to that node; the two recordings agree on every
//! field but those named in [`ALLOWED`], each for the reason given there.

use alloy_primitives::{Address, B256, Bytes, Log, U256};
use alloy_sol_types::{SolCall, SolEvent, sol};
use pace_evm::InProcessEvm;
use pace_node::{Tx, TxOutcome};
use pace_pipeline::{Chain, Pipeline};
use pace_signer::PdrSigner;
use pace_testkit::on_node::world_on_anvil;
use pace_types::{Call, Claims, CompiledPolicy, Intent};
use pace_world::{Builder, World, default_policy};

sol! {
    struct Environment {
        uint256 gasLeft;
        uint256 gasPrice;
        uint256 baseFee;
        uint256 blobBaseFee;
        address origin;
        address sender;
        uint256 value;
        uint256 number;
        uint256 timestamp;
        address coinbase;
        uint256 prevrandao;
        uint256 chainId;
        uint256 gasLimit;
        bytes32 parentHash;
        bytes32 transientValue;
    }
    struct Probe {
        bytes32 key;
        bytes32 value;
        uint256 cost;
    }
    event Recorded(Environment env, Probe[] addresses, Probe[] slots);
    function record(address[] addresses, bytes32[] slots, bytes32 transientSlot);
    function stash(bytes32 slot, bytes32 value);
}

/// The fields that may differ between pass 1 and the execution, and why (the README's list).
const ALLOWED: &[(&str, &str)] = &[
    (
        "timestamp",
        "pass 1 assumes the next slot, 12 s after the forked block; a node includes the \
         transaction when it does (anvil: its own clock)",
    ),
    (
        "gasLeft",
        "pass 1 runs under bounds that allow anything on the policy's tokens and ether; the \
         signed PDR's bounds and held set, known only after pass 1, change its calldata and the \
         reads before the calls by a few thousand gas (pass 2 runs the signed transaction itself \
         and must reproduce pass 1's effects)",
    ),
    (
        "prevrandao",
        "the including block's randomness is unknown before it is built",
    ),
];

/// Every field of one recording, by name.
fn fields(log: &Log) -> Vec<(String, String)> {
    let r = Recorded::decode_log(log).expect("a Recorded log").data;
    let e = &r.env;
    let mut out: Vec<(String, String)> = [
        ("gasLeft", e.gasLeft.to_string()),
        ("gasPrice", e.gasPrice.to_string()),
        ("baseFee", e.baseFee.to_string()),
        ("blobBaseFee", e.blobBaseFee.to_string()),
        ("origin", e.origin.to_string()),
        ("sender", e.sender.to_string()),
        ("value", e.value.to_string()),
        ("number", e.number.to_string()),
        ("timestamp", e.timestamp.to_string()),
        ("coinbase", e.coinbase.to_string()),
        ("prevrandao", e.prevrandao.to_string()),
        ("chainId", e.chainId.to_string()),
        ("gasLimit", e.gasLimit.to_string()),
        ("parentHash", e.parentHash.to_string()),
        ("transientValue", e.transientValue.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    for (i, p) in r.addresses.iter().enumerate() {
        out.push((format!("address[{i}].cost"), p.cost.to_string()));
    }
    for (i, p) in r.slots.iter().enumerate() {
        out.push((format!("slot[{i}].cost"), p.cost.to_string()));
    }
    out
}

fn recorded(logs: &[Log], recorder: Address) -> &Log {
    logs.iter()
        .find(|l| l.address == recorder && l.topics().first() == Some(&Recorded::SIGNATURE_HASH))
        .expect("the recorder's log")
}

#[test]
fn pass_one_sees_the_environment_the_execution_sees() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let deadline = world.deadline();
    let recorder = Builder::new(&mut world.evm, a.deployer, deadline)
        .unwrap()
        .project("EnvironmentRecorder", &[], "deploy the recorder")
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (anvil, client) = runtime.block_on(world_on_anvil(&world.evm)).unwrap();

    // The second call reads a transient slot the first wrote, and probes the warmth of a
    // token the bounds read (WETH), the recorder and a fresh address, and an empty slot.
    let slot = B256::repeat_byte(7);
    let calls = vec![
        Call {
            target: recorder,
            value: U256::ZERO,
            data: stashCall {
                slot,
                value: B256::repeat_byte(9),
            }
            .abi_encode()
            .into(),
        },
        Call {
            target: recorder,
            value: U256::ZERO,
            data: recordCall {
                addresses: vec![a.weth, recorder, Address::repeat_byte(0x5e)],
                slots: vec![B256::with_last_byte(3)],
                transientSlot: slot,
            }
            .abi_encode()
            .into(),
        },
    ];
    let intent = Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls,
        claimed: Claims {
            touched: vec![recorder],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let mut policy = default_policy(&a);
    policy.allowed_targets.push(recorder);
    policy.allowed_selectors.extend(
        [stashCall::SELECTOR, recordCall::SELECTOR].map(alloy_primitives::FixedBytes::<4>::from),
    );
    let policy = CompiledPolicy::try_from(policy).unwrap();

    let relayer = runtime.block_on((&client).relayer()).unwrap();
    let pipeline = Pipeline::new(signer).with_relayer(relayer);
    let fork = InProcessEvm::fork(anvil.url(), None).unwrap();
    let simulated = pipeline.simulate(&fork, intent.clone(), &policy).unwrap();
    let pass_one = fields(recorded(simulated.logs(), recorder));
    let eval = pipeline.evaluate(&fork, &intent, &policy, 0).unwrap();
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    let checked = eval.checked.expect("pass 2 agrees with pass 1");

    // The checked transaction as `Pipeline::submit` sends it on a node.
    let r = checked.relayer();
    let tx = Tx::call(a.account, U256::ZERO, Bytes::clone(checked.calldata()))
        .with_gas_limit(r.gas_limit)
        .with_fees(r.max_fee_per_gas, r.priority_fee_per_gas);
    let TxOutcome::Executed { logs, .. } = runtime.block_on(client.execute(tx)).unwrap() else {
        panic!("the checked transaction did not execute");
    };
    let executed = fields(recorded(&logs, recorder));
    drop(anvil);

    let get = |f: &[(String, String)], k: &str| f.iter().find(|(n, _)| n == k).unwrap().1.clone();
    let mut differ = Vec::new();
    for ((name, simulated), (_, real)) in pass_one.iter().zip(&executed) {
        if simulated != real && !ALLOWED.iter().any(|(f, _)| f == name) {
            differ.push(format!("{name}: pass 1 {simulated}, executed {real}"));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
    let gas = |f: &[(String, String)]| get(f, "gasLeft").parse::<i64>().unwrap();
    let drift = (gas(&pass_one) - gas(&executed)).abs();
    assert!(drift < 20_000, "gas left drifts by {drift}");
    // The recording is not vacuous: the relayer is the origin, the account the sender, and
    // the transient value crossed from the first call to the second in both.
    assert_eq!(get(&executed, "origin"), r.address.to_string());
    assert_eq!(get(&executed, "sender"), a.account.to_string());
    assert_eq!(
        get(&pass_one, "transientValue"),
        B256::repeat_byte(9).to_string()
    );
}
