//! The verifier on the rights and lending-health facts: each code fails, its honest
//! counterpart passes, and its check's switch turns it off; rights need no claim, and a claim
//! that names one agrees when it names its amount; an item approval counts as one item.

use crate::case::Case;
use alloy_primitives::{Address, B256, I256, U256, aliases::U48, aliases::U160};
use alloy_sol_types::SolCall;
use pace_abi::rights::IPermit2;
use pace_testkit::mainnet::*;
use pace_types::{
    Approval, ApprovalFact, Check, ItemApproval, LendingFact, LendingProtocol, LendingState,
    PositionChange, RightFact, RightKind, TokenAmount, UnreadPosition, ViolationCode as Code,
};

const PERMIT2: Address = Address::repeat_byte(0x22);
const STRANGER: Address = Address::repeat_byte(0x5e);
const MARKET: Address = Address::repeat_byte(0xaa);
const PAYEE: Address = Address::repeat_byte(0x9a);

fn state(hf: Option<u32>) -> LendingState {
    LendingState {
        health_factor_bps: hf,
        ..LendingState::default()
    }
}

/// The benign swap, with one lending fact of the Aave adapter.
fn lending(before: Option<u32>, after: Option<u32>, lowers: bool) -> Case {
    Case::benign().with(|c| {
        c.report_mut().lending = vec![LendingFact {
            protocol: LendingProtocol::AaveV3,
            market: MARKET,
            before: state(before),
            after: state(after),
            lowers,
        }];
    })
}

#[test]
fn the_adapters_health_factors_are_judged() {
    // The policy's minimum is 15,000.
    assert_eq!(lending(Some(20_000), Some(16_000), true).codes(), vec![]);
    assert_eq!(
        lending(Some(20_000), Some(14_000), true).codes(),
        vec![Code::HealthFactorTooLow]
    );
    // Unreadable after, the position lowered: refused; not lowered (a supply): passes.
    assert_eq!(
        lending(Some(20_000), None, true).codes(),
        vec![Code::HealthFactorUnreadable]
    );
    assert_eq!(lending(None, None, false).codes(), vec![]);
    // A repayment that leaves the position under the minimum but better: allowed; worse, or
    // from an unknown start: refused.
    assert_eq!(lending(Some(11_000), Some(13_000), false).codes(), vec![]);
    assert_eq!(
        lending(Some(13_000), Some(12_000), false).codes(),
        vec![Code::HealthFactorTooLow]
    );
    assert_eq!(
        lending(None, Some(13_000), false).codes(),
        vec![Code::HealthFactorTooLow]
    );
    // No minimum in the policy: nothing to judge; the switch off: nothing either.
    let none = lending(Some(20_000), None, true).with(|c| c.policy.min_health_factor_bps = None);
    assert_eq!(none.codes(), vec![]);
    let off =
        lending(Some(20_000), None, true).with(|c| c.policy.checks.set(Check::HealthFactor, false));
    assert_eq!(off.codes(), vec![]);
}

#[test]
fn a_generic_position_that_falls_needs_a_health_factor() {
    let fell = |hf: Option<u32>| {
        Case::benign().with(|c| {
            let r = c.report_mut();
            r.positions = vec![PositionChange {
                market: MARKET,
                token: WETH,
                delta: I256::try_from(-5).unwrap(),
            }];
            r.health_factor_after_bps = hf;
        })
    };
    assert_eq!(fell(None).codes(), vec![Code::HealthFactorUnreadable]);
    assert_eq!(fell(Some(16_000)).codes(), vec![]);
    // Covered by an adapter's fact, it is that fact that is judged.
    let covered = fell(None).with(|c| {
        c.report_mut().lending = vec![LendingFact {
            protocol: LendingProtocol::Generic,
            market: MARKET,
            before: state(Some(20_000)),
            after: state(Some(16_000)),
            lowers: true,
        }]
    });
    assert_eq!(covered.codes(), vec![]);
}

/// The approve-only case plus a Permit2 allowance of `amount` USDC to `holder`, in the report
/// and, when `decoded`, in the calldata.
fn permit2(holder: Address, amount: U256, decoded: bool) -> Case {
    Case::approve_only(usdc(100))
        .with(|c| {
            c.report_mut().rights = vec![RightFact {
                kind: RightKind::Permit2Allowance,
                contract: PERMIT2,
                holder,
                token: Some(USDC),
                amount: Some(amount),
                slot: None,
            }];
            if decoded {
                let data = IPermit2::approveCall {
                    token: USDC,
                    spender: holder,
                    amount: U160::saturating_from(amount),
                    expiration: U48::ZERO,
                }
                .abi_encode();
                c.intent.calls.push(call(PERMIT2, data.into()));
                c.policy.allowed_targets.push(PERMIT2);
                c.policy
                    .allowed_selectors
                    .push(IPermit2::approveCall::SELECTOR.into());
            }
        })
        .rehash()
}

#[test]
fn permit2_allowances_are_judged_like_approvals() {
    assert_eq!(permit2(ROUTER, usdc(100), true).codes(), vec![]);
    assert_eq!(
        permit2(STRANGER, usdc(100), true).codes(),
        vec![Code::SpenderNotAllowed]
    );
    assert_eq!(
        permit2(ROUTER, usdc(20_000), true).codes(),
        vec![Code::ApprovalExceedsCap]
    );
    assert_eq!(
        permit2(ROUTER, U256::from(U160::MAX), true).codes(),
        vec![Code::UnlimitedApproval]
    );
    // Seen in the trace only (a call the decoder cannot see into), the same.
    assert_eq!(
        permit2(STRANGER, usdc(100), false).codes(),
        vec![Code::SpenderNotAllowed]
    );
    // Without a report, the calldata alone.
    let blind = permit2(STRANGER, usdc(100), true).with(|c| {
        c.report = None;
        c.policy.require_simulation = false;
    });
    assert!(
        blind.codes().contains(&Code::SpenderNotAllowed),
        "{:?}",
        blind.codes()
    );
    // Arguments that do not decode: a grant of unknown size.
    let garbled = permit2(ROUTER, usdc(100), true).with(|c| {
        let data = &mut c.intent.calls.last_mut().unwrap().data;
        *data = data.slice(..40);
    });
    assert!(
        garbled.rehash().codes().contains(&Code::UnlimitedApproval),
        "garbled"
    );
    // The switches.
    let off = permit2(STRANGER, usdc(100), true)
        .with(|c| c.policy.checks.set(Check::Counterparties, false));
    assert_eq!(off.codes(), vec![]);
    let lax = permit2(ROUTER, U256::from(U160::MAX), true)
        .with(|c| c.policy.forbid_unlimited_approval = false);
    assert_eq!(lax.codes(), vec![]);
}

#[test]
fn a_claim_naming_a_right_agrees_with_its_amount() {
    let claimed = |amount: U256| {
        permit2(ROUTER, usdc(100), true).with(|c| {
            c.intent.claimed.approvals.push(Approval {
                token: USDC,
                spender: ROUTER,
                amount,
            })
        })
    };
    assert_eq!(claimed(usdc(100)).rehash().codes(), vec![]);
    assert_eq!(
        claimed(usdc(50)).rehash().codes(),
        vec![Code::ApprovalClaimMismatch]
    );
}

fn control(kind: RightKind, holder: Address) -> Case {
    Case::benign().with(|c| {
        c.report_mut().rights = vec![RightFact {
            kind,
            contract: MARKET,
            holder,
            token: None,
            amount: None,
            slot: Some(B256::ZERO),
        }];
        c.policy.allowed_recipients.push(PAYEE);
    })
}

#[test]
fn control_handed_to_a_stranger_is_refused_and_to_a_known_party_allowed() {
    for (kind, code) in [
        (RightKind::DisplacedAccount, Code::ControllerNotAllowed),
        (RightKind::RecordedAddress, Code::RoleHolderNotAllowed),
        (RightKind::CreatedContract, Code::WalletOwnerNotAllowed),
    ] {
        assert_eq!(control(kind, STRANGER).codes(), vec![code], "{kind:?}");
        for known in [PAYEE, ROUTER, USDC, PAIR, ACCOUNT] {
            assert_eq!(control(kind, known).codes(), vec![], "{kind:?} {known}");
        }
        let off =
            control(kind, STRANGER).with(|c| c.policy.checks.set(Check::Counterparties, false));
        assert_eq!(off.codes(), vec![]);
    }
}

#[test]
fn a_record_under_an_opaque_key_is_refused_unless_the_policy_names_its_contract() {
    let opaque = control(RightKind::OpaqueKey, Address::ZERO);
    assert_eq!(opaque.codes(), vec![Code::OpaqueAuthorization]);
    // Trusted for it by name: the user has read what its records authorise.
    let named = control(RightKind::OpaqueKey, Address::ZERO)
        .with(|c| c.policy.opaque_key_targets.push(MARKET));
    assert_eq!(named.codes(), vec![]);
    // Another contract named does not cover this one.
    let other = control(RightKind::OpaqueKey, Address::ZERO)
        .with(|c| c.policy.opaque_key_targets.push(ROUTER));
    assert_eq!(other.codes(), vec![Code::OpaqueAuthorization]);
    let off = control(RightKind::OpaqueKey, Address::ZERO)
        .with(|c| c.policy.checks.set(Check::Counterparties, false));
    assert_eq!(off.codes(), vec![]);
}

/// A slot `MARKET` keys by the account, changed from `before` to `after` while it paid out.
fn unread(before: u64, after: u64, redeemed: bool) -> Case {
    Case::benign().with(|c| {
        c.policy.min_health_factor_bps = Some(12_000);
        c.report_mut().unread_positions = vec![UnreadPosition {
            contract: MARKET,
            slot: B256::repeat_byte(7),
            before: U256::from(before),
            after: U256::from(after),
            redeemed,
            silent: false,
        }];
    })
}

#[test]
fn a_record_under_the_account_that_names_no_one_is_an_opaque_authorization() {
    let silent = |c: Case| {
        c.with(|c| {
            for u in &mut c.report_mut().unread_positions {
                u.silent = true;
            }
        })
    };
    // Grown or fallen, with or without a health minimum: what it authorises cannot be read.
    for (before, after) in [(0, 4), (4, 0)] {
        assert_eq!(
            silent(unread(before, after, false)).codes(),
            vec![Code::OpaqueAuthorization]
        );
    }
    // Beside a balance of the account's that fell there (a token it paid with): a contract
    // that paid nothing out redeemed nothing, and the record is judged.
    assert_eq!(
        silent(unread(0, 4, true)).codes(),
        vec![Code::OpaqueAuthorization]
    );
    // Named by the user, or read by an adapter: judged there.
    let named = silent(unread(0, 4, false)).with(|c| c.policy.opaque_key_targets.push(MARKET));
    assert_eq!(named.codes(), vec![]);
    let read = silent(unread(0, 4, false)).with(|c| c.report_mut().debt_like.push(MARKET));
    assert_eq!(read.codes(), vec![]);
}

#[test]
fn a_right_a_contract_records_explains_its_own_slot_not_another_record() {
    // The contract records a payee (allowed) in slot 0 and something opaque in slot 7.
    let beside = |slot: Option<B256>| {
        unread(0, 4, false).with(|c| {
            c.report_mut().unread_positions[0].silent = true;
            c.report_mut().rights = vec![RightFact {
                kind: RightKind::RecordedAddress,
                contract: MARKET,
                holder: PAYEE,
                token: None,
                amount: None,
                slot,
            }];
            c.policy.allowed_recipients.push(PAYEE);
        })
    };
    assert_eq!(
        beside(Some(B256::ZERO)).codes(),
        vec![Code::OpaqueAuthorization]
    );
    // The right's own slot, or a right in pieces across the contract's slots: judged there,
    // for the slots that hold a piece of it; the contract's other records are its own.
    assert_eq!(beside(Some(B256::repeat_byte(7))).codes(), vec![]);
    assert_eq!(beside(None).codes(), vec![Code::OpaqueAuthorization]);
    let piece = beside(None).with(|c| {
        let mut word = [0u8; 32];
        word[22..32].copy_from_slice(&PAYEE.as_slice()[10..]);
        c.report_mut().unread_positions[0].after = U256::from_be_bytes(word);
    });
    assert_eq!(piece.codes(), vec![]);
}

#[test]
fn a_position_nothing_reads_is_debt_when_it_grows_and_collateral_out_when_it_falls() {
    assert_eq!(unread(1, 2, false).codes(), vec![Code::DebtUnreadable]);
    assert_eq!(
        unread(2, 1, false).codes(),
        vec![Code::HealthFactorUnreadable]
    );
    // Debt is refused with no health minimum; a fall is then no one's concern.
    let no_min = |c: Case| c.with(|c| c.policy.min_health_factor_bps = None);
    assert_eq!(
        no_min(unread(1, 2, false)).codes(),
        vec![Code::DebtUnreadable]
    );
    assert_eq!(no_min(unread(2, 1, false)).codes(), vec![]);
    // A redemption of a claim the contract's views read: its bookkeeping.
    assert_eq!(unread(1, 2, true).codes(), vec![]);
    // Named by the user, or read by an adapter: judged there.
    let named = unread(1, 2, false).with(|c| c.policy.unread_position_targets.push(MARKET));
    assert_eq!(named.codes(), vec![]);
    let read = unread(1, 2, false).with(|c| c.report_mut().debt_like.push(MARKET));
    assert_eq!(read.codes(), vec![]);
    let other = unread(1, 2, false).with(|c| c.policy.unread_position_targets.push(ROUTER));
    assert_eq!(other.codes(), vec![Code::DebtUnreadable]);
    let off = unread(1, 2, false).with(|c| c.policy.checks.set(Check::HealthFactor, false));
    assert_eq!(off.codes(), vec![]);
}

#[test]
fn a_standing_operator_is_refused_whoever_it_is() {
    // Even an allowed target (the router) or a payee: the bounds cannot hold the items.
    for holder in [STRANGER, ROUTER, PAYEE] {
        assert_eq!(
            control(RightKind::StandingOperator, holder).codes(),
            vec![Code::StandingOperator],
            "{holder}"
        );
    }
    let off = control(RightKind::StandingOperator, ROUTER)
        .with(|c| c.policy.checks.set(Check::Counterparties, false));
    assert_eq!(off.codes(), vec![]);
}

/// `approve(ROUTER, 1234)` on a collection the policy caps at one item.
fn listing(item: bool, declared: bool) -> Case {
    let collection = Address::repeat_byte(0x71);
    let id = U256::from(1_234u64);
    Case::approve_only(usdc(100))
        .with(|c| {
            c.intent.calls = vec![call(collection, approve_data(ROUTER, id))];
            c.intent.claimed.approvals = vec![Approval {
                token: collection,
                spender: ROUTER,
                amount: U256::from(1u8),
            }];
            c.intent.claimed.touched = vec![collection];
            c.policy.allowed_targets.push(collection);
            c.policy.allowed_tokens.push(collection);
            c.policy.spend_caps.push(TokenAmount {
                token: collection,
                amount: U256::from(1u8),
            });
            if declared {
                c.policy.nft_collections.push(collection);
            }
            let r = c.report_mut();
            r.touched_contracts = vec![collection];
            // An ERC-721 `Approval` log: one item.
            r.approvals = vec![ApprovalFact {
                token: collection,
                owner: ACCOUNT,
                spender: ROUTER,
                amount: U256::from(1u8),
            }];
            if item {
                r.item_approvals = vec![ItemApproval {
                    token: collection,
                    spender: ROUTER,
                    id,
                }];
            }
        })
        .rehash()
}

#[test]
fn an_approval_of_one_item_is_one_item() {
    assert_eq!(listing(true, false).codes(), vec![]);
    assert_eq!(listing(false, true).codes(), vec![]);
    // Ambiguous: judged as 1,234 units too, and its claim of one disagrees.
    let ambiguous = listing(false, false).codes();
    assert!(
        ambiguous.contains(&Code::ApprovalExceedsCap),
        "{ambiguous:?}"
    );
    assert!(
        ambiguous.contains(&Code::ApprovalClaimMismatch),
        "{ambiguous:?}"
    );
}
