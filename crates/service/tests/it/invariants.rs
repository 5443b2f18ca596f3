//! One test per invariant of execution fidelity. Each names the gate it depends on: removing
//! that line makes the test fail.

use crate::common::{ALL, Setup, ether, grant};
use alloy_primitives::U256;
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_service::{
    Error, ProposeOptions, ServiceConfig,
    api::Operation,
    auth::Scope,
    store::{ConfirmMode, ProposalState},
};

/// I1. Gate: `if !confirm { … return Err(NotConfirmed) }` in `Service::confirm`
/// (src/confirm.rs). Nothing is signed or sent on `confirm = false`; `true` executes, and an
/// unattended execution records its confirmation as such.
#[test]
fn i1_nothing_is_signed_without_a_recorded_confirmation() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let proposed = s.service.propose(&alice, s.swap.clone(), false).unwrap();
    let id = proposed.preview.proposal_id.clone();
    assert!(
        proposed.preview.approved,
        "{:?}",
        proposed.preview.violations
    );

    let err = s.service.confirm(&alice, &id, false).unwrap_err();
    assert_eq!(err.code(), "NOT_CONFIRMED");
    let status = s.service.status(&alice, &id).unwrap();
    assert_eq!(status.state, "proposed");
    assert_eq!(status.pdr_digest, None);
    assert_eq!(s.next_sequence(0), 0, "no PDR executed");
    assert!(s.service.state().store.confirmation(&id).unwrap().is_none());

    let done = s.service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed);
    let c = s.service.state().store.confirmation(&id).unwrap().unwrap();
    assert_eq!(
        (c.mode, c.preview_hash),
        (ConfirmMode::Attended, proposed.preview_hash)
    );
    assert_eq!(s.next_sequence(done.lane), done.sequence + 1);

    // Unattended: admitted by scope, recorded as unattended (the same intent again: the
    // caller says it means it).
    let again = ProposeOptions {
        execute: true,
        allow_repeat: true,
        claim: None,
    };
    let auto = s
        .service
        .propose_with(&alice, s.swap.clone(), again)
        .unwrap();
    let auto_id = auto.preview.proposal_id;
    assert_eq!(auto.confirmed.unwrap().state, ProposalState::Executed);
    let c = s
        .service
        .state()
        .store
        .confirmation(&auto_id)
        .unwrap()
        .unwrap();
    assert_eq!(c.mode, ConfirmMode::Unattended);
}

/// I2. Gate: the balance loop at the top of `sign_and_submit` (src/confirm.rs). The WETH the
/// preview spends is moved out after the preview: confirm names the token, the balance and
/// the shortfall, read from the latest state (without the gate, the fresh simulation reverts
/// and the refusal is a generic rejection).
#[test]
fn i2_confirm_reads_the_latest_balance_and_names_the_shortfall() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let id = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let (a, held) = (s.addrs, s.balance(s.addrs.weth, s.addrs.account));
    let keep = ether(1) / U256::from(4u64);
    s.send(
        a.account,
        a.weth,
        U256::ZERO,
        &IERC20::transferCall {
            to: a.owner,
            value: held - keep,
        },
    );

    let err = s.service.confirm(&alice, &id, true).unwrap_err();
    match &err {
        Error::InsufficientBalance {
            token,
            balance,
            needed,
            shortfall,
        } => {
            assert_eq!((*token, *balance, *needed), (a.weth, keep, ether(1)));
            assert_eq!(*shortfall, ether(1) - keep);
        }
        other => panic!("expected INSUFFICIENT_BALANCE, got {other:?}"),
    }
    assert!(err.to_string().contains(&format!("{}", a.weth)), "{err}");
    assert_eq!(s.service.status(&alice, &id).unwrap().state, "proposed");
    assert_eq!(s.next_sequence(0), 0);
}

/// The PDR's window lasts `validity_secs` from the block it lands in, not from the latest
/// block the decision read: signed valid for 0 s, it is still valid in the world's next block
/// (12 s on), where it lands and executes, inside its window. (That a refused or reverted
/// submission is never reported executed, I4, is shown from real receipts in `node.rs`: a
/// paused account, and a replacement mined after the window.)
#[test]
fn the_window_counts_from_the_block_the_pdr_lands_in() {
    let mut config = ServiceConfig::default();
    config.pipeline.validity_secs = 0;
    let s = Setup::new(vec![grant("alice", ALL)], config);
    let alice = s.caller("alice");
    let id = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let decided_at = s.service.state().chain.latest().unwrap().timestamp();
    let done = s.service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed, "{done:?}");
    let landed_at = s.service.state().chain.latest().unwrap().timestamp();
    let p = s.service.store().proposal(&id).unwrap().unwrap();
    let terms = p.pdr.unwrap().pdr.terms();
    assert_eq!(
        (terms.valid_after, terms.valid_until),
        (decided_at, landed_at)
    );
    assert_eq!(s.next_sequence(0), 1);
}

/// Pre-flight. Gate: `Service::preflight` (src/preflight.rs), before anything is signed. The
/// owner pauses the account after the preview: confirm refuses with `ACCOUNT_PAUSED`, signs
/// nothing and sends nothing; once unpaused and the verifier rotated to a key the service
/// does not hold, `VERIFIER_NOT_TRUSTED`; rotated back, it executes.
#[test]
fn preflight_refuses_a_paused_or_distrusting_account_before_signing() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let propose = |note: &str| {
        let mut intent = s.swap.clone();
        intent.metadata.insert("note".into(), note.into());
        s.service
            .propose(&alice, intent, false)
            .unwrap()
            .preview
            .proposal_id
    };
    let (owner, account) = (s.addrs.owner, s.addrs.account);
    let id = propose("paused");
    s.send(
        owner,
        account,
        U256::ZERO,
        &PaceAccount::setPausedCall { paused_: true },
    );
    let err = s.service.confirm(&alice, &id, true).unwrap_err();
    assert_eq!(err.code(), "ACCOUNT_PAUSED", "{err}");
    let status = s.service.status(&alice, &id).unwrap();
    assert_eq!(
        (status.state.as_str(), status.pdr_digest),
        ("proposed", None)
    );
    s.send(
        owner,
        account,
        U256::ZERO,
        &PaceAccount::setPausedCall { paused_: false },
    );
    let stranger = alloy_primitives::Address::repeat_byte(0x77);
    s.send(
        owner,
        account,
        U256::ZERO,
        &PaceAccount::setVerifierCall {
            verifier_: stranger,
        },
    );
    let err = s.service.confirm(&alice, &id, true).unwrap_err();
    assert_eq!(err.code(), "VERIFIER_NOT_TRUSTED", "{err}");
    assert!(err.to_string().contains(&stranger.to_string()), "{err}");
    assert_eq!(s.next_sequence(0), 0, "nothing executed");
    let ours = s.service.verifier();
    s.send(
        owner,
        account,
        U256::ZERO,
        &PaceAccount::setVerifierCall { verifier_: ours },
    );
    let done = s.service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed);
}

/// I5. Gates: `self.authorize(.., Scope::Confirm)` in `Service::confirm` and `caller.admits` in
/// `Service::propose` (src/service.rs). A propose-only token cannot confirm; a token limited
/// to DAI cannot move WETH; a cap below 1 WETH refuses the swap. The audit log names the actor.
#[test]
fn i5_scopes_bound_what_each_token_may_do() {
    let mut dai_only = grant("dai-bot", &[Scope::Propose, Scope::Confirm]);
    let mut capped = grant("capped", ALL);
    let probe = Setup::default();
    dai_only.tokens = Some([probe.addrs.dai].into());
    capped
        .max_outflow
        .insert(probe.addrs.weth, (ether(1) / U256::from(2u64)).to_string());
    let s = Setup::new(
        vec![
            grant("alice", ALL),
            grant("viewer", &[Scope::Propose]),
            grant("auditor", &[Scope::Read, Scope::ReadAll]),
            dai_only,
            capped,
        ],
        ServiceConfig::default(),
    );
    let viewer = s.caller("viewer");
    let id = s
        .service
        .propose(&viewer, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let err = s.service.confirm(&viewer, &id, true).unwrap_err();
    assert_eq!(err.code(), "FORBIDDEN_SCOPE");
    let err = s
        .service
        .propose(&viewer, s.swap.clone(), true)
        .unwrap_err();
    assert_eq!(err.code(), "FORBIDDEN_SCOPE");
    for who in ["dai-bot", "capped"] {
        let err = s
            .service
            .propose(&s.caller(who), s.swap.clone(), false)
            .unwrap_err();
        assert_eq!(err.code(), "FORBIDDEN_SCOPE", "{who}: {err}");
    }
    assert_eq!(s.next_sequence(0), 0);

    // Every caller's entries, for a reader of all; alice sees none of them.
    assert!(
        s.service
            .audit_log(&s.caller("alice"), 1, 100)
            .unwrap()
            .is_empty()
    );
    let log = s.service.audit_log(&s.caller("auditor"), 1, 100).unwrap();
    let actors: Vec<_> = log
        .iter()
        .map(|r| (r.entry.actor.as_str(), r.entry.kind.as_str()))
        .collect();
    assert!(actors.contains(&("viewer", "propose")), "{actors:?}");
    assert!(actors.contains(&("viewer", "refuse")), "{actors:?}");
    assert!(actors.contains(&("capped", "refuse")), "{actors:?}");
}

/// I6. Gate: the `pending` lookup in `check_confirmable` (src/confirm.rs). While an equal
/// intent of the same caller is uncertain (as a crash after broadcast leaves it), a new one
/// is refused; once reconciled it goes through.
#[test]
fn i6_an_equal_intent_waits_for_the_uncertain_one() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let first = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let mut p = s.service.state().store.proposal(&first).unwrap().unwrap();
    p.state = ProposalState::Uncertain;
    s.service.state().store.put_proposal(&p).unwrap();

    let second = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let err = s.service.confirm(&alice, &second, true).unwrap_err();
    assert_eq!(err.code(), "RETRY_BLOCKED");
    assert!(err.to_string().contains(&first), "{err}");
    assert_eq!(s.next_sequence(0), 0);

    p.state = ProposalState::Expired;
    s.service.state().store.put_proposal(&p).unwrap();
    assert_eq!(
        s.service.confirm(&alice, &second, true).unwrap().state,
        ProposalState::Executed
    );
}

/// I7. Gate: `idempotency_begin` and the `IdemBegin::Replay` arm of `Service::keyed`
/// (src/api.rs). The same request from the same caller, its JSON keys in another order and
/// without a key, within the window, replays the recorded response and creates no second
/// proposal; another caller, or the window's end, is a new request.
#[test]
fn i7_duplicate_deliveries_replay_the_recorded_response() {
    let s = Setup::new(
        vec![grant("alice", ALL), grant("bob", ALL)],
        ServiceConfig::default(),
    );
    let intent = serde_json::to_value(&s.swap).unwrap();
    let body = serde_json::json!({ "intent": intent, "execute": false }).to_string();
    let reordered = format!(r#"{{"execute": false, "intent": {intent}}}"#);
    let run = |who: &str, body: &str| {
        s.service
            .answer(&s.caller(who), Operation::Propose, body.as_bytes(), None)
    };
    let count = || s.service.state().store.proposals(None, 100).unwrap().len();
    let first = run("alice", &body);
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(!first.replayed);
    let again = run("alice", &reordered);
    assert!(again.replayed);
    assert_eq!(again.body, first.body);
    assert_eq!(count(), 1);
    assert_eq!(s.service.metrics().get("idempotent_replays", "recorded"), 1);
    assert_ne!(run("bob", &body).body, first.body);
    assert_eq!(count(), 2);
    s.service.advance_clock(31);
    assert_ne!(run("alice", &body).body, first.body);
    assert_eq!(count(), 3);
}

/// Confirm re-simulates on fresh state: a price move past the preview's tolerance fails with
/// `PREVIEW_CHANGED` and signs nothing.
#[test]
fn confirm_fails_when_the_result_moved_past_the_preview() {
    let config = ServiceConfig {
        preview_tolerance_bps: 10,
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
    // Selling 20 WETH into the 10,000 WETH pool lowers the DAI out by ~0.4 %: inside the
    // swap's 0.5 % minimum, outside the 0.1 % preview tolerance.
    s.move_price(ether(20));
    let err = s.service.confirm(&alice, &id, true).unwrap_err();
    assert_eq!(err.code(), "PREVIEW_CHANGED", "{err}");
    assert_eq!(s.next_sequence(0), 0);
}

/// A move inside the preview's tolerance is confirmed, and the signed bounds hold the outcome
/// to what was confirmed: the DAI floor comes from the preview (the larger), not from the
/// fresh simulation widened by the policy's tolerance.
#[test]
fn the_signed_bounds_come_from_the_confirmed_preview() {
    let s = Setup::new(vec![grant("alice", ALL)], ServiceConfig::default());
    let alice = s.caller("alice");
    let proposed = s.service.propose(&alice, s.swap.clone(), false).unwrap();
    let id = proposed.preview.proposal_id.clone();
    let previewed = proposed.preview.delta_of(s.addrs.dai);
    // ~0.4 % fewer DAI out: inside the 0.5 % preview tolerance.
    s.move_price(ether(20));
    let confirmed = s.service.confirm(&alice, &id, true).unwrap();
    assert_eq!(confirmed.state, ProposalState::Executed, "{confirmed:?}");

    let stored = s.service.state().store.proposal(&id).unwrap().unwrap();
    let pdr = stored.pdr.unwrap();
    let dai = pdr
        .pdr
        .bounds
        .iter()
        .find(|b| b.token == s.addrs.dai)
        .unwrap();
    let tolerance = ServiceConfig::default().preview_tolerance_bps;
    let from_preview =
        previewed.unsigned_abs() * U256::from(10_000 - tolerance) / U256::from(10_000u64);
    assert_eq!(dai.minIn, from_preview);
    // The fresh simulation alone would have allowed less: the DAI received (what it
    // simulated, on unchanged state) widened by the policy's tolerance is below that floor.
    let policy_tolerance = pace_world::default_policy(&s.addrs).outcome_tolerance_bps;
    let received = confirmed_dai(&confirmed, s.addrs.dai);
    let from_fresh = received * U256::from(10_000 - policy_tolerance) / U256::from(10_000u64);
    assert!(from_fresh < from_preview, "{from_fresh} vs {from_preview}");
}

/// The DAI the account received in `confirmed`'s execution.
fn confirmed_dai(confirmed: &pace_service::Confirmed, dai: alloy_primitives::Address) -> U256 {
    let Some(pace_pipeline::ExecutionResult::Executed {
        balance_changes, ..
    }) = &confirmed.outcome
    else {
        panic!("not executed: {confirmed:?}");
    };
    balance_changes
        .iter()
        .find(|c| c.token == dai)
        .map(|c| c.delta.unsigned_abs())
        .unwrap()
}

/// Every decision is in the audit log, whose chain verifies.
#[test]
fn decisions_are_audited_and_the_chain_verifies() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let world = s.service.state().chain.world().unwrap().clone();
    let injected = pace_world::scenarios(&world)[1].intent.clone();
    let rejected = s.service.propose(&alice, injected, false).unwrap();
    assert!(!rejected.preview.approved);
    let err = s
        .service
        .confirm(&alice, &rejected.preview.proposal_id, true)
        .unwrap_err();
    assert_eq!(err.code(), "NOT_CONFIRMABLE");
    s.service.propose(&alice, s.swap.clone(), true).unwrap();
    let log = s.service.audit_log(&alice, 1, 100).unwrap();
    let kinds: Vec<_> = log.iter().map(|r| r.entry.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["propose", "refuse", "propose", "confirm", "sign", "outcome"]
    );
    assert!(!log[0].entry.codes.is_empty());
    assert_eq!(s.service.state().store.verify_audit().unwrap(), Ok(6));
    assert_eq!(s.service.metrics().get("decisions", ""), 2);
}

/// A preview can be confirmed only within its time to live.
#[test]
fn an_expired_preview_cannot_be_confirmed() {
    let s = Setup::default();
    let alice = s.caller("alice");
    let id = s
        .service
        .propose(&alice, s.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    s.service.advance_clock(301);
    assert_eq!(s.service.status(&alice, &id).unwrap().state, "expired");
    let err = s.service.confirm(&alice, &id, true).unwrap_err();
    assert_eq!(err.code(), "EXPIRED");
    assert_eq!(s.next_sequence(0), 0);
}
