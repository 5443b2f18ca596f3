//! The examples decide as `examples/README.md` documents.

use crate::*;
use pace_types::{Decision, Intent, SimulationReport};

/// (example, simulation file, exit code, codes)
const EXAMPLES: &[(&str, Option<&str>, i32, &[&str])] = &[
    ("benign-swap", Some("benign-swap"), 0, &[]),
    ("batch-approve-swap", Some("batch-approve-swap"), 0, &[]),
    (
        "attack-prompt-injection",
        None,
        1,
        &[
            "SELECTOR_NOT_ALLOWED",
            "SPEND_CAP_EXCEEDED",
            "METADATA_PATTERN_MATCHED",
            "METADATA_PATTERN_MATCHED",
            "SIMULATION_MISSING",
            "OUTFLOW_CLAIM_MISMATCH",
            "RECIPIENT_NOT_ALLOWED",
        ],
    ),
    (
        "attack-unlimited-approval",
        Some("attack-unlimited-approval"),
        1,
        &["UNLIMITED_APPROVAL", "APPROVAL_CLAIM_MISMATCH"],
    ),
    (
        "attack-extreme-slippage",
        Some("attack-extreme-slippage"),
        1,
        &["SLIPPAGE_EXCEEDED"],
    ),
    (
        "attack-calldata-mutation",
        Some("benign-swap"),
        1,
        &["INTENT_HASH_MISMATCH", "SWAP_RECIPIENT_NOT_ACCOUNT"],
    ),
    (
        "attack-batch-hidden-transfer",
        Some("attack-batch-hidden-transfer"),
        1,
        &[
            "SELECTOR_NOT_ALLOWED",
            "LOSS_EXCEEDED",
            "OUTFLOW_CLAIM_MISMATCH",
            "RECIPIENT_NOT_ALLOWED",
        ],
    ),
    (
        "high-impact-swap",
        Some("high-impact-swap"),
        1,
        &["PRICE_IMPACT_EXCEEDED"],
    ),
];

#[test]
fn examples_exit_and_report_as_documented() {
    for &(name, sim, exit, codes) in EXAMPLES {
        let sim = sim.map(|s| example(&format!("{s}.simulation.json")));
        let out = verify(
            &example(&format!("{name}.intent.json")),
            sim.as_deref(),
            Some(NOW),
        );
        assert_eq!(out.status.code(), Some(exit), "{name}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{name}: {}", stderr(&out));
        let decision = Decision::from_json_str(&stdout(&out)).unwrap();
        let got: Vec<_> = decision.codes().map(|c| c.as_str()).collect();
        assert_eq!(got, codes, "{name}");
        assert_eq!(decision.approved(), exit == 0);
        assert_eq!(decision.simulation_hash.is_some(), sim.is_some());
    }
}

#[test]
fn output_is_pretty_and_deterministic() {
    let intent = example("benign-swap.intent.json");
    let sim = example("benign-swap.simulation.json");
    let a = verify(&intent, Some(&sim), Some(NOW));
    let b = verify(&intent, Some(&sim), Some(NOW));
    assert_eq!(a.stdout, b.stdout);
    let text = stdout(&a);
    assert!(
        text.starts_with("{\n  \"outcome\": \"approve\",\n"),
        "{text}"
    );
    assert!(text.ends_with("}\n"));
}

#[test]
fn now_defaults_to_the_system_clock() {
    // The example report is from 2025-11-30; today it is stale.
    let out = verify(
        &example("benign-swap.intent.json"),
        Some(&example("benign-swap.simulation.json")),
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let decision = Decision::from_json_str(&stdout(&out)).unwrap();
    assert_eq!(
        decision.codes().map(|c| c.as_str()).collect::<Vec<_>>(),
        ["SIMULATION_STALE"]
    );
}

#[test]
fn hash_prints_the_report_binding() {
    let out = pace([
        "hash".as_ref(),
        "--intent".as_ref(),
        example("benign-swap.intent.json").as_os_str(),
        "--simulation".as_ref(),
        example("benign-swap.simulation.json").as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hashes: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let intent = Intent::from_json_str(
        &std::fs::read_to_string(example("benign-swap.intent.json")).unwrap(),
    )
    .unwrap();
    let report = SimulationReport::from_json_str(
        &std::fs::read_to_string(example("benign-swap.simulation.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(hashes["intent_hash"], intent.intent_hash().to_string());
    assert_eq!(hashes["intent_hash"], report.intent_hash.to_string());
    assert_eq!(
        hashes["simulation_hash"],
        report.simulation_hash().to_string()
    );
    assert!(hashes.get("policy_hash").is_none());
}
