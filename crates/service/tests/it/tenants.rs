//! Tenants: one service, several accounts. A caller acts only for its tenants, sees only its
//! own proposals (its tenants' with `read_all`), confirms only its tenant's, and each tenant's
//! relayer spending has a budget.

use crate::common::{ALL, Setup, grant, scratch_store};
use alloy_primitives::{Address, U256};
use pace_service::{ServiceConfig, auth::Scope, store::SqliteStore, tenant::Tenant};
use pace_types::CompiledPolicy;

/// The world's account (tenant `default`) and tenant `beta` acting for another account.
fn two_tenants() -> (Setup, Address) {
    let beta_account = Address::repeat_byte(0xbe);
    let mut bea = grant("bea", ALL);
    bea.tenants = Some(["beta".to_owned()].into());
    let mut both = grant("auditor", &[Scope::Read, Scope::ReadAll]);
    both.tenants = Some(["default".to_owned()].into());
    let grants = vec![
        grant("alice", ALL),
        grant("ann", &[Scope::Propose, Scope::Confirm, Scope::Read]),
        bea,
        both,
    ];
    let store = Box::new(SqliteStore::open(&scratch_store("tenants")).unwrap());
    let s = Setup::with_tenants(grants, ServiceConfig::default(), store, |a| {
        let mut policy = pace_world::default_policy(a);
        policy.account = Some(beta_account);
        vec![Tenant {
            id: "beta".into(),
            account: Some(beta_account),
            policy: CompiledPolicy::try_from(policy).unwrap(),
            lanes: vec![0],
            relayer_budget_wei: None,
        }]
    });
    (s, beta_account)
}

#[test]
fn callers_see_and_confirm_only_what_their_tenant_and_scope_allow() {
    let (s, beta_account) = two_tenants();
    let (alice, ann, bea, auditor) = (
        s.caller("alice"),
        s.caller("ann"),
        s.caller("bea"),
        s.caller("auditor"),
    );
    // A token acts only for its tenants' accounts.
    let err = s.service.propose(&bea, s.swap.clone(), false).unwrap_err();
    assert_eq!(err.code(), "FORBIDDEN_SCOPE");
    assert!(err.to_string().contains("may not act for account"), "{err}");

    let id = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    // Another tenant, and another caller of the same tenant without read_all, do not see it
    // and cannot confirm it.
    for who in [&bea, &ann] {
        assert_eq!(s.service.status(who, &id).unwrap_err().code(), "NOT_FOUND");
        assert_eq!(
            s.service.confirm(who, &id, true).unwrap_err().code(),
            "NOT_FOUND"
        );
        assert!(
            s.service
                .history(who, 50)
                .unwrap()
                .iter()
                .all(|h| h.proposal_id != id)
        );
        let about = s.service.audit_log(who, 1, 1_000).unwrap();
        assert!(
            about
                .iter()
                .all(|r| r.entry.proposal_id.as_deref() != Some(id.as_str()))
        );
    }
    assert_eq!(s.next_sequence(0), 0);
    // A reader of all of its tenant's sees it.
    assert_eq!(s.service.status(&auditor, &id).unwrap().tenant, "default");
    assert!(
        s.service
            .history(&auditor, 50)
            .unwrap()
            .iter()
            .any(|h| h.proposal_id == id)
    );

    // Tenant beta's own proposal stays beta's.
    let mut theirs = s.swap.clone();
    theirs.account = beta_account;
    let beta_id = s
        .service
        .propose(&bea, theirs, false)
        .unwrap()
        .preview
        .proposal_id;
    assert_eq!(s.service.status(&bea, &beta_id).unwrap().tenant, "beta");
    for who in [&alice, &auditor] {
        assert_eq!(
            s.service.status(who, &beta_id).unwrap_err().code(),
            "NOT_FOUND"
        );
        assert!(
            s.service
                .history(who, 50)
                .unwrap()
                .iter()
                .all(|h| h.proposal_id != beta_id)
        );
    }
    // Alice's own confirmation goes through.
    let done = s.service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, pace_service::store::ProposalState::Executed);
}

#[test]
fn a_tenant_relayer_budget_refuses_before_signing() {
    let config = ServiceConfig {
        relayer_budget_wei: Some(U256::from(1u8)),
        ..ServiceConfig::default()
    };
    let s = Setup::new(vec![grant("alice", ALL)], config);
    let alice = s.caller("alice");
    let id = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let err = s.service.confirm(&alice, &id, true).unwrap_err();
    assert_eq!(
        (err.code(), err.http_status()),
        ("GAS_BUDGET_EXCEEDED", 429),
        "{err}"
    );
    assert_eq!(s.service.status(&alice, &id).unwrap().state, "proposed");
    assert_eq!(s.next_sequence(0), 0);
}
