//! The Vault's internal balances, a ledger that is no ERC-20 or ERC-1155 balance: the account's
//! claim there is no holding the simulator values, so what moves it out must be refused, not
//! passed. On the real Vault: the account's internal WETH moved to a party the policy knows
//! (the Vault, a pool) is refused as a record nothing reads (`OPAQUE_AUTHORIZATION`), and paid
//! out as tokens to a payee, past the spend cap nothing counted it against, as a position
//! nothing reads (`POSITION_UNREADABLE`); withdrawn to the account itself it is approved.
//!
//! A descriptor makes the ledger one the simulator reads: its positions name the Vault's
//! `getInternalBalance(account, [token])` (an array argument), and say the Vault lends nothing
//! against them (`secures_debt: false`). A deposit into the internal balance is then value
//! kept, approved and landed, and re-checked at execution (landing after the balance fell
//! reverts); a swap that pays into the account's internal balance is measured there, approved
//! and landed with an honest minimum, refused with none or paid into a stranger's; a withdrawal
//! to the account needs no health factor (read as positions that may secure a debt, it does).
//! The internal balance moved to anyone else stays refused (a stranger is a loss); paid to an
//! allowed payee it is a payment, counted by the spend cap on its token as the holding's fall,
//! and refused under a budget on that token, which the account charges on balances only.

use crate::balancer::{Fixture, fixture, less};
use crate::protocols_bed::selector;
use alloy_primitives::{Address, U256};
use pace_pipeline::{Evaluation, ExecutionResult};
use pace_testkit::protocols::{
    actions::{approve, call},
    ether,
};
use pace_types::{
    Call, PeriodBudget, Policy, ProtocolPin, ViolationCode as Code,
    descriptor::{Descriptor, PositionKind, PositionView},
};

alloy_sol_types::sol! {
    /// The Vault's internal balances (`IVault.manageUserBalance`, `getInternalBalance`).
    interface IVaultBalances {
        struct UserBalanceOp {
            uint8 kind;
            address asset;
            uint256 amount;
            address sender;
            address recipient;
        }
        function manageUserBalance(UserBalanceOp[] ops) external payable;
        function getInternalBalance(address user, address[] tokens)
            external view returns (uint256[] balances);
    }
}

alloy_sol_types::sol! {
    /// WETH's `deposit`.
    interface IWeth {
        function deposit() external payable;
    }
}

/// `UserBalanceOpKind`: `DEPOSIT_INTERNAL`, `WITHDRAW_INTERNAL`, `TRANSFER_INTERNAL`.
const DEPOSIT_INTERNAL: u8 = 0;
const WITHDRAW_INTERNAL: u8 = 1;
const TRANSFER_INTERNAL: u8 = 2;

/// One operation on the account's internal `asset`.
fn op(f: &Fixture, kind: u8, asset: Address, amount: U256, recipient: Address) -> Call {
    let ops = vec![IVaultBalances::UserBalanceOp {
        kind,
        asset,
        amount,
        sender: f.b.a().account,
        recipient,
    }];
    call(
        f.balancer.vault,
        &IVaultBalances::manageUserBalanceCall { ops },
    )
}

/// The fixture with 5 WETH in the account's internal balance (deposited by its owner).
fn seeded() -> Fixture {
    let mut f = fixture();
    let a = f.b.a();
    let deposit = op(&f, DEPOSIT_INTERNAL, a.weth, ether(5), a.account);
    f.b.owner(&[approve(a.weth, f.balancer.vault, ether(5)), deposit]);
    f
}

fn internal_weth(f: &Fixture) -> U256 {
    internal(f, f.b.a().weth)
}

/// The account's internal balance of `token` in the Vault.
fn internal(f: &Fixture, token: Address) -> U256 {
    let balances =
        f.b.world
            .evm
            .view_sol(
                f.balancer.vault,
                &IVaultBalances::getInternalBalanceCall {
                    user: f.b.a().account,
                    tokens: vec![token],
                },
            )
            .unwrap();
    balances[0]
}

/// The fixture's policy with `manageUserBalance` allowed.
fn balances_policy(f: &Fixture) -> Policy {
    let mut p = f.policy();
    p.allowed_selectors
        .push(selector::<IVaultBalances::manageUserBalanceCall>().into());
    p
}

fn codes(f: &Fixture, calls: Vec<Call>, policy: &Policy) -> Vec<Code> {
    let evaluation = f.b.evaluate_claimed(f.b.intent(calls), policy);
    evaluation
        .decision
        .violations
        .iter()
        .map(|v| v.code)
        .collect()
}

/// `calls` evaluated under `policy`, which must approve them.
fn approved(f: &Fixture, calls: Vec<Call>, policy: &Policy) -> Evaluation {
    let evaluation = f.b.evaluate_claimed(f.b.intent(calls), policy);
    assert!(
        evaluation.decision.approved(),
        "{:?}",
        evaluation.decision.violations
    );
    evaluation
}

/// Submits an approval, which must execute.
fn lands(f: &mut Fixture, evaluation: &Evaluation, watch: &[Address]) {
    let result = f.b.submit(evaluation, watch);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
}

#[test]
fn internal_balance_moved_to_a_party_the_policy_knows_is_refused() {
    let f = seeded();
    assert_eq!(internal_weth(&f), ether(5));
    let a = f.b.a();
    let policy = balances_policy(&f);
    for to in [f.balancer.vault, f.weth_dai.pool] {
        let moved = op(&f, TRANSFER_INTERNAL, a.weth, ether(5), to);
        let codes = codes(&f, vec![moved], &policy);
        assert!(
            codes.contains(&Code::OpaqueAuthorization),
            "to {to}: {codes:?}"
        );
    }
}

#[test]
fn internal_balance_paid_to_a_payee_is_refused_unread_and_capped_read_by_descriptor() {
    let mut f = seeded();
    let a = f.b.a();
    let payee = Address::repeat_byte(0x9a);
    let mut policy = balances_policy(&f);
    policy.min_health_factor_bps = None;
    policy.allowed_recipients.push(payee);
    let paid = op(&f, WITHDRAW_INTERNAL, a.weth, ether(5), payee);
    // Nothing reads the ledger: value paid out of it passes every cap unseen.
    let unread = codes(&f, vec![paid.clone()], &policy);
    assert!(unread.contains(&Code::PositionUnreadable), "{unread:?}");
    // Read by descriptor, a payment the spend cap on WETH counts as the holding's fall.
    let read = pinned(policy, internal_descriptor(&f));
    let capped = |cap: u64| {
        let mut p = read.clone();
        for c in p.spend_caps.iter_mut().filter(|c| c.token == a.weth) {
            c.amount = ether(cap);
        }
        p
    };
    assert_eq!(
        codes(&f, vec![paid.clone()], &capped(4)),
        vec![Code::SpendCapExceeded]
    );
    // Under a budget on WETH, which the account charges on its balances only: refused.
    let mut budgeted = read.clone();
    budgeted.budgets.push(PeriodBudget {
        token: a.weth,
        limit: ether(100),
        period_secs: 86_400,
    });
    let refused = codes(&f, vec![paid.clone()], &budgeted);
    assert!(refused.contains(&Code::PositionUnreadable), "{refused:?}");
    // Ether wrapped beside it offsets nothing: the WETH gained did not come out of the Vault.
    let wrap = pace_types::Call {
        target: a.weth,
        value: ether(4),
        data: alloy_sol_types::SolCall::abi_encode(&IWeth::depositCall {}).into(),
    };
    let mut wrapping = capped(4);
    wrapping
        .allowed_selectors
        .push(selector::<IWeth::depositCall>().into());
    wrapping.max_value_wei = ether(5);
    assert_eq!(
        codes(&f, vec![wrap, paid.clone()], &wrapping),
        vec![Code::SpendCapExceeded]
    );
    let evaluation = approved(&f, vec![paid], &capped(5));
    lands(&mut f, &evaluation, &[a.weth]);
    assert_eq!(f.b.balance(a.weth, payee), ether(5));
    assert_eq!(internal_weth(&f), ether(0));
}

#[test]
fn internal_balance_withdrawn_to_the_account_is_approved() {
    let mut f = seeded();
    let a = f.b.a();
    let mut policy = balances_policy(&f);
    policy.min_health_factor_bps = None;
    let withdrawn = op(&f, WITHDRAW_INTERNAL, a.weth, ether(1), a.account);
    let evaluation = approved(&f, vec![withdrawn], &policy);
    let before = f.b.balance(a.weth, a.account);
    lands(&mut f, &evaluation, &[a.weth]);
    assert_eq!(f.b.balance(a.weth, a.account) - before, ether(1));
    assert_eq!(internal_weth(&f), ether(4));
}

/// `getInternalBalance(account, [token])`: one word, the third of its answer (the array's
/// offset and length come first).
const INTERNAL_BALANCE: &str = "getInternalBalance(address,address[])";

fn internal_args(token: Address) -> Vec<String> {
    vec!["account".into(), format!("[{}]", token.into_word())]
}

/// Balancer V2 by descriptor, with `manageUserBalance` an entry point and the account's
/// internal WETH and DAI as its positions.
fn internal_descriptor(f: &Fixture) -> Descriptor {
    let a = f.b.a();
    let mut d = crate::balancer_descriptor::balancer_v2(f);
    d.entry_points[0]
        .selectors
        .push(selector::<IVaultBalances::manageUserBalanceCall>().into());
    d.positions = [a.weth, a.dai]
        .into_iter()
        .map(|token| PositionView {
            root: "vault".into(),
            view: INTERNAL_BALANCE.into(),
            args: internal_args(token),
            word: 2,
            token,
            kind: PositionKind::Asset,
            // The Vault lends nothing against internal balances.
            secures_debt: false,
        })
        .collect();
    d
}

fn pinned(mut policy: Policy, d: Descriptor) -> Policy {
    policy.protocols = vec![ProtocolPin {
        file: None,
        hash: d.hash(),
        descriptor: Some(d),
    }];
    policy
}

#[test]
fn a_deposit_into_the_internal_balance_is_refused_unread_and_approved_read_by_descriptor() {
    let mut f = seeded();
    let a = f.b.a();
    let deposit = vec![
        approve(a.weth, f.balancer.vault, ether(2)),
        op(&f, DEPOSIT_INTERNAL, a.weth, ether(2), a.account),
    ];
    let unread = codes(&f, deposit.clone(), &balances_policy(&f));
    assert!(unread.contains(&Code::LossExceeded), "{unread:?}");

    let policy = pinned(balances_policy(&f), internal_descriptor(&f));
    let evaluation = approved(&f, deposit, &policy);
    // The internal balance the loss counted as kept is re-checked after the calls: at least
    // the simulated 7 WETH less the policy's tolerance.
    let checks = &evaluation.checked.as_ref().unwrap().signed().pdr.checks;
    let weth_word = a.weth.into_word();
    let check = checks
        .iter()
        .find(|c| c.target == f.balancer.vault && c.data.ends_with(weth_word.as_slice()))
        .unwrap_or_else(|| panic!("no check of the internal balance: {checks:?}"));
    // None of the internal DAI, which the account has none of.
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert!(check.lo <= ether(7) && check.lo > ether(6), "{check:?}");
    let before = f.b.balance(a.weth, a.account);
    lands(&mut f, &evaluation, &[a.weth]);
    assert_eq!(before - f.b.balance(a.weth, a.account), ether(2));
    assert_eq!(internal_weth(&f), ether(7));
}

#[test]
fn an_internal_balance_read_by_descriptor_still_cannot_leave_for_a_stranger() {
    let f = seeded();
    let a = f.b.a();
    let policy = pinned(balances_policy(&f), internal_descriptor(&f));
    let stranger = Address::repeat_byte(0x5e);
    for moved in [
        op(&f, TRANSFER_INTERNAL, a.weth, ether(5), stranger),
        op(&f, WITHDRAW_INTERNAL, a.weth, ether(5), stranger),
    ] {
        let codes = codes(&f, vec![moved], &policy);
        assert!(codes.contains(&Code::LossExceeded), "{codes:?}");
    }
}

#[test]
fn a_deposit_that_lands_after_the_internal_balance_fell_reverts() {
    let mut f = seeded();
    let a = f.b.a();
    let policy = pinned(balances_policy(&f), internal_descriptor(&f));
    let deposit = vec![
        approve(a.weth, f.balancer.vault, ether(1)),
        op(&f, DEPOSIT_INTERNAL, a.weth, ether(1), a.account),
    ];
    let evaluation = approved(&f, deposit, &policy);
    // Before it lands, the owner takes 3 WETH out of the internal balance: the simulated 6
    // are not there at execution.
    let taken = op(&f, WITHDRAW_INTERNAL, a.weth, ether(3), a.account);
    f.b.owner(&[taken]);
    let result = f.b.submit(&evaluation, &[a.weth]);
    let ExecutionResult::Reverted { error, .. } = &result else {
        panic!("{result:?}");
    };
    assert!(error.starts_with("PaceAccountCheckFailed"), "{error}");
    assert_eq!(internal_weth(&f), ether(2));
}

/// Approve the Vault, then swap `amount` WETH for DAI into `recipient`'s internal balance,
/// for at least `min_out`.
fn swap_to_internal(f: &Fixture, amount: U256, min_out: U256, recipient: Address) -> Vec<Call> {
    f.internal_swap(amount, min_out, recipient, (false, true))
}

#[test]
fn a_swap_into_the_internal_balance_is_measured_there_and_lands_read_by_descriptor() {
    let mut f = seeded();
    let a = f.b.a();
    let amount = ether(1) / U256::from(10u8);
    let facts = f.facts(swap_to_internal(&f, amount, U256::from(1u8), a.account));
    assert_eq!(facts.amount_in, amount);
    assert!(
        facts.amount_out > ether(95) && facts.amount_out < facts.quoted_out,
        "{facts:?}"
    );
    let policy = pinned(balances_policy(&f), internal_descriptor(&f));
    let honest = swap_to_internal(&f, amount, less(facts.amount_out, 50), a.account);
    let evaluation = approved(&f, honest, &policy);
    let before = f.b.balance(a.weth, a.account);
    lands(&mut f, &evaluation, &[a.weth, a.dai]);
    assert_eq!(before - f.b.balance(a.weth, a.account), amount);
    assert_eq!(internal(&f, a.dai), facts.amount_out);

    // No minimum, or the output into a stranger's internal balance.
    let stranger = Address::repeat_byte(0x5e);
    for (calls, code) in [
        (
            swap_to_internal(&f, amount, U256::ZERO, a.account),
            Code::SlippageExceeded,
        ),
        (
            swap_to_internal(&f, amount, less(facts.amount_out, 50), stranger),
            Code::SwapRecipientNotAccount,
        ),
    ] {
        let codes = codes(&f, calls, &policy);
        assert!(codes.contains(&code), "{code:?}: {codes:?}");
    }
}

#[test]
fn a_swap_out_of_the_internal_balance_is_not_read() {
    let f = seeded();
    let a = f.b.a();
    let policy = pinned(balances_policy(&f), internal_descriptor(&f));
    let amount = ether(1) / U256::from(10u8);
    let swap = f.internal_swap(amount, ether(95), a.account, (true, false));
    let codes = codes(&f, swap, &policy);
    assert!(codes.contains(&Code::PlanNotDecoded), "{codes:?}");
}

#[test]
fn a_withdrawal_of_a_holding_that_secures_no_debt_needs_no_health_factor() {
    let mut f = seeded();
    let a = f.b.a();
    let withdrawn = vec![op(&f, WITHDRAW_INTERNAL, a.weth, ether(2), a.account)];
    let base = balances_policy(&f);
    assert!(base.min_health_factor_bps.is_some());
    // Read as positions that may secure a debt: a fall whose health factor nothing reads.
    let mut collateral = internal_descriptor(&f);
    collateral
        .positions
        .iter_mut()
        .for_each(|p| p.secures_debt = true);
    let codes = codes(&f, withdrawn.clone(), &pinned(base.clone(), collateral));
    assert!(codes.contains(&Code::HealthFactorUnreadable), "{codes:?}");

    let policy = pinned(base, internal_descriptor(&f));
    let evaluation = approved(&f, withdrawn, &policy);
    let before = f.b.balance(a.weth, a.account);
    lands(&mut f, &evaluation, &[a.weth]);
    assert_eq!(f.b.balance(a.weth, a.account) - before, ether(2));
    assert_eq!(internal_weth(&f), ether(3));
}
