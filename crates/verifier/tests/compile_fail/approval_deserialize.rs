//! An `ApprovedIntent` cannot be read from JSON: it has no `Deserialize`.

use pace_verifier::ApprovedIntent;

fn main() {
    let _: ApprovedIntent = serde_json::from_str("{}").unwrap();
}
