//! The committed golden vector `tests/vectors/pdr_golden.json`, reproduced by the Rust types
//! and signer. `tests/PdrGoldenVector.t.sol` reproduces the same file with PaceAccount's own
//! hashing, so the two implementations agree on the digest byte for byte.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolStruct;
use pace_signer::PdrSigner;
use pace_types::pdr::{Attestation, Bound, Call, Pdr, PdrTerms};
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
    let bounds: Vec<Bound> = strs(&v, "boundTokens")
        .into_iter()
        .zip(strs(&v, "boundMaxOut"))
        .zip(strs(&v, "boundMinIn"))
        .map(|((t, max_out), min_in)| Bound {
            token: t.parse().unwrap(),
            maxOut: max_out.parse().unwrap(),
            minIn: min_in.parse().unwrap(),
        })
        .collect();
    let terms = PdrTerms {
        key: num(&v, "key") as u32,
        sequence: num(&v, "sequence"),
        valid_after: num(&v, "validAfter"),
        valid_until: num(&v, "validUntil"),
        simulation_block: num(&v, "simulationBlock"),
        max_simulation_age: num(&v, "maxSimulationAge") as u16,
        call_gas_kib: num(&v, "callGasKib") as u16,
    };
    let pdr = Pdr::new(attestation, calls, bounds, &terms);
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

    let signer = PdrSigner::from_hex(s(&v, "verifierKey")).unwrap();
    let sig = signer.sign_digest(digest).unwrap();
    assert_eq!(sig.r, s(expected, "r").parse::<B256>().unwrap());
    assert_eq!(sig.vs, s(expected, "vs").parse::<B256>().unwrap());
}
