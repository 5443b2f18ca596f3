//! False rejections of the rights and lending-health rules, measured on honest actions on the
//! bed's real bytecode: Uniswap V3 swaps and liquidity, the Universal Router through Permit2,
//! Aave V3 and the Compound-style market (supply, borrow within the minimum, repay, withdraw),
//! an NFT listing and a credit delegation to a counterparty. None may raise a health or a
//! control code, and every right they show is held by a counterparty.

use crate::protocols_bed::{Bed, bed, codes, selector};
use alloy_primitives::{Address, U256, aliases::U160};
use pace_abi::{bindings::IERC20, rights::ICreditDelegation};
use pace_testkit::protocols::{
    bindings::{AavePool, MockCToken, MockComptroller, MockPermit2, NonfungiblePositionManager},
    uniswap_v3::{FEE_MEDIUM, deadline},
};
use pace_types::{Call, Policy, RightKind, TokenAmount, ViolationCode as Code, units::ether};

/// A policy that allows everything the bed deploys.
fn permissive(b: &Bed) -> Policy {
    let (a, bed) = (b.a(), &b.bed);
    let v3 = &bed.uniswap_v3;
    let c = bed.compound;
    let ur = bed.universal_router;
    let mut targets = vec![
        a.weth,
        a.dai,
        a.usdc,
        v3.swap_router,
        v3.position_manager,
        ur.router,
        ur.permit2,
        bed.aave.pool,
        c.comptroller,
    ];
    let mut tokens = vec![v3.position_manager];
    for r in bed.aave.reserves() {
        targets.push(r.variable_debt_token);
        tokens.extend([r.a_token, r.variable_debt_token]);
    }
    for m in c.markets() {
        targets.push(m.c_token);
        tokens.push(m.c_token);
    }
    let mut touched = b.aave_contracts();
    touched.extend(v3.pools().iter().map(|p| p.address));
    touched.extend([
        v3.factory,
        ur.permit2,
        ur.router,
        c.comptroller,
        a.pair_weth_dai,
        a.factory,
    ]);
    touched.extend(c.markets().iter().map(|m| m.c_token));
    let mut p = b.policy(
        &targets,
        &[
            selector::<IERC20::approveCall>(),
            selector::<MockPermit2::approveCall>(),
            selector::<pace_testkit::protocols::bindings::UniversalRouter::executeCall>(),
            selector::<pace_testkit::protocols::bindings::SwapRouter::exactInputSingleCall>(),
            selector::<NonfungiblePositionManager::mintCall>(),
            selector::<AavePool::supplyCall>(),
            selector::<AavePool::borrowCall>(),
            selector::<AavePool::repayCall>(),
            selector::<AavePool::withdrawCall>(),
            selector::<ICreditDelegation::approveDelegationCall>(),
            selector::<MockCToken::mintCall>(),
            selector::<MockCToken::borrowCall>(),
            selector::<MockCToken::repayBorrowCall>(),
            selector::<MockCToken::redeemUnderlyingCall>(),
            selector::<MockComptroller::enterMarketsCall>(),
        ],
        &tokens,
        &touched,
    );
    for t in tokens {
        p.spend_caps.push(TokenAmount {
            token: t,
            amount: if t == v3.position_manager {
                U256::from(1u8)
            } else {
                ether(100_000)
            },
        });
    }
    p
}

/// One honest action: a name, what the owner did before, and the intent's calls.
struct Action {
    name: &'static str,
    setup: Vec<Call>,
    calls: Vec<Call>,
}

fn actions(b: &Bed) -> Vec<Action> {
    let (a, bed) = (b.a(), &b.bed);
    let (v3, aave, c, ur) = (
        bed.uniswap_v3,
        bed.aave.clone(),
        bed.compound,
        bed.universal_router,
    );
    let dl = deadline(&b.world.evm).unwrap();
    let pool = v3.weth_dai;
    let (amount0, amount1) = if pool.token0 == a.weth {
        (ether(1), ether(1_000))
    } else {
        (ether(1_000), ether(1))
    };
    let expiration = b.world.evm.timestamp() + 600;
    let supplied = aave.supply(a.weth, ether(10), a.account);
    let mut borrowed = supplied.clone();
    borrowed.push(aave.borrow(a.dai, ether(4_000), a.account));
    let mut in_compound = vec![c.enter_markets(&[c.c_weth])];
    in_compound.extend(c.mint(&c.c_weth, ether(10)));
    let mut owing = in_compound.clone();
    owing.push(c.borrow(&c.c_dai, ether(2_000)));
    let mint = v3.mint_position(&pool, pool.full_range(), (amount0, amount1), a.account, dl);
    vec![
        Action {
            name: "V3 swap through SwapRouter",
            setup: vec![],
            calls: v3.exact_input_single(&pool, a.weth, ether(1), U256::ZERO, a.account, dl),
        },
        Action {
            name: "V3 position mint",
            setup: vec![],
            calls: mint.clone(),
        },
        Action {
            name: "V3 swap through the Universal Router and Permit2",
            setup: vec![],
            calls: ur.v3_swap_via_permit2(
                &[(a.weth, FEE_MEDIUM)],
                a.dai,
                ether(1),
                U256::ZERO,
                a.account,
                expiration,
                dl,
            ),
        },
        Action {
            name: "V2 swap through the Universal Router and Permit2",
            setup: vec![],
            calls: ur.v2_swap_via_permit2(
                &[a.weth, a.dai],
                ether(1),
                U256::ZERO,
                a.account,
                expiration,
                dl,
            ),
        },
        Action {
            name: "Permit2 allowance to the router, kept for later",
            setup: vec![],
            calls: vec![
                ur.approve_permit2(a.dai, ether(500)),
                ur.permit2_approve(a.dai, ur.router, U160::from(ether(500)), expiration),
            ],
        },
        Action {
            name: "Aave supply",
            setup: vec![],
            calls: supplied.clone(),
        },
        Action {
            name: "Aave borrow within the minimum",
            setup: supplied.clone(),
            calls: vec![aave.borrow(a.dai, ether(4_000), a.account)],
        },
        Action {
            name: "Aave repay",
            setup: borrowed.clone(),
            calls: aave.repay(a.dai, ether(1_000), a.account),
        },
        Action {
            name: "Aave withdraw within the minimum",
            setup: borrowed.clone(),
            calls: vec![aave.withdraw(a.weth, ether(2), a.account)],
        },
        Action {
            name: "Aave credit delegation to a counterparty",
            setup: supplied,
            calls: vec![aave.approve_delegation(&aave.dai, v3.swap_router, ether(10))],
        },
        Action {
            name: "Compound enter and supply",
            setup: vec![],
            calls: in_compound.clone(),
        },
        Action {
            name: "Compound borrow within the minimum",
            setup: in_compound.clone(),
            calls: vec![c.borrow(&c.c_dai, ether(2_000))],
        },
        Action {
            name: "Compound repay",
            setup: owing.clone(),
            calls: c.repay(&c.c_dai, ether(500), ether(500)),
        },
        Action {
            name: "Compound redeem within the minimum",
            setup: owing,
            calls: vec![c.redeem_underlying(&c.c_weth, ether(1))],
        },
        Action {
            name: "NFT listing (approve one position)",
            setup: mint,
            calls: vec![],
        },
    ]
}

/// The codes of the rights and lending-health rules.
const RULES: [Code; 5] = [
    Code::HealthFactorTooLow,
    Code::HealthFactorUnreadable,
    Code::ControllerNotAllowed,
    Code::RoleHolderNotAllowed,
    Code::WalletOwnerNotAllowed,
];

#[test]
fn honest_protocol_actions_raise_no_rights_or_health_code() {
    let template = bed();
    let list = actions(&template);
    let (mut approved, mut rights, total) = (0, 0, list.len());
    for action in list {
        let mut b = bed();
        let policy = permissive(&b);
        if !action.setup.is_empty() {
            b.owner(&action.setup);
        }
        let calls = if action.calls.is_empty() {
            // The listing: approve the position the setup minted to an allowed marketplace.
            let v3 = &b.bed.uniswap_v3;
            let id = b
                .world
                .evm
                .view_sol(
                    v3.position_manager,
                    &NonfungiblePositionManager::tokenOfOwnerByIndexCall {
                        owner: b.a().account,
                        index: U256::ZERO,
                    },
                )
                .unwrap();
            vec![pace_testkit::protocols::actions::call(
                v3.position_manager,
                &IERC20::approveCall {
                    spender: b.bed.universal_router.router,
                    value: id,
                },
            )]
        } else {
            action.calls
        };
        let mut intent = b.intent(calls);
        let compiled = pace_types::CompiledPolicy::try_from(policy.clone()).unwrap();
        intent = b.claimed(intent, &compiled);
        // An item approval claims one item.
        for claim in &mut intent.claimed.approvals {
            if claim.token == b.bed.uniswap_v3.position_manager {
                claim.amount = U256::from(1u8);
            }
        }
        let e = b.evaluate(&intent, &policy);
        let raised: Vec<Code> = codes(&e)
            .into_iter()
            .filter(|c| RULES.contains(c))
            .collect();
        assert!(
            raised.is_empty(),
            "{}: {raised:?} {:?}",
            action.name,
            e.decision
        );
        let allowed =
            |h: &Address| policy.allowed_targets.contains(h) || policy.allowed_touched.contains(h);
        // Every right names a counterparty: an allowance to one, or a control right (the
        // spender an NFT approval records) held by one.
        for r in &e.report.rights {
            let allowance = matches!(
                r.kind,
                RightKind::Permit2Allowance | RightKind::CreditDelegation
            );
            assert!(
                allowed(&r.holder) && (allowance || r.kind == RightKind::RecordedAddress),
                "{}: {r:?}",
                action.name
            );
            rights += 1;
        }
        for code in [
            Code::SpenderNotAllowed,
            Code::UnlimitedApproval,
            Code::ApprovalExceedsCap,
        ] {
            assert!(
                !codes(&e).contains(&code),
                "{}: {:?}",
                action.name,
                e.decision
            );
        }
        if e.decision.approved() {
            approved += 1;
        } else {
            eprintln!("{}: refused by other rules: {:?}", action.name, codes(&e));
        }
    }
    eprintln!(
        "{approved} of {total} honest actions approved; none raised a rights or health code; \
         {rights} rights seen, each held by a counterparty"
    );
}
