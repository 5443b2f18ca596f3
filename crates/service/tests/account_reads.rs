//! A confirm reads the account's state once: the pre-flight, the lane reservation, the route,
//! pass 1 and pass 2 all take the `AccountState` its fresh simulation read. Its own binary, so
//! that no other test reads an account while the process-wide counter is watched.

#[allow(dead_code)]
#[path = "it/common.rs"]
mod common;

use common::Setup;
use pace_service::store::ProposalState;

#[test]
fn a_confirm_reads_the_account_state_once() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let before = pace_pipeline::account_state_reads();
    let proposed = s.service.propose(&alice, s.swap.clone(), false).unwrap();
    assert!(
        proposed.preview.approved,
        "{:?}",
        proposed.preview.violations
    );
    let proposing = pace_pipeline::account_state_reads() - before;
    assert_eq!(
        proposing, 1,
        "a proposal's simulation reads the account once"
    );

    let before = pace_pipeline::account_state_reads();
    let id = proposed.preview.proposal_id;
    let done = s.service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed);
    assert_eq!(
        pace_pipeline::account_state_reads() - before,
        1,
        "pre-flight, lanes, route, pass 1 and pass 2 share one read"
    );
}
