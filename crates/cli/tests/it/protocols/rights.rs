//! The attacks on rights: a Permit2 allowance, a credit delegation and a treasury's ownership
//! handed to a stranger. Each is refused by `pace run --rpc` with nothing broadcast and the
//! right unchanged on the node, then granted through the owner's raw path, after which the
//! stranger takes what the right controls.

use super::{
    harness::{Harness, Watch},
    policies, stranger,
};
use alloy_primitives::{Address, U256, aliases::U160};
use alloy_sol_types::{SolCall, SolConstructor, sol};
use pace_abi::rights::ICreditDelegation;
use pace_testkit::protocols::{
    Chain as _,
    actions::{call, fund_token},
    bindings::{AavePool, MockPermit2},
    ether,
};
use pace_types::{Call, ViolationCode as Code};

sol! {
    /// A treasury whose owner may withdraw everything it holds (`contracts/mocks/rights/`).
    contract RightsCustody {
        constructor(address owner_);
        function owner() external view returns (address);
        function transferOwnership(address newOwner) external;
        function configure(bytes calldata data) external;
        function withdraw(address token, uint256 amount) external;
    }
}

/// `Permit2.approve(DAI, stranger, 500)` after the ERC-20 approval Permit2 pulls against: no
/// ERC-20 allowance goes to the stranger, yet through the owner's path the stranger then
/// takes the 500 DAI.
pub(super) fn permit2_allowance_to_a_stranger(h: &mut Harness) {
    let (a, ur) = (h.a, h.bed.universal_router);
    let expiration = h.node.timestamp().unwrap() + 3_600;
    let calls = vec![
        ur.approve_permit2(a.dai, ether(500)),
        ur.permit2_approve(a.dai, stranger(), U160::from(ether(500)), expiration),
    ];
    let watch = [
        Watch::Ether,
        Watch::Token(a.dai),
        Watch::Allowance(a.dai, ur.permit2),
        Watch::Permit2(a.dai, stranger()),
    ];
    let run = h.run(
        "permit2_to_stranger",
        calls.clone(),
        &policies::permit2(h),
        &watch,
    );
    run.assert_refused(Code::SpenderNotAllowed);
    assert!(!run.codes().contains(&Code::ApprovalClaimMismatch));

    h.owner(&calls);
    h.node.fund(stranger(), ether(1)).unwrap();
    let (held, took) = (h.balance(a.dai, a.account), h.balance(a.dai, stranger()));
    let pull = MockPermit2::transferFrom_0Call {
        from: a.account,
        to: stranger(),
        amount: U160::from(ether(500)),
        token: a.dai,
    };
    h.node.send_sol(stranger(), ur.permit2, &pull).unwrap();
    assert_eq!(h.balance(a.dai, stranger()) - took, ether(500));
    assert_eq!(held - h.balance(a.dai, a.account), ether(500));
}

/// `approveDelegation(stranger, 1,000 DAI)` on Aave's variable debt token, with 10 WETH of the
/// account's supplied: through the owner's path the stranger then borrows 1,000 DAI that the
/// account owes.
pub(super) fn credit_delegation_to_a_stranger(h: &mut Harness) {
    let (a, aave) = (h.a, h.bed.aave.clone());
    h.owner(&aave.supply(a.weth, ether(10), a.account));
    let debt_token = aave.dai.variable_debt_token;
    let policy = policies::base(
        h,
        &[debt_token],
        &[ICreditDelegation::approveDelegationCall::SELECTOR],
        &[],
        &[],
    );
    let delegated = |h: &Harness| {
        let view = ICreditDelegation::borrowAllowanceCall {
            fromUser: a.account,
            toUser: stranger(),
        };
        h.node.view_sol(debt_token, &view).unwrap()
    };
    let calls = vec![aave.approve_delegation(&aave.dai, stranger(), ether(1_000))];
    let watch = [
        Watch::Ether,
        Watch::Token(a.dai),
        Watch::Token(debt_token),
        Watch::Token(aave.weth.a_token),
    ];
    let run = h.run("credit_delegation", calls.clone(), &policy, &watch);
    run.assert_refused(Code::SpenderNotAllowed);
    assert_eq!(delegated(h), U256::ZERO, "no credit delegated");

    h.owner(&calls);
    assert_eq!(delegated(h), ether(1_000));
    h.node.fund(stranger(), ether(1)).unwrap();
    let borrow = AavePool::borrowCall {
        asset: a.dai,
        amount: ether(1_000),
        interestRateMode: U256::from(2u8),
        referralCode: 0,
        onBehalfOf: a.account,
    };
    h.node.send_sol(stranger(), aave.pool, &borrow).unwrap();
    assert_eq!(h.balance(a.dai, stranger()), ether(1_000));
    assert!(h.balance(debt_token, a.account) >= ether(1_000));
}

/// A treasury the account owns, holding 50 DAI, handed to a stranger plainly
/// (`transferOwnership`) or packed in `bytes` (`configure`, which no decoder knows and no event
/// shows): both refused, the owner unchanged. Through the owner's path the packed handover
/// lets the stranger withdraw the 50 DAI.
pub(super) fn ownership_handed_to_a_stranger(h: &mut Harness) {
    let a = h.a;
    let init = RightsCustody::constructorCall { owner_: a.account }.abi_encode();
    let code = pace_contracts::artifacts()
        .unwrap()
        .get("RightsCustody")
        .unwrap()
        .deploy_code(&init);
    let custody = h.node.deploy(h.bed.deployer, code).unwrap();
    fund_token(&mut h.node, &a, a.dai, custody, ether(50)).unwrap();
    let policy = policies::base(
        h,
        &[custody],
        &[
            RightsCustody::transferOwnershipCall::SELECTOR,
            RightsCustody::configureCall::SELECTOR,
        ],
        &[],
        &[],
    );
    let owner = |h: &Harness| -> Address {
        h.node
            .view_sol(custody, &RightsCustody::ownerCall {})
            .unwrap()
    };
    assert_eq!(owner(h), a.account);
    let mut packed = vec![1u8];
    packed.extend_from_slice(stranger().as_slice());
    let plain = call(
        custody,
        &RightsCustody::transferOwnershipCall {
            newOwner: stranger(),
        },
    );
    let hidden = call(
        custody,
        &RightsCustody::configureCall {
            data: packed.into(),
        },
    );
    let watch = [Watch::Ether, Watch::Held(a.dai, custody)];
    for (name, handover) in [("ownership_plain", &plain), ("ownership_packed", &hidden)] {
        let calls: Vec<Call> = vec![handover.clone()];
        let run = h.run(name, calls, &policy, &watch);
        run.assert_refused(Code::ControllerNotAllowed);
        assert_eq!(owner(h), a.account, "{name}: the owner is unchanged");
    }

    h.owner(&[hidden]);
    assert_eq!(owner(h), stranger());
    h.node.fund(stranger(), ether(1)).unwrap();
    let withdraw = RightsCustody::withdrawCall {
        token: a.dai,
        amount: ether(50),
    };
    h.node.send_sol(stranger(), custody, &withdraw).unwrap();
    assert_eq!(h.balance(a.dai, stranger()), ether(50));
}
