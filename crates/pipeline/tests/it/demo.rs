//! The demo's five outcomes.

use pace_pipeline::{ExecutionResult, demo};
use pace_signer::{DEV_VERIFIER_KEY, PdrSigner};
use pace_types::ViolationCode as Code;

#[test]
fn demo_has_its_five_documented_outcomes() {
    let run = demo::run(&PdrSigner::from_bytes(&DEV_VERIFIER_KEY).unwrap()).unwrap();
    let outcomes = &run.outcomes;
    assert_eq!(outcomes.len(), 5);

    let benign = &outcomes[0];
    assert!(
        benign.decision.approved(),
        "{:?}",
        benign.decision.violations
    );
    assert!(benign.pdr_digest.is_some());
    match &benign.execution {
        Some(ExecutionResult::Executed {
            balance_changes, ..
        }) => assert_eq!(balance_changes.len(), 2),
        other => panic!("benign swap: {other:?}"),
    }

    let injected = &outcomes[1];
    assert!(!injected.decision.approved());
    assert!(injected.decision.has(Code::MetadataPatternMatched));
    assert!(injected.decision.has(Code::RecipientNotAllowed));
    assert!(injected.execution.is_none() && injected.pdr_digest.is_none());

    let unlimited = &outcomes[2];
    assert!(unlimited.decision.has(Code::UnlimitedApproval));
    assert!(unlimited.execution.is_none());

    let slippage = &outcomes[3];
    assert!(slippage.decision.has(Code::SlippageExceeded));
    assert!(slippage.execution.is_none());

    let mutated = &outcomes[4];
    assert!(mutated.decision.approved());
    assert!(
        mutated
            .tampered_decision
            .as_ref()
            .unwrap()
            .has(Code::IntentHashMismatch)
    );
    match &mutated.execution {
        Some(ExecutionResult::Reverted { error, .. }) => {
            assert!(error.starts_with("PaceAccountInvalidSigner"), "{error}")
        }
        other => panic!("calldata mutation: {other:?}"),
    }
}
