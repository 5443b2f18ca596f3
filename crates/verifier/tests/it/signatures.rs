//! The account's own signature (ERC-1271), judged as the call that grants what it grants: an
//! EIP-2612 permit the account signs is the token's `permit`, so a policy that blocks or does
//! not allow `permit` refuses the signature, and its allowance meets the token's spend cap like
//! any approval's.

use crate::case::Case;
use alloy_primitives::{Address, U256};
use alloy_sol_types::eip712_domain;
use pace_abi::decode::typed_data::{Permit, SignedMessage, signing_call_data};
use pace_testkit::mainnet::*;
use pace_types::{Call, Selector, ViolationCode as Code};

const PERMIT: [u8; 4] = [0xd5, 0x05, 0xac, 0xcf];

/// The approve-only case with its approval signed by the account instead (as if the token's
/// permit were used in the same PDR: the report's approval stays), from `owner`.
fn signed_permit(amount: U256, owner: Address) -> Case {
    let mut case = Case::approve_only(amount);
    let domain = eip712_domain! {
        name: "USD Coin",
        version: "2",
        chain_id: CHAIN_ID,
        verifying_contract: USDC,
    };
    let message = SignedMessage::Erc2612(Permit {
        owner,
        spender: ROUTER,
        value: amount,
        nonce: U256::ZERO,
        deadline: U256::from(DEADLINE),
    });
    case.intent.calls[0] = Call {
        target: ACCOUNT,
        value: U256::ZERO,
        data: signing_call_data(&domain, &message),
    };
    case.rehash()
}

fn allowing_permit(case: Case) -> Case {
    case.with(|c| {
        c.policy
            .blocked_selectors
            .retain(|s| *s != Selector::from(PERMIT));
        c.policy.allowed_selectors.push(Selector::from(PERMIT));
    })
}

#[test]
fn a_policy_that_blocks_permit_refuses_a_signed_permit() {
    let codes = signed_permit(usdc(100), ACCOUNT).codes();
    assert!(codes.contains(&Code::SelectorBlocked), "{codes:?}");
    assert!(codes.contains(&Code::SelectorNotAllowed), "{codes:?}");
}

#[test]
fn a_signed_permit_is_judged_as_an_approval() {
    let within = allowing_permit(signed_permit(usdc(100), ACCOUNT));
    assert!(
        within.decide().approved(),
        "{:?}",
        within.decide().violations
    );
    let above = allowing_permit(signed_permit(usdc(20_000), ACCOUNT));
    assert!(
        above.codes().contains(&Code::ApprovalExceedsCap),
        "{:?}",
        above.codes()
    );
    // The same intent with the approval unclaimed: the signature's allowance must be claimed.
    let unclaimed = allowing_permit(signed_permit(usdc(100), ACCOUNT))
        .with(|c| c.intent.claimed.approvals.clear())
        .rehash();
    assert!(!unclaimed.decide().approved());
}

#[test]
fn a_signed_permit_of_another_owner_or_a_second_signature_is_refused() {
    let other = allowing_permit(signed_permit(usdc(100), ATTACKER));
    assert!(
        other.codes().contains(&Code::MalformedCalldata),
        "{:?}",
        other.codes()
    );
    let twice = allowing_permit(signed_permit(usdc(100), ACCOUNT))
        .with(|c| {
            let first = c.intent.calls[0].clone();
            c.intent.calls.push(first);
        })
        .rehash();
    assert!(
        twice.codes().contains(&Code::MalformedCalldata),
        "{:?}",
        twice.codes()
    );
    let with_value = allowing_permit(signed_permit(usdc(100), ACCOUNT))
        .with(|c| c.intent.calls[0].value = U256::from(1u64))
        .rehash();
    assert!(with_value.codes().contains(&Code::MalformedCalldata));
}
