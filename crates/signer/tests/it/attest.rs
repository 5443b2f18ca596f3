//! `attest`: only the verifier's approvals are signed.

use alloy_primitives::{Address, B256, U256};
use pace_signer::{Bounds, Error, PdrRecord, PdrSigner, attest};
use pace_types::{
    Check, CheckSwitches, CompiledPolicy, Intent, Policy, SimulationReport,
    pdr::{Bound, PdrTerms},
};
use pace_verifier::{ApprovedIntent, Verdict};

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

fn report() -> SimulationReport {
    SimulationReport::from_json_str(&format!(
        r#"{{"intent_hash": "{}", "block_number": 9, "timestamp": 100, "success": true,
            "gas_used": 50000}}"#,
        intent().intent_hash()
    ))
    .expect("report parses")
}

/// A policy under which the verifier approves `intent()`: only the structural checks run.
fn lax() -> CompiledPolicy {
    Policy {
        name: Some("attest test".into()),
        checks: CheckSwitches::all_off(),
        ..Policy::default()
    }
    .compile()
    .unwrap()
}

fn approval(intent: &Intent) -> ApprovedIntent {
    match pace_verifier::approve(intent, &lax(), Some(&report()), 150) {
        Verdict::Approved(a) => *a,
        Verdict::Rejected(d) => panic!("the lax policy rejects: {:?}", d.violations),
    }
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
fn approval_is_signed_over_the_intents_calls_and_the_verifiers_hashes() {
    let intent = intent();
    let a = approval(&intent);
    assert!(a.decision().approved());
    assert_eq!(a.now(), 150);
    let signed = attest(&signer(), &a, terms(), Bounds::default()).unwrap();
    assert!(signed.is_signed_by(signer().address()));
    assert!(signed.is_single_unbounded());
    assert_eq!(signed.pdr.calls[0].data, intent.calls[0].data);
    assert_eq!(signed.pdr.attestation.intentHash, intent.intent_hash());
    assert_eq!(signed.pdr.attestation.policyHash, lax().policy_hash());
    assert_eq!(
        signed.pdr.attestation.simulationHash,
        report().simulation_hash()
    );
    assert_eq!(signed.pdr.terms(), terms());
    assert_eq!(signed.digest, signed.pdr.digest(31337, intent.account));
    // The audit record round-trips through JSON.
    let record = PdrRecord::Signed {
        decision: a.into_decision(),
        pdr: Box::new(signed),
    };
    let json = serde_json::to_string(&record).unwrap();
    assert!(json.contains(r#""status":"signed""#), "{json}");
    assert!(json.contains(r#""outcome":"approve""#), "{json}");
    assert_eq!(serde_json::from_str::<PdrRecord>(&json).unwrap(), record);
}

#[test]
fn rejection_gives_no_approval_to_sign() {
    // Nothing is an allowed target.
    let strict = Policy {
        checks: CheckSwitches::all_off().with(Check::TargetAllowlist, true),
        ..Policy::default()
    };
    let verdict =
        pace_verifier::approve(&intent(), &strict.compile().unwrap(), Some(&report()), 150);
    assert!(verdict.approval().is_none());
    let decision = verdict.into_decision();
    assert!(!decision.approved());
    // What is recorded instead: unsigned.
    let record = PdrRecord::Unsigned { decision };
    assert!(record.signed().is_none());
    assert!(
        serde_json::to_string(&record)
            .unwrap()
            .contains(r#""status":"unsigned""#)
    );
}

#[test]
fn an_approval_without_a_simulation_attests_none() {
    let intent = intent();
    let a = pace_verifier::approve(&intent, &lax(), None, 150)
        .into_approval()
        .expect("approved");
    let signed = attest(&signer(), &a, terms(), Bounds::default()).unwrap();
    assert_eq!(signed.pdr.attestation.simulationHash, B256::ZERO);
}

#[test]
fn empty_window_is_an_error() {
    let a = approval(&intent());
    let mut t = terms();
    t.valid_after = 300;
    assert!(matches!(
        attest(&signer(), &a, t, Bounds::default()),
        Err(Error::InvalidWindow { .. })
    ));
}

#[test]
fn any_field_change_breaks_the_signature() {
    let a = approval(&intent());
    let bounds = Bounds {
        bounds: vec![Bound {
            maxOut: U256::from(1),
            ..Bound::balance(Address::repeat_byte(0xd1))
        }],
        held: vec![Address::repeat_byte(0xd2)],
        ..Bounds::default()
    };
    let signed = attest(&signer(), &a, terms(), bounds).unwrap();
    let who = signer().address();
    type Mutation = Box<dyn Fn(&mut pace_signer::SignedPdr)>;
    let mutations: Vec<Mutation> = vec![
        Box::new(|s| s.pdr.calls[0].target = Address::repeat_byte(0xee)),
        Box::new(|s| s.pdr.calls[0].value = U256::from(5)),
        Box::new(|s| s.pdr.calls[0].data = vec![0xa9, 0x05].into()),
        Box::new(|s| s.pdr.bounds[0].maxOut = U256::from(2)),
        Box::new(|s| s.pdr.bounds.clear()),
        Box::new(|s| s.pdr.bounds[0].kind = 2),
        Box::new(|s| s.pdr.bounds[0].id = U256::from(1)),
        Box::new(|s| s.pdr.bounds[0].maxIn = U256::from(7)),
        Box::new(|s| s.pdr.held[0] = Address::repeat_byte(0xd3)),
        Box::new(|s| s.pdr.held.clear()),
        Box::new(|s| {
            s.pdr.checks.push(pace_types::pdr::Check::within(
                Address::repeat_byte(0xd4),
                vec![1].into(),
                0,
                U256::ZERO,
                U256::MAX,
            ))
        }),
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

#[test]
fn a_bound_the_account_would_refuse_is_never_signed() {
    let a = approval(&intent());
    let unknown = Bounds {
        bounds: vec![Bound {
            kind: 6,
            ..Bound::balance(Address::repeat_byte(0xd1))
        }],
        held: vec![],
        ..Bounds::default()
    };
    assert!(matches!(
        attest(&signer(), &a, terms(), unknown),
        Err(Error::InvalidBound { index: 0 })
    ));
    let mut wide = Bound::holding(Address::repeat_byte(0xd1), Address::repeat_byte(0xd2));
    wide.id = U256::from(1u8) << 160;
    let holder = Bounds {
        bounds: vec![Bound::balance(Address::ZERO), wide.clone()],
        held: vec![],
        ..Bounds::default()
    };
    assert!(matches!(
        attest(&signer(), &a, terms(), holder),
        Err(Error::InvalidBound { index: 1 })
    ));
    // The widest holder there is still is an address.
    wide.id = (U256::from(1u8) << 160) - U256::from(1u8);
    let fits = Bounds {
        bounds: vec![wide],
        held: vec![],
        ..Bounds::default()
    };
    assert!(attest(&signer(), &a, terms(), fits).is_ok());
}
