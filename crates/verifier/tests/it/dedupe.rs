//! Findings reported once per offender, and never for what is not one: a revocation to a
//! stranger is no approval, an earlier approval to someone else or a revocation first does not
//! hide a stranger's approval, a payee is paid freely while a stranger paid twice is named once,
//! and a claimed contract the execution never touched is named
//! (mutation testing found these untested).

use crate::case::Case;
use alloy_primitives::{Address, I256, U256, address};
use pace_testkit::mainnet::*;
use pace_types::{Approval, Selector, TokenFlow, ViolationCode as Code};
use pace_verifier::decode::selectors;

/// The benign swap preceded by USDC approvals of `(spender, amount)`, claimed as made.
fn with_approvals(approvals: &[(Address, U256)]) -> Case {
    Case::benign()
        .with(|c| {
            for (i, &(spender, amount)) in approvals.iter().enumerate() {
                c.intent
                    .calls
                    .insert(i, call(USDC, approve_data(spender, amount)));
                c.intent.claimed.approvals.push(Approval {
                    token: USDC,
                    spender,
                    amount,
                });
            }
            c.policy
                .allowed_selectors
                .push(Selector::from(selectors::APPROVE));
        })
        .rehash()
}

fn count(c: &Case, code: Code) -> usize {
    c.decide()
        .violations
        .iter()
        .filter(|v| v.code == code)
        .count()
}

#[test]
fn a_revocation_to_a_stranger_is_no_approval() {
    let c = with_approvals(&[(ATTACKER, U256::ZERO)]);
    assert_eq!(count(&c, Code::SpenderNotAllowed), 0, "{:?}", c.codes());
}

#[test]
fn an_earlier_approval_to_someone_else_does_not_hide_a_strangers() {
    let c = with_approvals(&[(ROUTER, usdc(10)), (ATTACKER, usdc(10))]);
    assert_eq!(count(&c, Code::SpenderNotAllowed), 1, "{:?}", c.codes());
}

#[test]
fn a_revocation_first_does_not_hide_the_approval_after_it() {
    let c = with_approvals(&[(ATTACKER, U256::ZERO), (ATTACKER, usdc(10))]);
    assert_eq!(count(&c, Code::SpenderNotAllowed), 1, "{:?}", c.codes());
    // A revocation of one token does not hide the stranger's approval of another.
    let c = Case::benign()
        .with(|c| {
            let approvals = [(USDC, U256::ZERO), (WETH, U256::from(10u8))];
            for (i, (token, amount)) in approvals.into_iter().enumerate() {
                c.intent
                    .calls
                    .insert(i, call(token, approve_data(ATTACKER, amount)));
                c.intent.claimed.approvals.push(Approval {
                    token,
                    spender: ATTACKER,
                    amount,
                });
            }
            c.policy
                .allowed_selectors
                .push(Selector::from(selectors::APPROVE));
        })
        .rehash();
    assert_eq!(count(&c, Code::SpenderNotAllowed), 1, "{:?}", c.codes());
    // Twice to the same stranger: one finding.
    let c = with_approvals(&[(ATTACKER, usdc(10)), (ATTACKER, usdc(10))]);
    assert_eq!(count(&c, Code::SpenderNotAllowed), 1, "{:?}", c.codes());
}

#[test]
fn a_claimed_contract_the_execution_never_touched_is_named_once() {
    for claimed in [vec![ATTACKER], vec![ATTACKER, ATTACKER]] {
        let c = Case::benign()
            .with(|c| {
                c.intent.claimed.touched.extend(claimed.iter().copied());
            })
            .rehash();
        let messages: Vec<_> = c
            .decide()
            .violations
            .into_iter()
            .filter(|v| v.code == Code::TouchedClaimMismatch)
            .map(|v| v.message)
            .collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("was not touched"), "{messages:?}");
    }
}

/// A payee of the tests' policy.
const PAYEE: Address = address!("00000000000000000000000000000000000000bb");

/// The benign swap followed by direct USDC transfers of 10 to each of `to`, claimed and
/// traced, under a policy whose only payee is [`PAYEE`].
fn with_transfers(to: &[Address]) -> Case {
    Case::benign()
        .with(|c| {
            for &to in to {
                let amount = usdc(10);
                c.intent.calls.push(call(USDC, transfer_data(to, amount)));
                c.intent.claimed.outflows[0].amount += amount;
                c.report_mut().token_flows.push(TokenFlow {
                    token: USDC,
                    from: ACCOUNT,
                    to,
                    amount,
                });
                c.report_mut().balance_changes[0].delta -= I256::from_raw(amount);
            }
            c.policy
                .allowed_selectors
                .push(Selector::from(selectors::TRANSFER));
            c.policy.allowed_recipients.push(PAYEE);
        })
        .rehash()
}

#[test]
fn a_payee_is_paid_freely_and_a_stranger_is_named_once() {
    let c = with_transfers(&[PAYEE, PAYEE]);
    assert_eq!(count(&c, Code::RecipientNotAllowed), 0, "{:?}", c.codes());
    let c = with_transfers(&[PAYEE, ATTACKER, ATTACKER]);
    assert_eq!(count(&c, Code::RecipientNotAllowed), 1, "{:?}", c.codes());
}

#[test]
fn a_touched_contract_is_no_counterparty_for_it() {
    // The pair pays 1 USDC to a contract the execution touched but the policy does not allow,
    // which pays 1 wei of WETH on to the account (so it keeps nothing for nothing: only the
    // receiver check can name it).
    let hidden = address!("00000000000000000000000000000000000000cd");
    let c = Case::benign()
        .with(|c| {
            let r = c.report_mut();
            r.touched_contracts.push(hidden);
            r.token_flows.push(TokenFlow {
                token: USDC,
                from: PAIR,
                to: hidden,
                amount: usdc(1),
            });
            r.token_flows.push(TokenFlow {
                token: WETH,
                from: hidden,
                to: ACCOUNT,
                amount: U256::from(1u8),
            });
        })
        .rehash();
    assert_eq!(count(&c, Code::RecipientNotAllowed), 1, "{:?}", c.codes());
}
