//! An `ApprovedIntent` cannot be assembled from an approving decision: its fields are private.

use pace_types::{Decision, Hashed, Intent};
use pace_verifier::ApprovedIntent;

fn forge(intent: Intent) -> ApprovedIntent {
    let intent = Hashed::new(intent);
    let decision = Decision::new(intent.hash(), Default::default(), None, vec![]);
    ApprovedIntent {
        intent,
        decision,
        now: 0,
    }
}

fn main() {
    let _ = forge;
}
