//! `attest`: approvals are signed, rejections never are.

use alloy_primitives::{Address, B256, U256};
use pace_signer::{Error, PdrRecord, PdrSigner, attest};
use pace_types::{
    Decision, Intent, Violation, ViolationCode,
    pdr::{Bound, PdrTerms},
};

fn intent() -> Intent {
    Intent::from_json_str(
        r#"{
            "chain_id": 31337,
            "account": "0x00000000000000000000000000000000000000ac",
            "calls": [{"target": "0x00000000000000000000000000000000000000d1", "value": "0",
                       "data": "0xa9059cbb000000000000000000000000000000000000000000000000000000000000beef0000000000000000000000000000000000000000000000000000000000000001"}]
        }"#,
    )
    .expect("intent parses")
}

fn decision(intent: &Intent, approved: bool) -> Decision {
    let violations = if approved {
        vec![]
    } else {
        vec![Violation::new(ViolationCode::ALL[0], "test violation")]
    };
    Decision::new(
        intent.intent_hash(),
        B256::repeat_byte(0x11),
        Some(B256::repeat_byte(0x33)),
        violations,
    )
}

fn terms() -> PdrTerms {
    PdrTerms {
        key: 0,
        sequence: 4,
        valid_after: 100,
        valid_until: 200,
        simulation_block: 9,
        max_simulation_age: 2,
        call_gas_kib: 0,
    }
}

fn signer() -> PdrSigner {
    PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap()
}

#[test]
fn approved_decision_is_signed_over_the_intents_calls() {
    let intent = intent();
    let d = decision(&intent, true);
    assert!(d.approved);
    let record = attest(&signer(), &intent, &d, terms(), vec![]).unwrap();
    let signed = record.signed().expect("approval is signed");
    assert!(signed.is_signed_by(signer().address()));
    assert!(signed.is_single_unbounded());
    assert_eq!(signed.pdr.calls[0].data, intent.calls[0].data);
    assert_eq!(signed.pdr.attestation.intentHash, intent.intent_hash());
    assert_eq!(signed.pdr.attestation.policyHash, B256::repeat_byte(0x11));
    assert_eq!(signed.pdr.terms(), terms());
    assert_eq!(signed.digest, signed.pdr.digest(31337, intent.account));
    // The audit record round-trips through JSON.
    let json = serde_json::to_string(&record).unwrap();
    assert_eq!(serde_json::from_str::<PdrRecord>(&json).unwrap(), record);
}

#[test]
fn rejected_decision_is_never_signed() {
    let intent = intent();
    let d = decision(&intent, false);
    assert!(!d.approved);
    let record = attest(&signer(), &intent, &d, terms(), vec![]).unwrap();
    assert!(record.signed().is_none());
    assert_eq!(record.decision(), &d);
    assert!(
        serde_json::to_string(&record)
            .unwrap()
            .contains(r#""status":"unsigned""#)
    );
}

#[test]
fn decision_about_another_intent_is_an_error() {
    let intent = intent();
    let mut other = intent.clone();
    other.calls[0].value = U256::from(1);
    let d = decision(&other, true);
    assert!(matches!(
        attest(&signer(), &intent, &d, terms(), vec![]),
        Err(Error::IntentMismatch { .. })
    ));
}

#[test]
fn empty_window_is_an_error() {
    let intent = intent();
    let d = decision(&intent, true);
    let mut t = terms();
    t.valid_after = 300;
    assert!(matches!(
        attest(&signer(), &intent, &d, t, vec![]),
        Err(Error::InvalidWindow { .. })
    ));
}

#[test]
fn any_field_change_breaks_the_signature() {
    let intent = intent();
    let d = decision(&intent, true);
    let bounds = vec![Bound {
        token: Address::repeat_byte(0xd1),
        maxOut: U256::from(1),
        minIn: U256::ZERO,
    }];
    let record = attest(&signer(), &intent, &d, terms(), bounds).unwrap();
    let signed = record.signed().unwrap().clone();
    let who = signer().address();
    type Mutation = Box<dyn Fn(&mut pace_signer::SignedPdr)>;
    let mutations: Vec<Mutation> = vec![
        Box::new(|s| s.pdr.calls[0].target = Address::repeat_byte(0xee)),
        Box::new(|s| s.pdr.calls[0].value = U256::from(5)),
        Box::new(|s| s.pdr.calls[0].data = vec![0xa9, 0x05].into()),
        Box::new(|s| s.pdr.bounds[0].maxOut = U256::from(2)),
        Box::new(|s| s.pdr.bounds.clear()),
        Box::new(|s| s.pdr.nonce += U256::from(1)),
        Box::new(|s| s.pdr.simulationBlock += alloy_primitives::aliases::U48::from(1)),
        Box::new(|s| s.pdr.callGasKib ^= 1),
        Box::new(|s| s.pdr.attestation.simulationHash = B256::ZERO),
        Box::new(|s| s.chain_id = 1),
        Box::new(|s| s.account = Address::repeat_byte(1)),
    ];
    for (i, m) in mutations.iter().enumerate() {
        let mut changed = signed.clone();
        m(&mut changed);
        assert!(
            !changed.is_signed_by(who),
            "mutation {i} kept a valid signature"
        );
    }
}
