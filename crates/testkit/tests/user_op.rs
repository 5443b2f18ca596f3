//! `pace_types::user_op::user_op_hash` against the real EntryPoint v0.8: its compiled bytecode
//! (`@account-abstraction/contracts`, read from `node_modules/` at run time, never embedded) is
//! deployed on the in-process EVM and placed at the canonical address, and `getUserOpHash`
//! must equal the Rust hash for plain user operations, with a paymaster, with a factory, with
//! the EIP-7702 `initCode` marker of a delegated sender, on two chains and at two addresses,
//! and for the golden vector's user operations (`tests/vectors/pdr_golden.json`).

use alloy_json_abi::JsonAbi;
use alloy_primitives::{Address, B256, Bytes, U256, hex, keccak256};
use alloy_sol_types::SolValue;
use pace_evm::InProcessEvm;
use pace_testkit::protocols::npm::{NpmArtifact, Package};
use pace_types::user_op::{
    ENTRY_POINT_V08, PACKED_USER_OP_TYPE, PackedUserOperation, UserOpError, delegation_designator,
    pack_account_gas_limits, pack_gas_fees, paymaster_and_data, user_op_hash,
};
use serde_json::Value;

/// The ERC-4337 contracts, as package.json pins them.
const ACCOUNT_ABSTRACTION: Package = Package {
    name: "@account-abstraction/contracts",
    version: "0.8.0",
};

const DEPLOYER: Address = Address::repeat_byte(0xde);

/// An EVM on `chain_id` with the EntryPoint deployed from its creation code, its runtime also
/// placed at the canonical address; the ABI and the deployed address.
fn entry_point(chain_id: u64) -> (InProcessEvm, JsonAbi, Address) {
    let artifact =
        NpmArtifact::load(ACCOUNT_ABSTRACTION, "EntryPoint.json").expect("EntryPoint artifact");
    let mut evm = InProcessEvm::new(chain_id);
    let deployed = evm
        .deploy(DEPLOYER, artifact.deploy_code(&[]).unwrap())
        .expect("EntryPoint deploys");
    let runtime = evm.code(deployed).unwrap();
    assert!(runtime.len() > 10_000, "the runtime is the EntryPoint's");
    evm.set_code(ENTRY_POINT_V08, runtime).unwrap();
    (evm, artifact.abi, deployed)
}

/// The four-byte selector of `name` in the artifact's own ABI.
fn selector(abi: &JsonAbi, name: &str) -> [u8; 4] {
    let f = abi.function(name).unwrap_or_else(|| panic!("no {name}"));
    assert_eq!(f.len(), 1, "{name} is not overloaded");
    f[0].selector().0
}

/// `getUserOpHash(op)` of the EntryPoint at `at`.
fn get_user_op_hash(
    evm: &InProcessEvm,
    abi: &JsonAbi,
    at: Address,
    op: &PackedUserOperation,
) -> Result<B256, pace_evm::Error> {
    let mut data = selector(abi, "getUserOpHash").to_vec();
    data.extend((op.clone(),).abi_encode_params());
    let out = evm.view(at, data.into())?;
    Ok(B256::from_slice(&out))
}

fn plain() -> PackedUserOperation {
    PackedUserOperation {
        sender: Address::repeat_byte(0x5e),
        nonce: (U256::from(3) << 64) | U256::from(11),
        initCode: Bytes::new(),
        callData: hex!("17f5eea900000000").into(),
        accountGasLimits: pack_account_gas_limits(150_000, 600_000),
        preVerificationGas: U256::from(48_000),
        gasFees: pack_gas_fees(1_000_000_000, 40_000_000_000),
        paymasterAndData: Bytes::new(),
        // The signature is not hashed: any bytes.
        signature: vec![0xab; 96].into(),
    }
}

#[test]
fn the_type_hash_and_plain_operations_match_the_entry_point() {
    let (evm, abi, deployed) = entry_point(1);
    let type_hash = evm
        .view(
            ENTRY_POINT_V08,
            selector(&abi, "getPackedUserOpTypeHash").to_vec().into(),
        )
        .unwrap();
    assert_eq!(
        type_hash.as_ref(),
        keccak256(PACKED_USER_OP_TYPE).as_slice()
    );

    let with_paymaster = PackedUserOperation {
        paymasterAndData: paymaster_and_data(
            Address::repeat_byte(0x9a),
            100_000,
            50_000,
            &hex!("c0ffee"),
        ),
        ..plain()
    };
    let with_factory = PackedUserOperation {
        initCode: [Address::repeat_byte(0xfa).as_slice(), &hex!("5fbfb9cf")]
            .concat()
            .into(),
        nonce: U256::ZERO,
        ..plain()
    };
    let extreme = PackedUserOperation {
        sender: Address::repeat_byte(0xff),
        nonce: U256::MAX,
        accountGasLimits: pack_account_gas_limits(u128::MAX, 0),
        preVerificationGas: U256::MAX,
        gasFees: pack_gas_fees(0, u128::MAX),
        callData: vec![0x11; 1000].into(),
        ..plain()
    };
    let mut seen = Vec::new();
    for op in [plain(), with_paymaster, with_factory, extreme] {
        let rust = user_op_hash(&op, ENTRY_POINT_V08, 1, None).unwrap();
        assert_eq!(
            get_user_op_hash(&evm, &abi, ENTRY_POINT_V08, &op).unwrap(),
            rust
        );
        // The deployment at its own address hashes under its own domain.
        let elsewhere = get_user_op_hash(&evm, &abi, deployed, &op).unwrap();
        assert_eq!(elsewhere, user_op_hash(&op, deployed, 1, None).unwrap());
        assert_ne!(elsewhere, rust, "the hash binds the EntryPoint");
        seen.push(rust);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 4, "four operations, four hashes");
}

#[test]
fn the_chain_id_is_the_entry_points_chain() {
    let (evm, abi, _) = entry_point(31_337);
    let op = plain();
    let on_chain = get_user_op_hash(&evm, &abi, ENTRY_POINT_V08, &op).unwrap();
    assert_eq!(
        on_chain,
        user_op_hash(&op, ENTRY_POINT_V08, 31_337, None).unwrap()
    );
    assert_ne!(
        on_chain,
        user_op_hash(&op, ENTRY_POINT_V08, 1, None).unwrap()
    );
}

#[test]
fn an_eip7702_sender_is_hashed_over_its_delegate() {
    let (mut evm, abi, _) = entry_point(1);
    let delegate = Address::repeat_byte(0xd7);
    let sender = Address::repeat_byte(0x77);
    evm.set_code(sender, delegation_designator(delegate))
        .unwrap();

    let marker = PackedUserOperation {
        sender,
        initCode: hex!("7702").into(),
        ..plain()
    };
    let mut long_code = vec![0x77, 0x02];
    long_code.extend([0u8; 18]);
    long_code.extend(hex!("cafe0123"));
    let marker_with_data = PackedUserOperation {
        initCode: long_code.into(),
        ..marker.clone()
    };
    for op in [&marker, &marker_with_data] {
        let on_chain = get_user_op_hash(&evm, &abi, ENTRY_POINT_V08, op).unwrap();
        assert_eq!(
            on_chain,
            user_op_hash(op, ENTRY_POINT_V08, 1, Some(delegate)).unwrap()
        );
        assert_ne!(
            on_chain,
            user_op_hash(op, ENTRY_POINT_V08, 1, Some(Address::repeat_byte(0xd8))).unwrap(),
            "the delegate is hashed"
        );
        assert_eq!(
            user_op_hash(op, ENTRY_POINT_V08, 1, None),
            Err(UserOpError::MissingDelegate)
        );
    }
    assert_ne!(
        user_op_hash(&marker, ENTRY_POINT_V08, 1, Some(delegate)).unwrap(),
        user_op_hash(&marker_with_data, ENTRY_POINT_V08, 1, Some(delegate)).unwrap(),
        "initCode past the marker is hashed"
    );

    // A marked operation from a sender that is not delegated has no hash: the EntryPoint
    // reverts, as the Rust side refuses without a delegate.
    let undelegated = PackedUserOperation {
        sender: Address::repeat_byte(0x78),
        ..marker
    };
    let err = get_user_op_hash(&evm, &abi, ENTRY_POINT_V08, &undelegated).unwrap_err();
    let reason = |e: pace_evm::Error| e.revert().and_then(|r| r.reason());
    assert_eq!(reason(err).as_deref(), Some("revert: sender has no code"));
    // Nor from a contract sender whose code is no delegation designator.
    let contract = PackedUserOperation {
        sender: ENTRY_POINT_V08,
        ..undelegated
    };
    let err = get_user_op_hash(&evm, &abi, ENTRY_POINT_V08, &contract).unwrap_err();
    assert_eq!(
        reason(err).as_deref(),
        Some("revert: not an EIP-7702 delegate")
    );
}

fn vector() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/pdr_golden.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("golden vector exists"))
        .expect("valid JSON")
}

fn field<T: std::str::FromStr>(v: &Value, key: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is a string"))
        .parse()
        .unwrap_or_else(|e| panic!("{key}: {e:?}"))
}

#[test]
fn the_golden_vectors_user_operations_hash_as_the_entry_point_does() {
    let v = vector();
    let chain_id: u64 = field(&v, "chainId");
    let (evm, abi, _) = entry_point(chain_id);
    let entry_point: Address = field(&v, "entryPoint");
    assert_eq!(entry_point, ENTRY_POINT_V08);
    let op = &v["userOp"];
    let expected = &v["expected"];
    let nonce = (field::<U256>(&v, "key") << 64) | field::<U256>(&v, "sequence");
    assert_eq!(nonce, field::<U256>(expected, "terms") >> 160);
    for (sender, hash) in [
        ("account", "userOpHash"),
        ("delegateEoa", "delegateUserOpHash"),
    ] {
        let user_op = PackedUserOperation {
            sender: field(&v, sender),
            nonce,
            initCode: Bytes::new(),
            callData: field(expected, "userOpCallData"),
            accountGasLimits: pack_account_gas_limits(
                field(op, "verificationGasLimit"),
                field(op, "callGasLimit"),
            ),
            preVerificationGas: field(op, "preVerificationGas"),
            gasFees: pack_gas_fees(field(op, "maxPriorityFeePerGas"), field(op, "maxFeePerGas")),
            paymasterAndData: field(op, "paymasterAndData"),
            signature: Bytes::new(),
        };
        assert_eq!(
            get_user_op_hash(&evm, &abi, ENTRY_POINT_V08, &user_op).unwrap(),
            field::<B256>(expected, hash),
            "{hash}"
        );
    }
}
