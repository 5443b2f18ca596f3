//! `SimulationReport::from_json_slice` on arbitrary bytes: never panics; the text and byte
//! loaders agree; a loaded report re-serialises, re-loads to the same value and keeps its hash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pace_types::SimulationReport;

fuzz_target!(|data: &[u8]| {
    let loaded = SimulationReport::from_json_slice(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let from_text = SimulationReport::from_json_str(text);
        assert_eq!(
            loaded.as_ref().ok(),
            from_text.as_ref().ok(),
            "text and byte loaders disagree"
        );
    }
    let Ok(report) = loaded else { return };
    let hash = report.simulation_hash();
    let json = serde_json::to_vec(&report).expect("a loaded report serialises");
    let again = SimulationReport::from_json_slice(&json).unwrap_or_else(|e| {
        panic!(
            "a re-serialised report does not load: {e}\n{}",
            String::from_utf8_lossy(&json)
        )
    });
    assert_eq!(report, again, "round trip changed the report");
    assert_eq!(hash, again.simulation_hash(), "round trip changed the hash");
});
