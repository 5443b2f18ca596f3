//! The pipeline on real Uniswap V2 bytecode (Factory, Pair, Router02, WETH9 and the
//! fee-on-transfer DeflatingERC20 from npm): a bounded approve + swap batch, the fee-on-transfer
//! shortfall, and a front-run between simulation and execution with and without outcome bounds.

use crate::door::{evaluate, execute};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Router02};
use pace_pipeline::{ExecutionResult, PipelineConfig};
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{
    Approval, Call, Claims, CompiledPolicy, Intent, TokenAmount, ViolationCode as Code,
    pdr::BoundKind,
};
use pace_world::{World, default_policy};

fn setup() -> (World, PdrSigner, CompiledPolicy) {
    let signer = PdrSigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
    let world = World::new(signer.address()).unwrap();
    let policy = CompiledPolicy::try_from(default_policy(&world.addrs)).unwrap();
    (world, signer, policy)
}

fn call<C: SolCall>(target: Address, c: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: Bytes::from(c.abi_encode()),
    }
}

/// approve(router, amount_in) + swapExactTokensForTokens(amount_in, min_out, [input, output]).
fn swap_intent(
    world: &World,
    input: Address,
    output: Address,
    amount_in: U256,
    min_out: U256,
) -> Intent {
    let a = &world.addrs;
    Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls: vec![
            call(
                input,
                &IERC20::approveCall {
                    spender: a.router,
                    value: amount_in,
                },
            ),
            call(
                a.router,
                &IUniswapV2Router02::swapExactTokensForTokensCall {
                    amountIn: amount_in,
                    amountOutMin: min_out,
                    path: vec![input, output],
                    to: a.account,
                    deadline: world.deadline(),
                },
            ),
        ],
        claimed: Claims {
            approvals: vec![Approval {
                token: input,
                spender: a.router,
                amount: amount_in,
            }],
            outflows: vec![TokenAmount {
                token: input,
                amount: amount_in,
            }],
            slippage_bps: None,
            touched: vec![],
        },
        metadata: Default::default(),
    }
}

fn quote(world: &World, amount_in: U256, path: Vec<Address>) -> U256 {
    world
        .evm
        .view_sol(
            world.addrs.router,
            &IUniswapV2Router02::getAmountsOutCall {
                amountIn: amount_in,
                path,
            },
        )
        .unwrap()[1]
}

fn front_run(world: &mut World, weth_in: U256) {
    let a = world.addrs;
    world
        .evm
        .call_sol(
            a.trader,
            a.router,
            U256::ZERO,
            &IUniswapV2Router02::swapExactTokensForTokensCall {
                amountIn: weth_in,
                amountOutMin: U256::ZERO,
                path: vec![a.weth, a.dai],
                to: a.trader,
                deadline: world.deadline(),
            },
        )
        .unwrap();
}

#[test]
fn bounded_swap_on_router02_executes_and_matches_get_amounts_out() {
    let (mut world, signer, policy) = setup();
    let a = world.addrs;
    let expected = quote(&world, ether(2), vec![a.weth, a.dai]);
    let intent = swap_intent(
        &world,
        a.weth,
        a.dai,
        ether(2),
        expected * U256::from(9_950u64) / U256::from(10_000u64),
    );
    let eval = evaluate(
        &world.evm,
        &intent,
        &policy,
        &signer,
        &PipelineConfig::default(),
    )
    .unwrap();
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    let swap = eval.report.swap.as_ref().expect("swap facts");
    assert_eq!(
        swap.amount_out, expected,
        "simulated output equals Router02.getAmountsOut"
    );
    let signed = eval.record.signed().unwrap();
    let balances = signed
        .pdr
        .bounds
        .iter()
        .filter(|b| b.kind() == Some(BoundKind::Balance));
    assert_eq!(
        balances.count(),
        2,
        "a ceiling on WETH out and a floor on DAI in"
    );

    world.advance(1);
    match execute(
        &mut world.evm,
        a.relayer,
        eval.checked.as_ref().unwrap(),
        &[a.weth, a.dai],
    )
    .unwrap()
    {
        ExecutionResult::Executed {
            balance_changes, ..
        } => {
            let dai = balance_changes.iter().find(|c| c.token == a.dai).unwrap();
            assert_eq!(dai.delta.into_raw(), expected);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn fee_on_transfer_shortfall_is_seen_in_simulation() {
    let (world, signer, mut_policy) = setup();
    let a = world.addrs;
    // A policy that allows the fee token, so only the economics can stop the trade.
    let mut policy = mut_policy.into_policy();
    policy.allowed_tokens.push(a.fee_token);
    policy.allowed_targets.push(a.fee_token);
    policy.allowed_touched.push(a.pair_weth_fee);
    policy.max_price_impact_bps = 200;
    let policy = CompiledPolicy::try_from(policy).unwrap();

    let quoted = quote(&world, ether(1), vec![a.weth, a.fee_token]);
    let intent = swap_intent(
        &world,
        a.weth,
        a.fee_token,
        ether(1),
        quoted * U256::from(9_950u64) / U256::from(10_000u64),
    );
    let eval = evaluate(
        &world.evm,
        &intent,
        &policy,
        &signer,
        &PipelineConfig::default(),
    )
    .unwrap();
    let swap = eval.report.swap.as_ref().expect("swap facts");
    // The pair sends `quoted`, the token burns 1 % on the way: the account receives less.
    assert!(
        swap.amount_out < quoted,
        "received {} vs pool output {quoted}",
        swap.amount_out
    );
    assert!(eval.report.loss_bps.unwrap() >= 100);
    assert!(!eval.decision.approved(), "the verifier sees the shortfall");
    assert!(
        eval.decision.has(Code::SwapOutputBelowMinimum),
        "{:?}",
        eval.decision.violations
    );
}

/// Another account trades first, between simulation and execution. With outcome bounds the
/// account reverts the swap on-chain; without them (the paper's PDR) it executes at a loss.
#[test]
fn front_run_reverts_with_bounds_and_executes_at_a_loss_without() {
    for bounds in [true, false] {
        let (mut world, signer, policy) = setup();
        let a = world.addrs;
        // The agent leaves the router's own min-out at zero; the bound is the only guard.
        let mut intent = swap_intent(&world, a.weth, a.dai, ether(5), U256::ZERO);
        intent.claimed.slippage_bps = None;
        let mut policy_no_slippage = policy.clone().into_policy();
        policy_no_slippage.checks.slippage = false; // isolate the on-chain outcome bound
        let policy_no_slippage = CompiledPolicy::try_from(policy_no_slippage).unwrap();
        let config = PipelineConfig {
            outcome_bounds: bounds,
            ..PipelineConfig::default()
        };
        let eval = evaluate(&world.evm, &intent, &policy_no_slippage, &signer, &config).unwrap();
        assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
        let simulated_out = eval.report.swap.as_ref().unwrap().amount_out;

        world.advance(1);
        front_run(&mut world, ether(300));
        let result = execute(
            &mut world.evm,
            a.relayer,
            eval.checked.as_ref().unwrap(),
            &[a.weth, a.dai],
        )
        .unwrap();
        if bounds {
            match result {
                ExecutionResult::Reverted { error, .. } => {
                    assert!(
                        error.starts_with("PaceAccountOutcomeOutOfBounds"),
                        "{error}"
                    )
                }
                other => panic!("bounded swap after a front-run: {other:?}"),
            }
        } else {
            match result {
                ExecutionResult::Executed {
                    balance_changes, ..
                } => {
                    let got = balance_changes
                        .iter()
                        .find(|c| c.token == a.dai)
                        .unwrap()
                        .delta
                        .into_raw();
                    assert!(
                        got < simulated_out * U256::from(9_500u64) / U256::from(10_000u64),
                        "lost > 5 %: {got} vs {simulated_out}"
                    );
                }
                other => panic!("unbounded swap after a front-run: {other:?}"),
            }
        }
    }
}
