//! The committed PDR golden vector (`tests/vectors/pdr_golden.json`) on every entry path: the
//! user operations that carry the PDR, their hashes, and the PDR's digest under each domain.
//! The expected values are checked twice here: by the crate's API and by separators and
//! digests written out from their definitions, word by word. `tests/PdrGoldenVector.t.sol`
//! reproduces the same file with the contracts' hashing, and the testkit's user-operation
//! test the user operations' hashes with the real EntryPoint.
//!
//! `PACE_PRINT_GOLDEN=1` prints the computed values instead of checking them.

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_sol_types::{SolStruct, SolValue};
use pace_types::pdr::{Attestation, Bound, Call, Check, EntryPath, Pdr, PdrTerms};
use pace_types::user_op::{UserOpGas, pdr_call_data, pdr_user_op, user_op_hash};
use serde_json::Value;

fn vector() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/pdr_golden.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("golden vector exists"))
        .expect("valid JSON")
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is a string"))
}

fn parse<T: std::str::FromStr>(v: &Value, key: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    s(v, key).parse().unwrap_or_else(|e| panic!("{key}: {e:?}"))
}

fn list<T: std::str::FromStr>(v: &Value, key: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is an array"))
        .iter()
        .map(|x| x.as_str().unwrap().parse().unwrap())
        .collect()
}

fn pdr(v: &Value) -> Pdr {
    let attestation = Attestation {
        policyHash: parse(v, "policyHash"),
        intentHash: parse(v, "intentHash"),
        simulationHash: parse(v, "simulationHash"),
    };
    let targets: Vec<Address> = list(v, "callTargets");
    let values: Vec<U256> = list(v, "callValues");
    let data: Vec<Bytes> = list(v, "callData");
    let calls = (0..targets.len())
        .map(|i| Call {
            target: targets[i],
            value: values[i],
            data: data[i].clone(),
        })
        .collect();
    let tokens: Vec<Address> = list(v, "boundTokens");
    let kinds: Vec<u8> = list(v, "boundKinds");
    let ids: Vec<U256> = list(v, "boundIds");
    let (max_out, min_in, max_in): (Vec<U256>, Vec<U256>, Vec<U256>) = (
        list(v, "boundMaxOut"),
        list(v, "boundMinIn"),
        list(v, "boundMaxIn"),
    );
    let bounds = (0..tokens.len())
        .map(|i| Bound {
            token: tokens[i],
            kind: kinds[i],
            id: ids[i],
            maxOut: max_out[i],
            minIn: min_in[i],
            maxIn: max_in[i],
        })
        .collect();
    let terms = PdrTerms {
        key: parse(v, "key"),
        sequence: parse(v, "sequence"),
        valid_after: parse(v, "validAfter"),
        valid_until: parse(v, "validUntil"),
        simulation_block: parse(v, "simulationBlock"),
        max_simulation_age: parse(v, "maxSimulationAge"),
        call_gas_kib: parse(v, "callGasKib"),
    };
    Pdr::new(
        attestation,
        calls,
        bounds,
        list(v, "held"),
        checks(v),
        &terms,
    )
}

/// The vector's post-conditions.
fn checks(v: &Value) -> Vec<Check> {
    let targets: Vec<Address> = list(v, "checkTargets");
    let data: Vec<Bytes> = list(v, "checkData");
    let words: Vec<u16> = list(v, "checkWords");
    let relations: Vec<u8> = list(v, "checkRelations");
    let (lo, hi): (Vec<U256>, Vec<U256>) = (list(v, "checkLo"), list(v, "checkHi"));
    (0..targets.len())
        .map(|i| Check {
            target: targets[i],
            data: data[i].clone(),
            word: words[i],
            relation: relations[i],
            lo: lo[i],
            hi: hi[i],
        })
        .collect()
}

fn gas(v: &Value) -> UserOpGas {
    let op = &v["userOp"];
    UserOpGas {
        verification_gas_limit: parse(op, "verificationGasLimit"),
        call_gas_limit: parse(op, "callGasLimit"),
        pre_verification_gas: parse(op, "preVerificationGas"),
        max_priority_fee_per_gas: parse(op, "maxPriorityFeePerGas"),
        max_fee_per_gas: parse(op, "maxFeePerGas"),
    }
}

/// What the vector's inputs give on every path.
struct Computed {
    call_data: Bytes,
    user_op_hash: B256,
    digest_entry_point: B256,
    delegate_user_op_hash: B256,
    delegate_entry_point_salt: B256,
    digest_delegate: B256,
    digest_delegate_entry_point: B256,
    digest_module: B256,
}

fn compute(v: &Value) -> Computed {
    let p = pdr(v);
    let chain_id: u64 = parse(v, "chainId");
    let account: Address = parse(v, "account");
    let eoa: Address = parse(v, "delegateEoa");
    let setup_salt: B256 = parse(v, "setupSalt");
    let entry_point: Address = parse(v, "entryPoint");
    let paymaster: Bytes = parse(&v["userOp"], "paymasterAndData");
    let gas = gas(v);

    let op = pdr_user_op(account, &p, &gas, paymaster.clone());
    let op_hash = user_op_hash(&op, entry_point, chain_id, None).unwrap();
    let delegate_op = pdr_user_op(eoa, &p, &gas, paymaster);
    let delegate_op_hash = user_op_hash(&delegate_op, entry_point, chain_id, None).unwrap();
    let delegate_entry_point = EntryPath::DelegateEntryPoint {
        eoa,
        setup_salt,
        user_op_hash: delegate_op_hash,
    };
    Computed {
        call_data: op.callData,
        user_op_hash: op_hash,
        digest_entry_point: p.digest_on(
            chain_id,
            &EntryPath::EntryPoint {
                account,
                user_op_hash: op_hash,
            },
        ),
        delegate_user_op_hash: delegate_op_hash,
        delegate_entry_point_salt: delegate_entry_point.salt().unwrap(),
        digest_delegate: p.digest_on(chain_id, &EntryPath::Delegate { eoa, setup_salt }),
        digest_delegate_entry_point: p.digest_on(chain_id, &delegate_entry_point),
        digest_module: p.digest_on(
            chain_id,
            &EntryPath::Module {
                module: parse(v, "module"),
                safe: parse(v, "moduleSafe"),
            },
        ),
    }
}

#[test]
fn every_entry_path_reproduces_the_golden_vector() {
    let v = vector();
    let c = compute(&v);
    let expected = &v["expected"];
    if std::env::var_os("PACE_PRINT_GOLDEN").is_some() {
        println!("\"userOpCallData\": \"{}\",", c.call_data);
        println!("\"userOpHash\": \"{}\",", c.user_op_hash);
        println!("\"digestEntryPoint\": \"{}\",", c.digest_entry_point);
        println!("\"delegateUserOpHash\": \"{}\",", c.delegate_user_op_hash);
        println!(
            "\"delegateEntryPointSalt\": \"{}\",",
            c.delegate_entry_point_salt
        );
        println!("\"digestDelegate\": \"{}\",", c.digest_delegate);
        println!(
            "\"digestDelegateEntryPoint\": \"{}\",",
            c.digest_delegate_entry_point
        );
        println!("\"digestModule\": \"{}\"", c.digest_module);
        return;
    }
    let p = pdr(&v);
    let (chain_id, account): (u64, Address) = (parse(&v, "chainId"), parse(&v, "account"));
    assert_eq!(
        p.digest_on(chain_id, &EntryPath::Direct { account }),
        parse::<B256>(expected, "digest"),
        "the direct path is the vector's digest"
    );
    assert_eq!(c.call_data, parse::<Bytes>(expected, "userOpCallData"));
    assert_eq!(c.user_op_hash, parse::<B256>(expected, "userOpHash"));
    assert_eq!(
        c.digest_entry_point,
        parse::<B256>(expected, "digestEntryPoint")
    );
    assert_eq!(
        c.delegate_user_op_hash,
        parse::<B256>(expected, "delegateUserOpHash")
    );
    assert_eq!(
        c.delegate_entry_point_salt,
        parse::<B256>(expected, "delegateEntryPointSalt")
    );
    assert_eq!(c.digest_delegate, parse::<B256>(expected, "digestDelegate"));
    assert_eq!(
        c.digest_delegate_entry_point,
        parse::<B256>(expected, "digestDelegateEntryPoint")
    );
    assert_eq!(c.digest_module, parse::<B256>(expected, "digestModule"));
    let all = [
        parse::<B256>(expected, "digest"),
        c.digest_entry_point,
        c.digest_delegate,
        c.digest_delegate_entry_point,
        c.digest_module,
    ];
    for i in 0..all.len() {
        for j in 0..i {
            assert_ne!(all[i], all[j], "one digest per path");
        }
    }
}

fn word(x: &impl SolValue) -> Vec<u8> {
    x.abi_encode()
}

/// `keccak256(abi.encode(...))` of the salted domain, written out.
fn salted_separator(name: &str, version: &str, chain_id: u64, at: Address, salt: B256) -> B256 {
    let ty = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)",
    );
    let mut pre = Vec::new();
    for w in [
        word(&ty),
        word(&keccak256(name)),
        word(&keccak256(version)),
        word(&U256::from(chain_id)),
        word(&at),
        word(&salt),
    ] {
        pre.extend(w);
    }
    keccak256(pre)
}

fn typed(separator: B256, struct_hash: B256) -> B256 {
    let mut pre = vec![0x19, 0x01];
    pre.extend_from_slice(separator.as_slice());
    pre.extend_from_slice(struct_hash.as_slice());
    keccak256(pre)
}

/// The user operation's hash from `PackedUserOperation`'s EIP-712 definition, written out.
fn plain_user_op_hash(v: &Value, sender: Address, call_data: &[u8]) -> B256 {
    let op = &v["userOp"];
    let high_low =
        |hi: &str, lo: &str| -> U256 { (parse::<U256>(op, hi) << 128) | parse::<U256>(op, lo) };
    let nonce = (parse::<U256>(v, "key") << 64) | parse::<U256>(v, "sequence");
    let ty = keccak256(
        "PackedUserOperation(address sender,uint256 nonce,bytes initCode,bytes callData,\
         bytes32 accountGasLimits,uint256 preVerificationGas,bytes32 gasFees,bytes paymasterAndData)",
    );
    let mut pre = Vec::new();
    for w in [
        word(&ty),
        word(&sender),
        word(&nonce),
        word(&keccak256([])),
        word(&keccak256(call_data)),
        word(&high_low("verificationGasLimit", "callGasLimit")),
        word(&parse::<U256>(op, "preVerificationGas")),
        word(&high_low("maxPriorityFeePerGas", "maxFeePerGas")),
        word(&keccak256(parse::<Bytes>(op, "paymasterAndData"))),
    ] {
        pre.extend(w);
    }
    let mut domain = Vec::new();
    for w in [
        word(&keccak256(
            "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
        )),
        word(&keccak256("ERC4337")),
        word(&keccak256("1")),
        word(&parse::<U256>(v, "chainId")),
        word(&parse::<Address>(v, "entryPoint")),
    ] {
        domain.extend(w);
    }
    typed(keccak256(domain), keccak256(pre))
}

#[test]
fn the_expected_values_follow_from_their_definitions() {
    let v = vector();
    let c = compute(&v);
    let p = pdr(&v);
    let chain_id: u64 = parse(&v, "chainId");
    let account: Address = parse(&v, "account");
    let eoa: Address = parse(&v, "delegateEoa");
    let setup_salt: B256 = parse(&v, "setupSalt");
    let struct_hash = p.eip712_hash_struct();

    let terms = p.terms().pack();
    assert!(!p.checks.is_empty(), "the vector carries post-conditions");
    let mut call_data = alloy_primitives::hex!("17f5eea9").to_vec();
    call_data.extend(
        (
            p.calls.clone(),
            p.bounds.clone(),
            p.held.clone(),
            p.checks.clone(),
            terms,
        )
            .abi_encode_params(),
    );
    assert_eq!(c.call_data.as_ref(), call_data.as_slice());
    assert_eq!(
        pdr_call_data(&p.calls, &p.bounds, &p.held, &p.checks, terms).as_ref(),
        call_data.as_slice()
    );

    assert_eq!(c.user_op_hash, plain_user_op_hash(&v, account, &call_data));
    assert_eq!(
        c.delegate_user_op_hash,
        plain_user_op_hash(&v, eoa, &call_data)
    );
    assert_eq!(
        c.digest_entry_point,
        typed(
            salted_separator("PaceAccount", "3", chain_id, account, c.user_op_hash),
            struct_hash
        )
    );
    assert_eq!(
        c.digest_delegate,
        typed(
            salted_separator("PaceDelegate", "2", chain_id, eoa, setup_salt),
            struct_hash
        )
    );
    let mut salt = setup_salt.to_vec();
    salt.extend_from_slice(c.delegate_user_op_hash.as_slice());
    assert_eq!(c.delegate_entry_point_salt, keccak256(&salt));
    assert_eq!(
        c.digest_delegate_entry_point,
        typed(
            salted_separator("PaceDelegate", "2", chain_id, eoa, keccak256(&salt)),
            struct_hash
        )
    );
    let (module, safe): (Address, Address) = (parse(&v, "module"), parse(&v, "moduleSafe"));
    assert_eq!(
        c.digest_module,
        typed(
            salted_separator("PaceModule", "1", chain_id, module, safe.into_word()),
            struct_hash
        )
    );
}
