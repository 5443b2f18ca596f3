//! A `Verdict::Approved` needs an `ApprovedIntent`; a `Decision` is not one.

use pace_types::Decision;
use pace_verifier::Verdict;

fn main() {
    let decision: Decision = serde_json::from_str("{}").unwrap();
    let _ = Verdict::Approved(decision);
}
