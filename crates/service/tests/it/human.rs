//! A human in the loop: the default token's scopes, approval thresholds accumulated over
//! 24 h, the `pending` listing, the approval page (a human's credential, anti-forgery token,
//! origin check), the kill switch and revocation without a restart.

use crate::common::{Setup, ether, grant, human, scratch_store};
use pace_service::{
    ServiceConfig,
    auth::{Grant, Scope},
    store::{ConfirmMode, ProposalState, SqliteStore},
};

const BASE: &str = "https://pace.example.test:8788";

/// The agent token `pace serve` generates: propose, confirm, read, a threshold of 0 wei.
fn agent(id: &str, threshold: &str) -> Grant {
    let mut g = grant(id, &[Scope::Propose, Scope::Confirm, Scope::Read]);
    g.approval_threshold_wei = Some(threshold.to_owned());
    g
}

fn setup(grants: Vec<Grant>) -> Setup {
    let s = Setup::new(grants, ServiceConfig::default());
    s.service.set_approval_base(BASE);
    s
}

/// The anti-forgery token of the approval page of `id`.
fn form_token(s: &Setup, id: &str) -> String {
    let (status, page) = s.service.approval_page(id);
    assert_eq!(status, 200, "{page}");
    let at = page.find("name=\"token\" value=\"").expect("a form") + 20;
    page[at..at + 66].to_owned()
}

fn form(token: &str, credential: &str, decision: &str) -> Vec<(String, String)> {
    [
        ("token", token),
        ("credential", credential),
        ("decision", decision),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

#[test]
fn the_default_token_never_executes_unattended_and_waits_for_the_human() {
    let s = setup(vec![agent("dev", "0"), human("boss")]);
    let dev = s.caller("dev");
    let err = s.service.propose(&dev, s.swap.clone(), true).unwrap_err();
    assert_eq!(err.code(), "FORBIDDEN_SCOPE", "{err}");
    let id = s
        .service
        .propose(&dev, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let err = s.service.confirm(&dev, &id, true).unwrap_err();
    assert_eq!(
        (err.code(), err.http_status()),
        ("APPROVAL_REQUIRED", 202),
        "{err}"
    );
    let body = err.to_json();
    assert_eq!(
        body["error"]["approval_url"],
        format!("{BASE}/approve/{id}")
    );
    assert_eq!(
        s.service.status(&dev, &id).unwrap().state,
        "awaiting_approval"
    );
    assert_eq!(s.next_sequence(0), 0, "nothing signed or sent");
    for who in ["dev", "boss"] {
        let pending = s.service.pending(&s.caller(who), 10).unwrap();
        assert_eq!(
            pending.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            [id.as_str()]
        );
    }
    // The agent confirming again changes nothing.
    assert_eq!(
        s.service.confirm(&dev, &id, true).unwrap_err().code(),
        "NOT_CONFIRMABLE"
    );

    let token = form_token(&s, &id);
    // The agent's own token is not a human's credential.
    let (st, page) = s
        .service
        .approval_post(&id, Some(BASE), &form(&token, "dev", "approve"));
    assert_eq!(st, 403, "{page}");
    // A form not served by the page, or posted from another site, is refused.
    let forged = "0x".to_owned() + &"00".repeat(32);
    let (st, _) = s
        .service
        .approval_post(&id, Some(BASE), &form(&forged, "boss", "approve"));
    assert_eq!(st, 403);
    let (st, _) = s.service.approval_post(
        &id,
        Some("https://evil.example"),
        &form(&token, "boss", "approve"),
    );
    assert_eq!(st, 403);
    assert_eq!(
        s.service.status(&dev, &id).unwrap().state,
        "awaiting_approval"
    );
    assert_eq!(s.next_sequence(0), 0);

    // The human approves: it executes, the confirmation recorded as the human's.
    let (st, page) = s
        .service
        .approval_post(&id, Some(BASE), &form(&token, "boss", "approve"));
    assert_eq!(st, 200, "{page}");
    assert!(page.contains("executed"), "{page}");
    assert_eq!(s.service.status(&dev, &id).unwrap().state, "executed");
    let c = s.service.state().store.confirmation(&id).unwrap().unwrap();
    assert_eq!((c.mode, c.actor.as_str()), (ConfirmMode::Human, "boss"));
    assert_eq!(s.next_sequence(0), 1);
    let kinds: Vec<String> = s
        .service
        .audit_log(&s.caller("dev"), 1, 100)
        .unwrap()
        .into_iter()
        .map(|r| r.entry.kind.to_string())
        .collect();
    for kind in ["await_approval", "approve", "sign", "outcome"] {
        assert!(kinds.contains(&kind.to_owned()), "{kinds:?}");
    }
    assert!(s.service.pending(&s.caller("boss"), 10).unwrap().is_empty());
}

#[test]
fn the_threshold_accumulates_over_a_day_so_splitting_does_not_dodge_it() {
    // 1.5 ETH per 24 h; each swap moves 1 WETH, worth 1 ETH at the policy's price.
    let s = setup(vec![
        agent(
            "bot",
            &(ether(3) / alloy_primitives::U256::from(2u8)).to_string(),
        ),
        human("boss"),
    ]);
    let bot = s.caller("bot");
    let swap = |memo: &str| {
        let mut i = s.swap.clone();
        i.metadata.insert("memo".into(), memo.into());
        s.service.propose(&bot, i, false).unwrap().preview
    };
    let first = swap("one");
    assert_eq!(
        first.outflow_value_wei.as_deref(),
        Some(ether(1).to_string().as_str())
    );
    let done = s.service.confirm(&bot, &first.proposal_id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed);
    let second = swap("two");
    let err = s
        .service
        .confirm(&bot, &second.proposal_id, true)
        .unwrap_err();
    assert_eq!(err.code(), "APPROVAL_REQUIRED", "{err}");
    assert!(
        err.to_string().contains("after 1000000000000000000 wei"),
        "{err}"
    );
    // Declined: final, and the agent learns it.
    let token = form_token(&s, &second.proposal_id);
    let (st, page) =
        s.service
            .approval_post(&second.proposal_id, None, &form(&token, "boss", "decline"));
    assert_eq!(st, 200, "{page}");
    assert_eq!(
        s.service
            .waited(&bot, &second.proposal_id)
            .unwrap_err()
            .code(),
        "DECLINED"
    );
    assert_eq!(
        s.service.status(&bot, &second.proposal_id).unwrap().state,
        "rejected"
    );
    // A day later the allowance is back.
    s.service.advance_clock(86_401);
    let third = swap("three");
    let done = s.service.confirm(&bot, &third.proposal_id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed);
    assert_eq!(s.next_sequence(0) + s.next_sequence(1), 2);
}

#[test]
fn the_kill_switch_refuses_every_confirm_is_audited_and_holds_across_restarts() {
    let path = scratch_store("halt");
    let open = || Box::new(SqliteStore::open(&path).unwrap());
    let mut ops = grant("ops", &[Scope::Halt, Scope::Read]);
    ops.caller_type = pace_service::audit::CallerType::Human;
    let grants = || vec![grant("alice", crate::common::ALL), ops.clone()];
    let id = {
        let s = Setup::with_store(grants(), ServiceConfig::default(), open());
        let alice = s.caller("alice");
        let id = s
            .service
            .propose(&alice, s.swap.clone(), false)
            .unwrap()
            .preview
            .proposal_id;
        assert_eq!(
            s.service.halt(&alice, true, true, "no").unwrap_err().code(),
            "FORBIDDEN_SCOPE"
        );
        let h = s
            .service
            .halt(&s.caller("ops"), true, false, "key leak drill")
            .unwrap();
        assert!(h.halted && !h.fee_bumps);
        let err = s.service.confirm(&alice, &id, true).unwrap_err();
        assert_eq!((err.code(), err.http_status()), ("HALTED", 503), "{err}");
        assert!(err.to_string().contains("key leak drill"), "{err}");
        id
    };
    // A restart keeps it on (the world restarts from genesis; the store remembers).
    let s = Setup::with_store(grants(), ServiceConfig::default(), open());
    let alice = s.caller("alice");
    assert!(s.service.halt_status().unwrap().halted);
    let fresh = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    assert_eq!(
        s.service.confirm(&alice, &fresh, true).unwrap_err().code(),
        "HALTED"
    );
    assert_eq!(s.next_sequence(0), 0);
    let log = s.service.audit_log(&s.caller("ops"), 1, 1_000).unwrap();
    assert!(
        log.iter()
            .any(|r| r.entry.kind == "halt" && r.entry.codes == ["HALTED"])
    );
    s.service
        .halt(&s.caller("ops"), false, true, "drill over")
        .unwrap();
    assert_eq!(
        s.service.confirm(&alice, &fresh, true).unwrap().state,
        ProposalState::Executed
    );
    let _ = id;
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_token_removed_from_the_grants_is_refused_at_once() {
    let s = setup(vec![agent("bot", "0"), human("boss")]);
    assert!(s.service.authenticate(Some("bot")).is_ok());
    s.service.tokens().replace(vec![human("boss")]).unwrap();
    assert_eq!(
        s.service.authenticate(Some("bot")).unwrap_err().code(),
        "UNAUTHORIZED"
    );
    assert!(s.service.authenticate(Some("boss")).is_ok());
}
