//! Rights over the account's value judged like approvals, whatever contract records them, on
//! the bed's Universal Router with the Permit2-compatible contract, its real Aave V3 debt
//! tokens and Uniswap V3 position NFTs, and on crafted contracts: a treasury whose ownership can
//! be handed over, a vault whose depositors name guardians, a factory of wallets. Each refused
//! attack is executed through the owner's path to show what it costs; each honest counterpart
//! is approved and, where it matters, submitted.

use crate::protocols_bed::{Bed, bed, codes, deploy, selector};
use alloy_primitives::{Address, B256, Bytes, U256, aliases::U160, keccak256};
use alloy_sol_types::{SolCall, SolConstructor, SolValue, sol};
use pace_abi::{bindings::IERC20, rights::ICreditDelegation};
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    bindings::{AavePool, MockPermit2, NonfungiblePositionManager, UniversalRouter as Router},
    uniswap_v3::{FEE_MEDIUM, deadline},
};
use pace_types::{Call, Policy, RightKind, ViolationCode as Code, units::ether};

sol! {
    contract RightsCustody {
        constructor(address owner_);
        function owner() external view returns (address);
        function transferOwnership(address newOwner) external;
        function configure(bytes calldata data) external;
        function retire() external;
        function withdraw(address token, uint256 amount) external;
    }
    contract GuardedVault {
        function deposit(address token, uint256 amount) external;
        function setGuardian(address guardian) external;
        function setGuardianPacked(bytes calldata data) external;
        function enableRecovery() external;
        function recover(address user, address token) external;
        function RECOVERY() external view returns (address);
    }
    contract DelegatedBorrower {
        function arm() external;
        function checkIn() external;
    }
    contract KeeperVault {
        function deposit(address token, uint256 amount) external;
        function grantRole(bytes32 role, address keeper) external;
        function grantQuietly(address keeper) external;
        function setDefaultKeeper(address keeper) external;
        function enrol() external;
        function take(address user, address token) external;
    }
    contract PackedKeys {
        function deposit(address token, uint256 amount) external;
        function grantPacked(bytes calldata config) external;
        function grantNested(address keeper) external;
        function grantSplit(address keeper) external;
        function take(address user, address token, uint32 tag) external;
    }
    contract OrderRecords {
        function setPreSignature(bytes32 digest) external;
        function grantRole(bytes32 role, address holder) external;
        function KEEPER() external view returns (bytes32);
    }
    contract RightsWalletFactory {
        function deploy(bytes32 salt, address owner) external returns (address);
        function deployPacked(bytes32 salt, bytes calldata config) external returns (address);
        function deployImmutable(bytes32 salt, address owner) external returns (address);
        function predict(bytes32 salt) external view returns (address);
    }
    contract RightsImmutableWallet {
        constructor(address owner_);
    }
    contract RightsWallet {
        function owner() external view returns (address);
        function execute(address target, uint256 value, bytes calldata data)
            external returns (bytes memory);
    }
}

/// Someone the policy knows nothing of.
fn stranger() -> Address {
    Address::from_word(keccak256("pace-rights/stranger"))
}

fn call<C: SolCall>(target: Address, c: &C) -> Call {
    pace_testkit::protocols::actions::call(target, c)
}

fn permit2_policy(b: &Bed) -> Policy {
    let (a, ur) = (b.a(), b.bed.universal_router);
    b.policy(
        &[a.weth, a.dai, ur.permit2, ur.router],
        &[
            selector::<IERC20::approveCall>(),
            selector::<MockPermit2::approveCall>(),
            selector::<Router::executeCall>(),
        ],
        &[],
        &[ur.permit2, ur.router, b.bed.uniswap_v3.weth_dai.address],
    )
}

/// `Permit2.approve(DAI, stranger, 500)` after the ERC-20 approval Permit2 pulls against: no
/// ERC-20 allowance goes to the stranger, yet it may pull 500 DAI. Refused; executed through
/// the owner's path, the stranger takes the DAI. Unlimited to the router is refused too.
#[test]
fn a_permit2_allowance_to_a_stranger_is_refused_and_costs_what_it_allows() {
    let mut b = bed();
    let (a, ur) = (b.a(), b.bed.universal_router);
    let policy = permit2_policy(&b);
    let expiration = b.world.evm.timestamp() + 3_600;
    let calls = vec![
        ur.approve_permit2(a.dai, ether(500)),
        ur.permit2_approve(a.dai, stranger(), U160::from(ether(500)), expiration),
    ];
    let refused = b.evaluate_claimed(b.intent(calls.clone()), &policy);
    assert!(
        codes(&refused).contains(&Code::SpenderNotAllowed),
        "{:?}",
        refused.decision
    );
    let right = refused
        .report
        .rights
        .iter()
        .find(|r| r.kind == RightKind::Permit2Allowance)
        .expect("the Permit2 allowance");
    assert_eq!(
        (right.contract, right.holder, right.token, right.amount),
        (ur.permit2, stranger(), Some(a.dai), Some(ether(500)))
    );
    // The claims cover the ERC-20 approval to Permit2 only, and agree.
    assert!(!codes(&refused).contains(&Code::ApprovalClaimMismatch));

    let unlimited = b.intent(vec![
        ur.approve_permit2(a.weth, ether(1)),
        ur.permit2_approve(a.weth, ur.router, U160::MAX, expiration),
    ]);
    let e = b.evaluate_claimed(unlimited, &policy);
    assert!(
        codes(&e).contains(&Code::UnlimitedApproval),
        "{:?}",
        e.decision
    );

    b.owner(&calls);
    let before = b.balance(a.dai, stranger());
    b.send(
        stranger(),
        ur.permit2,
        &MockPermit2::transferFrom_0Call {
            from: a.account,
            to: stranger(),
            amount: U160::from(ether(500)),
            token: a.dai,
        },
    );
    assert_eq!(b.balance(a.dai, stranger()) - before, ether(500));
}

/// The everyday swap through the Universal Router: WETH approved to Permit2, the router
/// allowed the input through Permit2, one V3 exact-input swap. Approved, signed and executed
/// through the account: the Permit2 allowance goes to an allowed counterparty, within the cap.
#[test]
fn an_honest_permit2_swap_through_the_universal_router_is_approved_and_executes() {
    let mut b = bed();
    let (a, ur, v3) = (b.a(), b.bed.universal_router, b.bed.uniswap_v3);
    let policy = permit2_policy(&b);
    let quoted = v3
        .quote(&b.world.evm, &v3.weth_dai, a.weth, ether(1))
        .unwrap();
    let calls = ur.v3_swap_via_permit2(
        &[(a.weth, FEE_MEDIUM)],
        a.dai,
        ether(1),
        quoted * U256::from(995) / U256::from(1_000),
        a.account,
        b.world.evm.timestamp() + 600,
        deadline(&b.world.evm).unwrap(),
    );
    let e = b.evaluate_claimed(b.intent(calls), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    assert!(
        e.report
            .rights
            .iter()
            .any(|r| r.kind == RightKind::Permit2Allowance && r.holder == ur.router),
        "{:?}",
        e.report.rights
    );
    let dai = b.balance(a.dai, a.account);
    let done = b.submit(&e, &[a.weth, a.dai]);
    assert!(matches!(done, ExecutionResult::Executed { .. }), "{done:?}");
    assert_eq!(b.balance(a.dai, a.account) - dai, quoted);
}

/// `approveDelegation(stranger, 1,000 DAI)` on Aave's variable debt token lets the stranger
/// borrow against the account's collateral, the debt being the account's. Refused; executed
/// through the owner's path, the stranger walks away with 1,000 DAI the account owes.
#[test]
fn credit_delegation_to_a_stranger_is_refused_and_the_stranger_borrows() {
    let mut b = bed();
    let (a, aave) = (b.a(), b.bed.aave.clone());
    b.owner(&aave.supply(a.weth, ether(10), a.account));
    let debt_token = aave.dai.variable_debt_token;
    let policy = b.policy(
        &[debt_token],
        &[selector::<ICreditDelegation::approveDelegationCall>()],
        &[],
        &[],
    );
    let delegate = aave.approve_delegation(&aave.dai, stranger(), ether(1_000));
    let refused = b.evaluate_claimed(b.intent(vec![delegate.clone()]), &policy);
    assert!(
        codes(&refused).contains(&Code::SpenderNotAllowed),
        "{:?}",
        refused.decision
    );
    let right = &refused.report.rights[0];
    assert_eq!(
        (right.kind, right.token, right.amount),
        (RightKind::CreditDelegation, Some(a.dai), Some(ether(1_000)))
    );

    b.owner(&[delegate]);
    let borrow = AavePool::borrowCall {
        asset: a.dai,
        amount: ether(1_000),
        interestRateMode: U256::from(2),
        referralCode: 0,
        onBehalfOf: a.account,
    };
    b.send(stranger(), aave.pool, &borrow);
    assert_eq!(b.balance(a.dai, stranger()), ether(1_000));
    assert!(b.balance(debt_token, a.account) >= ether(1_000));
}

/// A standing credit delegation to a time bomb the intent only visits: honest in the
/// simulation, so approved; the bomb armed after signing and the PDR landed by a stranger a
/// block later, the borrow on the account's behalf would raise its debt token, which the PDR
/// may not let rise (a token naming an underlying), so it reverts and no debt is drawn.
#[test]
fn debt_drawn_behind_the_account_by_a_standing_delegation_reverts() {
    let mut b = bed();
    let (a, aave) = (b.a(), b.bed.aave.clone());
    b.owner(&aave.supply(a.weth, ether(10), a.account));
    let debt_token = aave.dai.variable_debt_token;
    let args = (aave.pool, a.dai, ether(1_000)).abi_encode_params();
    let bomb = b
        .world
        .evm
        .deploy(
            a.attacker,
            pace_contracts::artifacts()
                .unwrap()
                .get("DelegatedBorrower")
                .unwrap()
                .deploy_code(&args),
        )
        .unwrap();
    b.owner(&[aave.approve_delegation(&aave.dai, bomb, ether(1_000))]);
    let policy = b.policy(
        &[bomb],
        &[selector::<DelegatedBorrower::checkInCall>()],
        &[debt_token],
        &[],
    );
    let visit = call(bomb, &DelegatedBorrower::checkInCall {});
    let e = b.evaluate_claimed(b.intent(vec![visit]), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    assert!(
        e.report.debt_like.contains(&debt_token),
        "{:?}",
        e.report.debt_like
    );
    let checked = e.checked.as_ref().expect("pass 2 agrees");
    b.send(a.attacker, bomb, &DelegatedBorrower::armCall {});
    b.world.advance(1);
    let landed = b
        .world
        .evm
        .call(
            stranger(),
            a.account,
            U256::ZERO,
            checked.calldata().clone(),
        )
        .unwrap();
    assert!(!landed.success, "the armed bomb's borrow executed");
    assert_eq!(b.balance(debt_token, a.account), U256::ZERO);
    assert_eq!(b.balance(a.dai, a.attacker), U256::ZERO);
}

/// Listing a Uniswap V3 position NFT: `approve(marketplace, id)` has ERC-20 `approve`'s
/// selector, and the decoder alone reads it as an approval of `id` units. The state after it
/// (`getApproved(id)` names the marketplace) makes it one item, approved under a cap of one
/// position; declared by the policy (`nft_collections`), the same.
#[test]
fn an_nft_listing_is_an_approval_of_one_item() {
    let mut b = bed();
    let (a, v3) = (b.a(), b.bed.uniswap_v3);
    let pool = v3.weth_dai;
    let (amount0, amount1) = if pool.token0 == a.weth {
        (ether(1), ether(1_000))
    } else {
        (ether(1_000), ether(1))
    };
    b.owner(&v3.mint_position(
        &pool,
        pool.full_range(),
        (amount0, amount1),
        a.account,
        deadline(&b.world.evm).unwrap(),
    ));
    let id = b
        .world
        .evm
        .view_sol(
            v3.position_manager,
            &NonfungiblePositionManager::tokenOfOwnerByIndexCall {
                owner: a.account,
                index: U256::ZERO,
            },
        )
        .unwrap();
    assert!(id > U256::from(1u8), "an id that is no amount of one");
    let marketplace = b.bed.universal_router.router;
    let mut policy = b.policy(
        &[v3.position_manager],
        &[selector::<IERC20::approveCall>()],
        &[v3.position_manager],
        &[marketplace],
    );
    policy.spend_caps.push(pace_types::TokenAmount {
        token: v3.position_manager,
        amount: U256::from(1u8),
    });
    let list = call(
        v3.position_manager,
        &IERC20::approveCall {
            spender: marketplace,
            value: id,
        },
    );
    let mut intent = b.intent(vec![list]);
    intent.claimed.approvals = vec![pace_types::Approval {
        token: v3.position_manager,
        spender: marketplace,
        amount: U256::from(1u8),
    }];
    let e = b.evaluate(&intent, &policy);
    assert_eq!(e.report.item_approvals.len(), 1, "{:?}", e.report);
    assert_eq!(e.report.item_approvals[0].id, id);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    policy.nft_collections.push(v3.position_manager);
    let declared = b.evaluate(&intent, &policy);
    assert!(
        declared.decision.approved(),
        "{:?}",
        declared.decision.violations
    );
    // To a stranger, refused as any approval is.
    let mut to_stranger = intent;
    to_stranger.calls = vec![call(
        v3.position_manager,
        &IERC20::approveCall {
            spender: stranger(),
            value: id,
        },
    )];
    to_stranger.claimed.approvals[0].spender = stranger();
    let refused = b.evaluate(&to_stranger, &policy);
    assert!(
        codes(&refused).contains(&Code::SpenderNotAllowed),
        "{:?}",
        refused.decision
    );
}

/// A treasury the account owns, holding 50 DAI.
fn custody(b: &mut Bed) -> (Address, Policy) {
    let a = b.a();
    let args = RightsCustody::constructorCall { owner_: a.account }.abi_encode();
    let custody = deploy(b, "RightsCustody", &args);
    pace_testkit::protocols::actions::fund_token(&mut b.world.evm, &a, a.dai, custody, ether(50))
        .unwrap();
    let policy = b.policy(
        &[custody],
        &[
            selector::<RightsCustody::transferOwnershipCall>(),
            selector::<RightsCustody::configureCall>(),
            selector::<RightsCustody::retireCall>(),
        ],
        &[],
        &[],
    );
    (custody, policy)
}

/// Handing the treasury's ownership to a stranger, plainly, packed in `bytes`, or to a
/// successor the code computes: the slot that held the account's address holds another.
/// Each is refused; executed, the stranger withdraws the treasury. To the payee, approved.
#[test]
fn ownership_handed_to_a_stranger_is_refused_however_it_is_written() {
    let mut b = bed();
    let (custody, mut policy) = custody(&mut b);
    let a = b.a();
    let mut packed = vec![1u8];
    packed.extend_from_slice(stranger().as_slice());
    let successor = Address::from_word(keccak256("pace-rights/successor"));
    for (call, holder) in [
        (
            call(
                custody,
                &RightsCustody::transferOwnershipCall {
                    newOwner: stranger(),
                },
            ),
            stranger(),
        ),
        (
            call(
                custody,
                &RightsCustody::configureCall {
                    data: packed.clone().into(),
                },
            ),
            stranger(),
        ),
        (call(custody, &RightsCustody::retireCall {}), successor),
    ] {
        let e = b.evaluate_claimed(b.intent(vec![call]), &policy);
        assert!(
            codes(&e).contains(&Code::ControllerNotAllowed),
            "{:?}",
            e.decision
        );
        let r = &e.report.rights[0];
        assert_eq!(
            (r.kind, r.contract, r.holder),
            (RightKind::DisplacedAccount, custody, holder)
        );
    }

    b.owner(&[call(
        custody,
        &RightsCustody::configureCall {
            data: packed.into(),
        },
    )]);
    b.send(
        stranger(),
        custody,
        &RightsCustody::withdrawCall {
            token: a.dai,
            amount: ether(50),
        },
    );
    assert_eq!(b.balance(a.dai, stranger()), ether(50));

    let (custody, _) = self::custody(&mut b);
    policy.allowed_targets = vec![custody];
    policy.allowed_recipients = vec![a.payee];
    let honest = b.intent(vec![call(
        custody,
        &RightsCustody::transferOwnershipCall { newOwner: a.payee },
    )]);
    let e = b.evaluate_claimed(honest, &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
}

/// The account's 100 DAI in a vault whose guardians may take a depositor's balance. Naming a
/// stranger guardian, plainly, packed in `bytes` or through a recovery address written in the
/// vault's code: the vault records an address the calls, their events or the code name, in a
/// slot that was empty. Each is refused; executed, the stranger recovers the DAI. Naming the
/// payee is approved.
#[test]
fn a_guardian_role_given_to_a_stranger_is_refused_however_it_is_written() {
    let mut b = bed();
    let a = b.a();
    let vault = deploy(&mut b, "GuardedVault", &[]);
    b.owner(&[
        call(
            a.dai,
            &IERC20::approveCall {
                spender: vault,
                value: ether(100),
            },
        ),
        call(
            vault,
            &GuardedVault::depositCall {
                token: a.dai,
                amount: ether(100),
            },
        ),
    ]);
    let mut policy = b.policy(
        &[vault],
        &[
            selector::<GuardedVault::setGuardianCall>(),
            selector::<GuardedVault::setGuardianPackedCall>(),
            selector::<GuardedVault::enableRecoveryCall>(),
        ],
        &[],
        &[],
    );
    let recovery: Address = b
        .world
        .evm
        .view_sol(vault, &GuardedVault::RECOVERYCall {})
        .unwrap();
    let mut packed = vec![0u8, 7];
    packed.extend_from_slice(stranger().as_slice());
    for (call, holder) in [
        (
            call(
                vault,
                &GuardedVault::setGuardianCall {
                    guardian: stranger(),
                },
            ),
            stranger(),
        ),
        (
            call(
                vault,
                &GuardedVault::setGuardianPackedCall {
                    data: packed.clone().into(),
                },
            ),
            stranger(),
        ),
        (call(vault, &GuardedVault::enableRecoveryCall {}), recovery),
    ] {
        let e = b.evaluate_claimed(b.intent(vec![call]), &policy);
        assert!(
            codes(&e).contains(&Code::RoleHolderNotAllowed),
            "{:?}",
            e.decision
        );
        assert!(
            e.report
                .rights
                .iter()
                .any(|r| r.kind == RightKind::RecordedAddress && r.holder == holder),
            "{:?}",
            e.report.rights
        );
    }

    b.owner(&[call(
        vault,
        &GuardedVault::setGuardianPackedCall {
            data: packed.into(),
        },
    )]);
    b.send(
        stranger(),
        vault,
        &GuardedVault::recoverCall {
            user: a.account,
            token: a.dai,
        },
    );
    assert_eq!(b.balance(a.dai, stranger()), ether(100));

    policy.allowed_recipients = vec![a.payee];
    let honest = b.intent(vec![call(
        vault,
        &GuardedVault::setGuardianCall { guardian: a.payee },
    )]);
    let e = b.evaluate_claimed(honest, &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
}

/// A `KeeperVault` holding 100 DAI the account deposited through the owner's path.
fn keeper_vault(b: &mut Bed) -> Address {
    let a = b.a();
    let vault = deploy(b, "KeeperVault", &[]);
    b.owner(&[
        call(
            a.dai,
            &IERC20::approveCall {
                spender: vault,
                value: ether(100),
            },
        ),
        call(
            vault,
            &KeeperVault::depositCall {
                token: a.dai,
                amount: ether(100),
            },
        ),
    ]);
    vault
}

/// The account's 100 DAI in a vault whose keepers may take a depositor's balance, the role
/// recorded as a mapping key (`isKeeper[user][keeper] = true`), as role-based access control
/// records it: no slot ever holds the keeper's address as its value. Granted to a stranger,
/// plainly or announced as a zero-value `Transfer`: refused; executed, the stranger takes the
/// DAI. Granted to the payee: approved.
#[test]
fn a_role_recorded_as_a_mapping_key_for_a_stranger_is_refused() {
    let mut b = bed();
    let a = b.a();
    let vault = keeper_vault(&mut b);
    let mut policy = b.policy(
        &[vault],
        &[selector::<KeeperVault::grantRoleCall>()],
        &[],
        &[],
    );
    let grant = |keeper: Address| {
        call(
            vault,
            &KeeperVault::grantRoleCall {
                role: keccak256("KEEPER"),
                keeper,
            },
        )
    };
    let e = b.evaluate_claimed(b.intent(vec![grant(stranger())]), &policy);
    assert!(
        codes(&e).contains(&Code::RoleHolderNotAllowed),
        "{:?}",
        e.decision
    );
    // Passed off as a zero-value Transfer to the keeper: a movement of nothing names no
    // balance, so the key is still a role.
    let mut quiet = policy.clone();
    quiet
        .allowed_selectors
        .push(selector::<KeeperVault::grantQuietlyCall>().into());
    let quietly = call(vault, &KeeperVault::grantQuietlyCall { keeper: stranger() });
    let e = b.evaluate_claimed(b.intent(vec![quietly]), &quiet);
    assert!(
        codes(&e).contains(&Code::RoleHolderNotAllowed),
        "{:?}",
        e.decision
    );
    assert!(
        e.report
            .rights
            .iter()
            .any(|r| r.kind == RightKind::RecordedAddress && r.holder == stranger()),
        "{:?}",
        e.report.rights
    );

    b.owner(&[grant(stranger())]);
    b.send(
        stranger(),
        vault,
        &KeeperVault::takeCall {
            user: a.account,
            token: a.dai,
        },
    );
    assert_eq!(b.balance(a.dai, stranger()), ether(100));

    policy.allowed_recipients = vec![a.payee];
    let e = b.evaluate_claimed(b.intent(vec![grant(a.payee)]), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
}

/// The same vault's `enrol`, which grants the keeper the vault keeps in its own storage: no
/// argument, event or code constant names it, but the fresh slot's key holds the account and
/// the keeper as a whole address word. A stranger set beforehand is refused; executed, it takes
/// the DAI. The payee set beforehand is approved.
#[test]
fn a_role_for_a_keeper_read_from_storage_is_refused() {
    let mut b = bed();
    let a = b.a();
    let vault = keeper_vault(&mut b);
    let mut policy = b.policy(&[vault], &[selector::<KeeperVault::enrolCall>()], &[], &[]);
    policy.allowed_recipients = vec![a.payee];
    let enrol = || call(vault, &KeeperVault::enrolCall {});
    b.send(
        stranger(),
        vault,
        &KeeperVault::setDefaultKeeperCall { keeper: stranger() },
    );
    let e = b.evaluate_claimed(b.intent(vec![enrol()]), &policy);
    assert!(
        codes(&e).contains(&Code::RoleHolderNotAllowed),
        "{:?}",
        e.decision
    );
    assert!(
        e.report
            .rights
            .iter()
            .any(|r| r.kind == RightKind::RecordedAddress && r.holder == stranger()),
        "{:?}",
        e.report.rights
    );

    let mut honest = b.world.evm.clone();
    b.owner(&[enrol()]);
    b.send(
        stranger(),
        vault,
        &KeeperVault::takeCall {
            user: a.account,
            token: a.dai,
        },
    );
    assert_eq!(b.balance(a.dai, stranger()), ether(100));

    std::mem::swap(&mut b.world.evm, &mut honest);
    b.send(
        stranger(),
        vault,
        &KeeperVault::setDefaultKeeperCall { keeper: a.payee },
    );
    let e = b.evaluate_claimed(b.intent(vec![enrol()]), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
}

/// The account's 100 DAI in a vault whose depositors name keepers in forms no storage word
/// holds whole: packed with the depositor into a hashed key (`abi.encodePacked(user, keeper,
/// tag)`), under a nested mapping's inner hash, or in two pieces across two slots. For a
/// stranger each is refused; executed, the stranger takes the DAI. For the payee, approved.
#[test]
fn a_stranger_named_packed_nested_or_in_pieces_is_refused() {
    let mut b = bed();
    let a = b.a();
    let vault = deploy(&mut b, "PackedKeys", &[]);
    b.owner(&[
        call(
            a.dai,
            &IERC20::approveCall {
                spender: vault,
                value: ether(100),
            },
        ),
        call(
            vault,
            &PackedKeys::depositCall {
                token: a.dai,
                amount: ether(100),
            },
        ),
    ]);
    let mut policy = b.policy(
        &[vault],
        &[
            selector::<PackedKeys::grantPackedCall>(),
            selector::<PackedKeys::grantNestedCall>(),
            selector::<PackedKeys::grantSplitCall>(),
        ],
        &[],
        &[],
    );
    let tag = 9u32;
    let grants = |keeper: Address| {
        [
            call(
                vault,
                &PackedKeys::grantPackedCall {
                    config: [keeper.as_slice(), &tag.to_be_bytes()].concat().into(),
                },
            ),
            call(vault, &PackedKeys::grantNestedCall { keeper }),
            call(vault, &PackedKeys::grantSplitCall { keeper }),
        ]
    };
    for (form, grant) in ["packed", "nested", "split"]
        .into_iter()
        .zip(grants(stranger()))
    {
        let e = b.evaluate_claimed(b.intent(vec![grant.clone()]), &policy);
        assert!(
            codes(&e).contains(&Code::RoleHolderNotAllowed),
            "{form}: {:?}",
            e.decision
        );
        assert!(
            e.report
                .rights
                .iter()
                .any(|r| r.kind == RightKind::RecordedAddress && r.holder == stranger()),
            "{form}: {:?}",
            e.report.rights
        );
    }
    // Executed (the split form), the stranger takes the DAI.
    b.owner(&[grants(stranger())[2].clone()]);
    b.send(
        stranger(),
        vault,
        &PackedKeys::takeCall {
            user: a.account,
            token: a.dai,
            tag,
        },
    );
    assert_eq!(b.balance(a.dai, stranger()), ether(100));

    policy.allowed_recipients = vec![a.payee];
    for (form, grant) in ["packed", "nested", "split"]
        .into_iter()
        .zip(grants(a.payee))
    {
        let e = b.evaluate_claimed(b.intent(vec![grant]), &policy);
        assert!(e.decision.approved(), "{form}: {:?}", e.decision.violations);
    }
}

/// Records under values the calls pass whole. A pre-signed order digest is opaque (what it
/// authorises cannot be read from it): refused, unless the policy names the contract in
/// `opaque_key_targets`. A role granted under the role hash the contract's code holds is a
/// role like any other: to the payee approved, to a stranger refused as the holder it records.
#[test]
fn a_record_under_an_opaque_digest_is_refused_and_a_role_hash_is_not_opaque() {
    let mut b = bed();
    let a = b.a();
    let records = deploy(&mut b, "OrderRecords", &[]);
    let mut policy = b.policy(
        &[records],
        &[
            selector::<OrderRecords::setPreSignatureCall>(),
            selector::<OrderRecords::grantRoleCall>(),
        ],
        &[],
        &[],
    );
    policy.allowed_recipients = vec![a.payee];
    let presign = call(
        records,
        &OrderRecords::setPreSignatureCall {
            digest: keccak256("an order selling everything for nothing"),
        },
    );
    let e = b.evaluate_claimed(b.intent(vec![presign.clone()]), &policy);
    assert_eq!(
        codes(&e),
        vec![Code::OpaqueAuthorization],
        "{:?}",
        e.decision
    );
    assert!(
        e.report
            .rights
            .iter()
            .any(|r| r.kind == RightKind::OpaqueKey && r.contract == records),
        "{:?}",
        e.report.rights
    );
    let mut trusting = policy.clone();
    trusting.opaque_key_targets = vec![records];
    let e = b.evaluate_claimed(b.intent(vec![presign]), &trusting);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);

    let role: B256 = b
        .world
        .evm
        .view_sol(records, &OrderRecords::KEEPERCall {})
        .unwrap();
    let grant = |holder: Address| call(records, &OrderRecords::grantRoleCall { role, holder });
    let e = b.evaluate_claimed(b.intent(vec![grant(a.payee)]), &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let e = b.evaluate_claimed(b.intent(vec![grant(stranger())]), &policy);
    assert_eq!(
        codes(&e),
        vec![Code::RoleHolderNotAllowed],
        "{:?}",
        e.decision
    );
}

/// A counterfactual wallet: its address depends on the salt only, so the policy names it (a
/// target to deploy through, a payee to fund), not its owner. Deployed for a stranger (the
/// owner an argument, packed in `bytes`, or in the wallet's code) and funded with 1 WETH in
/// the same batch: refused; executed, the stranger moves the WETH out. Deployed for the account
/// itself: approved and executed.
#[test]
fn a_wallet_deployed_for_the_account_but_owned_by_a_stranger_is_refused() {
    let mut b = bed();
    let a = b.a();
    let factory = deploy(&mut b, "RightsWalletFactory", &[]);
    let salt = B256::repeat_byte(0x77);
    let predicted: Address = b
        .world
        .evm
        .view_sol(factory, &RightsWalletFactory::predictCall { salt })
        .unwrap();
    let init = pace_contracts::artifacts()
        .unwrap()
        .get("RightsImmutableWallet")
        .unwrap()
        .deploy_code(&RightsImmutableWallet::constructorCall { owner_: stranger() }.abi_encode());
    let immutable = factory.create2(salt, keccak256(&init));
    let policy = b.policy(
        &[factory, a.weth],
        &[
            selector::<RightsWalletFactory::deployCall>(),
            selector::<RightsWalletFactory::deployPackedCall>(),
            selector::<RightsWalletFactory::deployImmutableCall>(),
            selector::<IERC20::transferCall>(),
        ],
        &[],
        &[predicted, immutable],
    );
    let policy = Policy {
        allowed_recipients: vec![predicted, immutable],
        ..policy
    };
    let fund = |to: Address| {
        call(
            a.weth,
            &IERC20::transferCall {
                to,
                value: ether(1),
            },
        )
    };
    let mut packed = vec![1u8];
    packed.extend_from_slice(stranger().as_slice());
    let attacks = [
        vec![
            call(
                factory,
                &RightsWalletFactory::deployCall {
                    salt,
                    owner: stranger(),
                },
            ),
            fund(predicted),
        ],
        vec![
            call(
                factory,
                &RightsWalletFactory::deployPackedCall {
                    salt,
                    config: packed.into(),
                },
            ),
            fund(predicted),
        ],
        vec![
            call(
                factory,
                &RightsWalletFactory::deployImmutableCall {
                    salt,
                    owner: stranger(),
                },
            ),
            fund(immutable),
        ],
    ];
    for calls in &attacks {
        let e = b.evaluate_claimed(b.intent(calls.clone()), &policy);
        assert!(
            codes(&e).contains(&Code::WalletOwnerNotAllowed),
            "{:?}",
            e.decision
        );
        assert!(
            e.report
                .rights
                .iter()
                .any(|r| r.kind == RightKind::CreatedContract && r.holder == stranger()),
            "{:?}",
            e.report.rights
        );
    }

    let mut world = b.world.clone();
    std::mem::swap(&mut world, &mut b.world);
    b.owner(&attacks[0]);
    let take = IERC20::transferCall {
        to: stranger(),
        value: ether(1),
    }
    .abi_encode();
    b.send(
        stranger(),
        predicted,
        &RightsWallet::executeCall {
            target: a.weth,
            value: U256::ZERO,
            data: Bytes::from(take),
        },
    );
    assert_eq!(b.balance(a.weth, stranger()), ether(1));
    std::mem::swap(&mut world, &mut b.world);

    let honest = b.intent(vec![
        call(
            factory,
            &RightsWalletFactory::deployCall {
                salt,
                owner: a.account,
            },
        ),
        fund(predicted),
    ]);
    let e = b.evaluate_claimed(honest, &policy);
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let done = b.submit(&e, &[a.weth]);
    assert!(matches!(done, ExecutionResult::Executed { .. }), "{done:?}");
    let owner: Address = b
        .world
        .evm
        .view_sol(predicted, &RightsWallet::ownerCall {})
        .unwrap();
    assert_eq!(owner, a.account);
}
