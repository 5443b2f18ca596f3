//! The committed golden vector `tests/vectors/pdr_golden.json`, reproduced by the Rust types
//! and signer. `tests/PdrGoldenVector.t.sol` reproduces the same file with PaceAccount's own
//! hashing, so the two implementations agree on the digest byte for byte.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolStruct;
use pace_signer::PdrSigner;
use pace_types::pdr::{Attestation, Bound, Call, Check, Pdr, PdrTerms};
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

fn strs<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is an array"))
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect()
}

fn num(v: &Value, key: &str) -> u64 {
    s(v, key).parse().unwrap()
}

#[test]
fn rust_reproduces_the_golden_vector() {
    let v = vector();
    let attestation = Attestation {
        policyHash: s(&v, "policyHash").parse().unwrap(),
        intentHash: s(&v, "intentHash").parse().unwrap(),
        simulationHash: s(&v, "simulationHash").parse().unwrap(),
    };
    let calls: Vec<Call> = strs(&v, "callTargets")
        .into_iter()
        .zip(strs(&v, "callValues"))
        .zip(strs(&v, "callData"))
        .map(|((t, val), d)| Call {
            target: t.parse::<Address>().unwrap(),
            value: val.parse::<U256>().unwrap(),
            data: d.parse::<Bytes>().unwrap(),
        })
        .collect();
    let tokens = strs(&v, "boundTokens");
    let (kinds, ids) = (strs(&v, "boundKinds"), strs(&v, "boundIds"));
    let (max_out, min_in, max_in) = (
        strs(&v, "boundMaxOut"),
        strs(&v, "boundMinIn"),
        strs(&v, "boundMaxIn"),
    );
    let bounds: Vec<Bound> = (0..tokens.len())
        .map(|i| Bound {
            token: tokens[i].parse().unwrap(),
            kind: kinds[i].parse().unwrap(),
            id: ids[i].parse().unwrap(),
            maxOut: max_out[i].parse().unwrap(),
            minIn: min_in[i].parse().unwrap(),
            maxIn: max_in[i].parse().unwrap(),
        })
        .collect();
    assert!(
        [0, 1, 2, 3]
            .iter()
            .all(|k| bounds.iter().any(|b| b.kind == *k)),
        "the vector covers every kind of bound"
    );
    let held: Vec<Address> = strs(&v, "held")
        .into_iter()
        .map(|a| a.parse().unwrap())
        .collect();
    let (targets, data, words) = (
        strs(&v, "checkTargets"),
        strs(&v, "checkData"),
        strs(&v, "checkWords"),
    );
    let (relations, lo, hi) = (
        strs(&v, "checkRelations"),
        strs(&v, "checkLo"),
        strs(&v, "checkHi"),
    );
    let checks: Vec<Check> = (0..targets.len())
        .map(|i| Check {
            target: targets[i].parse().unwrap(),
            data: data[i].parse().unwrap(),
            word: words[i].parse().unwrap(),
            relation: relations[i].parse().unwrap(),
            lo: lo[i].parse().unwrap(),
            hi: hi[i].parse().unwrap(),
        })
        .collect();
    assert!(
        [0, 1]
            .iter()
            .all(|r| checks.iter().any(|c| c.relation == *r)),
        "the vector covers every relation of a check"
    );
    let terms = PdrTerms {
        key: num(&v, "key") as u32,
        sequence: num(&v, "sequence"),
        valid_after: num(&v, "validAfter"),
        valid_until: num(&v, "validUntil"),
        simulation_block: num(&v, "simulationBlock"),
        max_simulation_age: num(&v, "maxSimulationAge") as u16,
        call_gas_kib: num(&v, "callGasKib") as u16,
    };
    let pdr = Pdr::new(
        attestation.clone(),
        calls.clone(),
        bounds.clone(),
        held.clone(),
        checks,
        &terms,
    );
    let unchecked = Pdr::new(attestation, calls, bounds, held, vec![], &terms);
    let chain_id = num(&v, "chainId");
    let account: Address = s(&v, "account").parse().unwrap();
    let expected = &v["expected"];

    assert_eq!(
        pdr.attestation.eip712_hash_struct(),
        s(expected, "attestation").parse::<B256>().unwrap()
    );
    assert_eq!(terms.pack(), s(expected, "terms").parse::<U256>().unwrap());
    let digest = pdr.digest(chain_id, account);
    assert_eq!(digest, s(expected, "digest").parse::<B256>().unwrap());
    assert_eq!(
        unchecked.digest(chain_id, account),
        s(expected, "digestNoChecks").parse::<B256>().unwrap()
    );

    let signer = PdrSigner::from_hex(s(&v, "verifierKey")).unwrap();
    let sig = signer.sign_digest(digest).unwrap();
    assert_eq!(sig.r, s(expected, "r").parse::<B256>().unwrap());
    assert_eq!(sig.vs, s(expected, "vs").parse::<B256>().unwrap());
}
