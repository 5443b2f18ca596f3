//! Every document the pipeline hands out loads back: a simulation report and a decision through
//! the strict loaders the CLI reads files with (`pace verify --simulation`, `pace hash`), a
//! signed PDR through its own serde form (what the service stores and `pace run` prints), each
//! into the same value with the same canonical hash.
//!
//! Checked on every document the pipeline makes in a debug build, so every test of every caller
//! runs it on real documents (the benchmark's trials, the red-pill suite and the protocols on
//! anvil through `pace run`, the service, the CLI); release builds skip it. A type that gains a
//! field its loader cannot read back fails the first test that makes one.

use pace_signer::SignedPdr;
use pace_types::{Decision, SimulationReport};

/// Panics unless `report` loads back as itself (debug builds only).
pub(crate) fn report_loads_back(report: &SimulationReport) {
    if cfg!(debug_assertions) {
        let json = serde_json::to_string_pretty(report).expect("a report serialises");
        let back = SimulationReport::from_json_str(&json)
            .unwrap_or_else(|e| panic!("a simulation report does not load back: {e}\n{json}"));
        assert_eq!(&back, report, "a simulation report loads back changed");
        assert_eq!(back.simulation_hash(), report.simulation_hash());
    }
}

/// Panics unless `decision` loads back as itself (debug builds only).
pub(crate) fn decision_loads_back(decision: &Decision) {
    if cfg!(debug_assertions) {
        let json = serde_json::to_string_pretty(decision).expect("a decision serialises");
        let back = Decision::from_json_str(&json)
            .unwrap_or_else(|e| panic!("a decision does not load back: {e}\n{json}"));
        assert_eq!(&back, decision, "a decision loads back changed");
        assert_eq!(back.decision_hash(), decision.decision_hash());
    }
}

/// Panics unless `signed` loads back as itself, still signed by the same key (debug builds
/// only).
pub(crate) fn pdr_loads_back(signed: &SignedPdr, verifier: alloy_primitives::Address) {
    if cfg!(debug_assertions) {
        let json = serde_json::to_string_pretty(signed).expect("a PDR serialises");
        let back: SignedPdr = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("a signed PDR does not load back: {e}\n{json}"));
        assert_eq!(&back, signed, "a signed PDR loads back changed");
        assert!(
            back.is_signed_by(verifier),
            "a signed PDR loads back unsigned"
        );
    }
}
