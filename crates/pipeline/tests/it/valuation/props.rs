//! Value judged by execution on the protocols' own bytecode, not by the verifier's account of
//! it.
//!
//! Random batches of one to three actions (Uniswap V3 swaps over one pool or two, to the
//! account, a stranger or the pool itself; V3 positions minted to the account or a stranger;
//! Aave V3 supply, borrow, repay and withdraw; Compound-style supply, borrow, repay and redeem;
//! WETH -> DAI through the Universal Router and Permit2; rights granted to the pool, the
//! account or a stranger: a Permit2 allowance, a credit
//! delegation, an ERC-20 approval),
//! from an account that already supplies and borrows in both markets, are evaluated under one
//! policy over the three protocols with the claims an honest agent makes. Every approval is
//! submitted through the account, and read from state:
//!
//! 1. it executes;
//! 2. no token reaches the stranger, no V3 position is minted to it, and it holds no right
//!    over the account after (its Permit2 allowance, its credit delegation, its ERC-20
//!    allowance of WETH and DAI read back at 0);
//! 3. the account's holdings (wallet, aTokens, cTokens at their exchange rate, V3 positions at
//!    what withdrawing them returns, less its Aave and Compound-style debts) fall, at the
//!    world's prices, by at most `max_loss_bps` of what left (plus a margin of
//!    [`PRICE_MARGIN_BPS`] for the pools' TWAPs, which the verifier trusts, against the world's
//!    round prices);
//! 4. the generator is not vacuous: at least a fifth of the batches approved, a tenth refused.

use super::support::{aave_policy, compound_policy, evaluate_honestly, v3_policy};
use crate::protocols_bed::{Bed, bed};
use alloy_primitives::{Address, I256, U256};
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    Protocols,
    actions::call,
    bindings::{MockCToken, NonfungiblePositionManager as Npm, SwapRouter},
    ether,
    uniswap_v3::{FEE_LOW, deadline},
    universal_router::v3_path,
};
use pace_types::{Call, Policy};
use proptest::{
    prelude::*,
    test_runner::{Config, TestCaseError, TestRunner},
};
use std::{cell::RefCell, collections::BTreeMap};

/// Cases per run (each a fresh copy of the bed, two simulations and an execution).
const CASES: u32 = 48;
/// The pools' TWAPs against the world's round prices, at most.
const PRICE_MARGIN_BPS: u64 = 30;
/// Rounding, in wei.
const EPSILON: u64 = 1_000_000;

#[derive(Clone, Copy, Debug)]
enum Who {
    Account,
    Stranger,
    Pool,
}

#[derive(Clone, Copy, Debug)]
enum Action {
    /// WETH -> DAI (or back) through the WETH/DAI pool, `milli` thousandths of a WETH's worth.
    Swap {
        sell_weth: bool,
        milli: u64,
        to: Who,
    },
    /// WETH -> USDC -> DAI through two pools.
    TwoHops { milli: u64 },
    /// A WETH/DAI position `spacings` tick spacings wide on each side of the price.
    Mint { milli: u64, spacings: i32, to: Who },
    /// Aave: supply WETH, borrow DAI, repay DAI, withdraw WETH.
    Aave { op: u8, milli: u64 },
    /// Compound-style: supply WETH, borrow DAI, repay DAI, redeem WETH.
    Compound { op: u8, milli: u64 },
    /// A right over the account to `to`: a Permit2 allowance of DAI (0), a credit delegation
    /// of DAI (1), an ERC-20 approval of WETH (2).
    Grant { kind: u8, milli: u64, to: Who },
    /// WETH -> DAI through the Universal Router and Permit2, to `to`.
    RouterSwap { milli: u64, to: Who },
}

fn who() -> impl Strategy<Value = Who> {
    prop_oneof![6 => Just(Who::Account), 1 => Just(Who::Stranger), 1 => Just(Who::Pool)]
}

fn milli() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 10u64..=5_000, 1 => 5_001u64..=60_000]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        3 => (any::<bool>(), milli(), who())
            .prop_map(|(sell_weth, milli, to)| Action::Swap { sell_weth, milli, to }),
        1 => milli().prop_map(|milli| Action::TwoHops { milli }),
        2 => (10u64..=3_000, 1i32..=40, prop_oneof![4 => Just(Who::Account), 1 => Just(Who::Stranger)])
            .prop_map(|(milli, spacings, to)| Action::Mint { milli, spacings, to }),
        2 => (0u8..4, milli()).prop_map(|(op, milli)| Action::Aave { op, milli }),
        2 => (0u8..4, milli()).prop_map(|(op, milli)| Action::Compound { op, milli }),
        1 => (0u8..3, milli(), who()).prop_map(|(kind, milli, to)| Action::Grant { kind, milli, to }),
        1 => (milli(), who()).prop_map(|(milli, to)| Action::RouterSwap { milli, to }),
    ]
}

fn weth(milli: u64) -> U256 {
    ether(milli) / U256::from(1_000u64)
}

fn dai(milli: u64) -> U256 {
    ether(milli)
}

fn party(b: &Bed, to: Who) -> Address {
    match to {
        Who::Account => b.a().account,
        Who::Stranger => b.a().attacker,
        Who::Pool => b.bed.uniswap_v3.weth_dai.address,
    }
}

fn calls(b: &Bed, actions: &[Action]) -> Vec<Call> {
    let (a, p) = (b.a(), &b.bed);
    let (v3, aave, c) = (p.uniswap_v3, &p.aave, p.compound);
    let d = deadline(&b.world.evm).unwrap();
    let mut out = Vec::new();
    for action in actions {
        match *action {
            Action::Swap {
                sell_weth,
                milli,
                to,
            } => {
                let (token, amount) = if sell_weth {
                    (a.weth, weth(milli))
                } else {
                    (a.dai, dai(milli))
                };
                out.extend(v3.exact_input_single(
                    &v3.weth_dai,
                    token,
                    amount,
                    U256::ZERO,
                    party(b, to),
                    d,
                ));
            }
            Action::TwoHops { milli } => {
                out.push(pace_testkit::protocols::actions::approve(
                    a.weth,
                    v3.swap_router,
                    weth(milli),
                ));
                out.push(call(
                    v3.swap_router,
                    &SwapRouter::exactInputCall {
                        params: SwapRouter::ExactInputParams {
                            path: v3_path(&[(a.weth, FEE_LOW), (a.usdc, FEE_LOW)], a.dai),
                            recipient: a.account,
                            deadline: d,
                            amountIn: weth(milli),
                            amountOutMinimum: U256::ZERO,
                        },
                    },
                ));
            }
            Action::Mint {
                milli,
                spacings,
                to,
            } => {
                let pool = v3.weth_dai;
                let tick = pool.slot0(&b.world.evm).unwrap().tick;
                let amounts = if pool.token0 == a.weth {
                    (weth(milli), dai(milli))
                } else {
                    (dai(milli), weth(milli))
                };
                out.extend(v3.mint_position(
                    &pool,
                    pool.range_around(tick, spacings),
                    amounts,
                    party(b, to),
                    d,
                ));
            }
            Action::Aave { op, milli } => match op {
                0 => out.extend(aave.supply(a.weth, weth(milli), a.account)),
                1 => out.push(aave.borrow(a.dai, dai(milli), a.account)),
                2 => out.extend(aave.repay(a.dai, dai(milli), a.account)),
                _ => out.push(aave.withdraw(a.weth, weth(milli), a.account)),
            },
            Action::Compound { op, milli } => match op {
                0 => out.extend(c.mint(&c.c_weth, weth(milli))),
                1 => out.push(c.borrow(&c.c_dai, dai(milli))),
                2 => out.extend(c.repay(&c.c_dai, dai(milli), dai(milli))),
                _ => out.push(c.redeem_underlying(&c.c_weth, weth(milli))),
            },
            Action::RouterSwap { milli, to } => out.extend(p.universal_router.v3_swap_via_permit2(
                &[(a.weth, pace_testkit::protocols::uniswap_v3::FEE_MEDIUM)],
                a.dai,
                weth(milli),
                U256::ZERO,
                party(b, to),
                b.world.evm.timestamp() + 600,
                d,
            )),
            Action::Grant { kind, milli, to } => match kind {
                0 => out.push(b.bed.universal_router.permit2_approve(
                    a.dai,
                    party(b, to),
                    alloy_primitives::aliases::U160::saturating_from(dai(milli)),
                    u64::from(u32::MAX),
                )),
                1 => out.push(aave.approve_delegation(&aave.dai, party(b, to), dai(milli))),
                _ => out.push(pace_testkit::protocols::actions::approve(
                    a.weth,
                    party(b, to),
                    weth(milli),
                )),
            },
        }
    }
    out
}

/// One policy over the three protocols.
fn policy(b: &Bed) -> Policy {
    let mut p = aave_policy(b);
    for other in [v3_policy(b), compound_policy(b)] {
        for t in other.allowed_targets {
            if !p.allowed_targets.contains(&t) {
                p.allowed_targets.push(t);
            }
        }
        p.allowed_selectors.extend(other.allowed_selectors);
        p.allowed_tokens.extend(other.allowed_tokens);
        p.allowed_touched.extend(other.allowed_touched);
        for cap in other.spend_caps {
            if p.spend_caps.iter().all(|c| c.token != cap.token) {
                p.spend_caps.push(cap);
            }
        }
        if !other.price_v3_pools.is_empty() {
            p.price_v3_pools = other.price_v3_pools;
        }
    }
    // The Universal Router with Permit2; rights: Permit2 allowances and credit delegation of
    // DAI, judged by their holder.
    use alloy_sol_types::SolCall;
    use pace_abi::rights::{ICreditDelegation, IPermit2};
    use pace_testkit::protocols::bindings::UniversalRouter;
    let (ur, dai) = (b.bed.universal_router, &b.bed.aave.dai);
    p.allowed_targets
        .extend([ur.permit2, ur.router, dai.variable_debt_token]);
    p.allowed_touched.extend([ur.permit2, ur.router]);
    p.allowed_selectors.extend(
        [
            UniversalRouter::executeCall::SELECTOR,
            IPermit2::approveCall::SELECTOR,
            ICreditDelegation::approveDelegationCall::SELECTOR,
        ]
        .map(alloy_primitives::aliases::B32::from),
    );
    p.allowed_selectors.sort();
    p.allowed_selectors.dedup();
    p
}

/// The stranger's rights over the account: its Permit2 allowance of DAI, its DAI credit
/// delegation, its ERC-20 allowance of WETH.
fn stranger_rights(b: &Bed) -> [U256; 3] {
    use alloy_sol_types::SolCall;
    let (a, p) = (b.a(), &b.bed);
    let read = |to: Address, data: Vec<u8>| {
        let out = b.world.evm.view(to, data.into()).unwrap();
        U256::from_be_slice(&out[..32])
    };
    let permit2 = pace_abi::rights::IPermit2::allowanceCall {
        user: a.account,
        token: a.dai,
        spender: a.attacker,
    };
    let delegation = pace_abi::rights::ICreditDelegation::borrowAllowanceCall {
        fromUser: a.account,
        toUser: a.attacker,
    };
    let erc20 = pace_abi::bindings::IERC20::allowanceCall {
        owner: a.account,
        spender: a.attacker,
    };
    [
        read(p.universal_router.permit2, permit2.abi_encode()),
        read(p.aave.dai.variable_debt_token, delegation.abi_encode()),
        read(a.weth, erc20.abi_encode()),
    ]
}

/// The account's holdings per asset (ether, WETH, DAI, USDC), as the state says: wallet,
/// aTokens, cTokens at their exchange rate, V3 positions at what withdrawing them all returns
/// (on a copy of the state), less Aave and Compound-style debts.
fn holdings(b: &Bed) -> [I256; 4] {
    let (a, p) = (b.a(), &b.bed);
    let s = |v: U256| I256::try_from(v).expect("fits");
    let mut exit = b.world.clone();
    withdraw_positions(&mut exit, p);
    let view = |w: &pace_world::World, t: Address| {
        pace_testkit::protocols::actions::balance(&w.evm, t, a.account).unwrap()
    };
    let mut h = [
        s(exit.evm.balance(a.account).unwrap()),
        s(view(&exit, a.weth)),
        s(view(&exit, a.dai)),
        s(view(&exit, a.usdc)),
    ];
    for (i, r) in p.aave.reserves().iter().enumerate() {
        h[i + 1] += s(view(&exit, r.a_token)) - s(view(&exit, r.variable_debt_token));
    }
    for (i, m) in p.compound.markets().iter().enumerate() {
        let rate = exit
            .evm
            .view_sol(m.c_token, &MockCToken::exchangeRateCurrentCall {})
            .unwrap();
        let held = view(&exit, m.c_token) * rate / ether(1);
        let owed = p
            .compound
            .borrow_balance_current(&exit.evm, m, a.account)
            .unwrap();
        h[i + 1] += s(held) - s(owed);
    }
    h
}

/// Withdraws every V3 position of the account to it, through the owner's path.
fn withdraw_positions(world: &mut pace_world::World, p: &Protocols) {
    let (a, npm) = (world.addrs, p.uniswap_v3.position_manager);
    let count = world
        .evm
        .view_sol(npm, &Npm::balanceOfCall { owner: a.account })
        .unwrap();
    let mut calls = Vec::new();
    for i in 0..count.to::<u64>() {
        let id = world
            .evm
            .view_sol(
                npm,
                &Npm::tokenOfOwnerByIndexCall {
                    owner: a.account,
                    index: U256::from(i),
                },
            )
            .unwrap();
        let position = world
            .evm
            .view_sol(npm, &Npm::positionsCall { tokenId: id })
            .unwrap();
        if position.liquidity > 0 {
            calls.push(call(
                npm,
                &Npm::decreaseLiquidityCall {
                    params: Npm::DecreaseLiquidityParams {
                        tokenId: id,
                        liquidity: position.liquidity,
                        amount0Min: U256::ZERO,
                        amount1Min: U256::ZERO,
                        deadline: U256::from(world.evm.timestamp() + 60),
                    },
                },
            ));
        }
        calls.push(call(
            npm,
            &Npm::collectCall {
                params: Npm::CollectParams {
                    tokenId: id,
                    recipient: a.account,
                    amount0Max: u128::MAX,
                    amount1Max: u128::MAX,
                },
            },
        ));
    }
    if !calls.is_empty() {
        pace_testkit::protocols::actions::owner_execute(&mut world.evm, &a, &calls)
            .unwrap_or_else(|e| panic!("withdrawing the positions: {e}"));
    }
}

/// The stranger's tokens and V3 positions.
fn stranger(b: &Bed) -> [U256; 5] {
    let (a, p) = (b.a(), &b.bed);
    let bal = |t| b.balance(t, a.attacker);
    [
        bal(a.weth),
        bal(a.dai),
        bal(a.usdc),
        bal(p.uniswap_v3.position_manager),
        b.world.evm.balance(a.attacker).unwrap(),
    ]
}

/// What the world's prices make of `amount` of asset `i` (ether, WETH, DAI, USDC), in wei.
fn worth(i: usize, amount: U256) -> U256 {
    match i {
        0 | 1 => amount,
        2 => amount / U256::from(1_000u64),
        _ => amount * U256::from(1_000_000_000u64),
    }
}

fn run_case(
    base: &Bed,
    policy: &Policy,
    actions: &[Action],
) -> Result<Result<(), Vec<String>>, TestCaseError> {
    let mut b = Bed {
        world: base.world.clone(),
        bed: base.bed.clone(),
        signer: base.signer.clone(),
    };
    let intent = b.intent(calls(&b, actions));
    let evaluation = evaluate_honestly(&b, intent, policy);
    if !evaluation.decision.approved() {
        return Ok(Err(evaluation
            .decision
            .codes()
            .map(|c| c.to_string())
            .collect()));
    }
    let case = || {
        format!(
            "actions {actions:#?}\nflows {:#?}",
            evaluation.report.token_flows
        )
    };
    let (held, seen) = (holdings(&b), stranger(&b));
    let result = b.submit(&evaluation, &[]);
    prop_assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "an approval did not execute: {result:?}\n{}",
        case()
    );
    for (i, (was, is)) in seen.iter().zip(stranger(&b)).enumerate() {
        prop_assert!(
            is <= *was,
            "the stranger gained asset {i}: {was} -> {is}\n{}",
            case()
        );
    }
    for (i, right) in stranger_rights(&b).into_iter().enumerate() {
        prop_assert!(
            right.is_zero(),
            "the stranger holds right {i} of {right} after\n{}",
            case()
        );
    }
    let after = holdings(&b);
    let (mut losses, mut gains) = (U256::ZERO, U256::ZERO);
    for i in 0..4 {
        let delta = after[i] - held[i];
        let value = worth(i, delta.unsigned_abs());
        if delta.is_negative() {
            losses += value;
        } else {
            gains += value;
        }
    }
    let bound = u64::from(policy.loss_bound_bps()) + PRICE_MARGIN_BPS;
    let allowed = losses * U256::from(bound) / U256::from(10_000u64) + U256::from(EPSILON);
    prop_assert!(
        losses <= gains + allowed,
        "the account lost {} wei, above {bound} bps of the {losses} wei that left\n{}",
        losses - gains,
        case()
    );
    Ok(Ok(()))
}

#[test]
fn approved_protocol_batches_execute_and_conserve_value() {
    let mut base = bed();
    let (a, p) = (base.a(), base.bed.clone());
    // The account already lends and borrows in both markets.
    let mut setup = p.aave.supply(a.weth, ether(20), a.account);
    setup.push(p.aave.borrow(a.dai, ether(5_000), a.account));
    setup.extend(p.compound.mint(&p.compound.c_weth, ether(20)));
    setup.push(p.compound.enter_markets(&[p.compound.c_weth]));
    setup.push(p.compound.borrow(&p.compound.c_dai, ether(5_000)));
    base.owner(&setup);
    let policy = policy(&base);
    let tally: RefCell<BTreeMap<&str, (u32, u32)>> = RefCell::default();
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CASES);
    // A fixed seed, so that CI runs the same batches every time (`PROPTEST_RNG_SEED`-style
    // exploration: set PROPTEST_CASES higher and change the seed by hand).
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = proptest::test_runner::TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let batch = prop_oneof![
        3 => prop::collection::vec(action(), 1),
        2 => prop::collection::vec(action(), 2),
        1 => prop::collection::vec(action(), 3),
    ];
    let outcome = runner.run(&batch, |actions| {
        let verdict = run_case(&base, &policy, &actions)?;
        let approved = verdict.is_ok();
        let mut t = tally.borrow_mut();
        if let Err(mut codes) = verdict {
            codes.dedup();
            for code in codes {
                let code: &'static str = Box::leak(code.into_boxed_str());
                t.entry(code).or_default().1 += 1;
            }
        }
        let e = t
            .entry(if approved { "approved" } else { "refused" })
            .or_default();
        e.0 += 1;
        for action in &actions {
            let kind = match action {
                Action::Swap { .. } => "swap",
                Action::TwoHops { .. } => "two hops",
                Action::Mint { .. } => "mint",
                Action::Aave { .. } => "aave",
                Action::Compound { .. } => "compound",
                Action::Grant { .. } => "grant",
                Action::RouterSwap { .. } => "universal router",
            };
            let k = t.entry(kind).or_default();
            if approved { k.0 += 1 } else { k.1 += 1 }
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let t = tally.into_inner();
    println!("{t:?}");
    let approved = t.get("approved").map_or(0, |e| e.0);
    let refused = t.get("refused").map_or(0, |e| e.0);
    assert_eq!(approved + refused, cases);
    assert!(
        approved * 5 >= cases,
        "only {approved} of {cases} approved: vacuous"
    );
    assert!(
        refused * 10 >= cases,
        "only {refused} of {cases} refused: vacuous"
    );
}
