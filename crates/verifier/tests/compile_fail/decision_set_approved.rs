//! A rejecting decision cannot be turned into an approving one: `approved` is private.

use pace_types::Decision;

fn main() {
    let mut decision: Decision = serde_json::from_str("{}").unwrap();
    decision.approved = true;
    decision.violations.clear();
}
