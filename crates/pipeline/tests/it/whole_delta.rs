//! Outcome bounds come from the whole simulated delta, not from what the calldata names: the
//! LP tokens an `addLiquidity` mints are never named by its calldata (the pair's address is
//! the factory's business), yet the signed PDR bounds their inflow, so an execution whose
//! state moved between simulation and inclusion reverts on-chain. Real Uniswap V2 bytecode.

use crate::door::{evaluate, execute};
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Pair, IUniswapV2Router02};
use pace_pipeline::{ExecutionResult, PipelineConfig};
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{Approval, Call, Claims, CompiledPolicy, Intent, TokenAmount};
use pace_world::{World, default_policy};

fn call<C: SolCall>(target: Address, c: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: Bytes::from(c.abi_encode()),
    }
}

/// approve WETH and DAI to the router, then addLiquidity(10 WETH, the matching DAI, no
/// minimums) to the account: the router's own bounds are off, so the signed bound is the only
/// guard.
fn add_liquidity(world: &World) -> Intent {
    add_liquidity_of(world, ether(10))
}

/// [`add_liquidity`] of `weth` and the matching DAI.
fn add_liquidity_of(world: &World, weth: U256) -> Intent {
    let a = &world.addrs;
    let reserves = world
        .evm
        .view_sol(a.pair_weth_dai, &IUniswapV2Pair::getReservesCall {})
        .unwrap();
    let token0 = world
        .evm
        .view_sol(a.pair_weth_dai, &IUniswapV2Pair::token0Call {})
        .unwrap();
    let (r_weth, r_dai) = if token0 == a.weth {
        (U256::from(reserves.reserve0), U256::from(reserves.reserve1))
    } else {
        (U256::from(reserves.reserve1), U256::from(reserves.reserve0))
    };
    let dai = weth * r_dai / r_weth;
    Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls: vec![
            call(
                a.weth,
                &IERC20::approveCall {
                    spender: a.router,
                    value: weth,
                },
            ),
            call(
                a.dai,
                &IERC20::approveCall {
                    spender: a.router,
                    value: dai,
                },
            ),
            call(
                a.router,
                &IUniswapV2Router02::addLiquidityCall {
                    tokenA: a.weth,
                    tokenB: a.dai,
                    amountADesired: weth,
                    amountBDesired: dai,
                    amountAMin: U256::ZERO,
                    amountBMin: U256::ZERO,
                    to: a.account,
                    deadline: world.deadline(),
                },
            ),
        ],
        claimed: Claims {
            approvals: vec![
                Approval {
                    token: a.weth,
                    spender: a.router,
                    amount: weth,
                },
                Approval {
                    token: a.dai,
                    spender: a.router,
                    amount: dai,
                },
            ],
            outflows: vec![
                TokenAmount {
                    token: a.weth,
                    amount: weth,
                },
                TokenAmount {
                    token: a.dai,
                    amount: dai,
                },
            ],
            ..Claims::default()
        },
        metadata: Default::default(),
    }
}

/// The world's policy, extended the way a liquidity provider would: addLiquidity allowed,
/// the pair's LP token an allowed token, the factory (asked for the pair and its fee switch)
/// an allowed touched contract; slippage switched off to isolate the bound.
fn policy(world: &World) -> CompiledPolicy {
    let a = &world.addrs;
    let mut p = default_policy(&world.addrs);
    p.allowed_selectors
        .push(IUniswapV2Router02::addLiquidityCall::SELECTOR.into());
    p.allowed_tokens.push(a.pair_weth_dai);
    p.allowed_touched.push(a.factory);
    p.checks.slippage = false;
    CompiledPolicy::try_from(p).unwrap()
}

fn front_run(world: &mut World) {
    let a = world.addrs;
    world
        .evm
        .call_sol(
            a.trader,
            a.router,
            U256::ZERO,
            &IUniswapV2Router02::swapExactTokensForTokensCall {
                amountIn: ether(300),
                amountOutMin: U256::ZERO,
                path: vec![a.weth, a.dai],
                to: a.trader,
                deadline: world.deadline(),
            },
        )
        .unwrap();
}

#[test]
fn lp_tokens_the_calldata_never_names_are_bounded_on_chain() {
    for moved in [false, true] {
        let signer = PdrSigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
        let mut world = World::new(signer.address()).unwrap();
        let a = world.addrs;
        let intent = add_liquidity(&world);
        let policy = policy(&world);
        let eval = evaluate(
            &world.evm,
            &intent,
            &policy,
            &signer,
            &PipelineConfig::default(),
        )
        .unwrap();
        assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
        let signed = eval.record.signed().unwrap();
        let lp_bound = signed
            .pdr
            .bounds
            .iter()
            .find(|b| b.token == a.pair_weth_dai)
            .expect("the LP inflow is bounded");
        assert!(lp_bound.minIn > U256::ZERO);

        world.advance(1);
        if moved {
            front_run(&mut world);
        }
        let result = execute(
            &mut world.evm,
            a.relayer,
            eval.checked.as_ref().unwrap(),
            &[a.pair_weth_dai],
        )
        .unwrap();
        match (moved, result) {
            (
                false,
                ExecutionResult::Executed {
                    balance_changes, ..
                },
            ) => {
                let lp = balance_changes
                    .iter()
                    .find(|c| c.token == a.pair_weth_dai)
                    .unwrap()
                    .delta
                    .into_raw();
                assert!(lp >= lp_bound.minIn);
            }
            (true, ExecutionResult::Reverted { error, .. }) => assert!(
                error.starts_with("PaceAccountOutcomeOutOfBounds"),
                "{error}"
            ),
            (moved, other) => panic!("front-run {moved}: {other:?}"),
        }
    }
}

/// The issuer-holdings bounds' false rejections on honest deposits: liquidity added in twelve
/// sizes (0.01 to 20 WETH, the policy's cap), one after the other, each executed a block after its simulation,
/// alone or after an unrelated 1 WETH swap by someone else (the pool's price moved by the
/// swap, so the router deposits other amounts than simulated). Every PDR carries a bound on
/// the pair's holdings of both tokens; what reverts on an honest deposit is printed.
#[test]
fn issuer_holding_bounds_on_honest_deposits() {
    let sizes = [
        1u64, 5, 10, 50, 100, 250, 500, 750, 1_000, 1_250, 1_500, 2_000,
    ];
    for drift in [false, true] {
        let signer = PdrSigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
        let mut world = World::new(signer.address()).unwrap();
        let a = world.addrs;
        let policy = policy(&world);
        let mut reverted = Vec::new();
        for &centi in &sizes {
            let weth = ether(centi) / U256::from(100u64);
            let intent = add_liquidity_of(&world, weth);
            let eval = evaluate(
                &world.evm,
                &intent,
                &policy,
                &signer,
                &PipelineConfig::default(),
            )
            .unwrap();
            assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
            let pdr = &eval.record.signed().unwrap().pdr;
            let holdings: Vec<_> = pdr
                .bounds
                .iter()
                .filter(|b| b.kind == pace_types::pdr::BoundKind::Holding as u8)
                .map(|b| b.token)
                .collect();
            assert!(
                holdings.contains(&a.weth) && holdings.contains(&a.dai),
                "{centi}: {:?}",
                pdr.bounds
            );
            world.advance(1);
            if drift {
                world
                    .evm
                    .call_sol(
                        a.trader,
                        a.router,
                        U256::ZERO,
                        &IUniswapV2Router02::swapExactTokensForTokensCall {
                            amountIn: ether(1),
                            amountOutMin: U256::ZERO,
                            path: vec![a.weth, a.dai],
                            to: a.trader,
                            deadline: world.deadline(),
                        },
                    )
                    .unwrap();
            }
            match execute(
                &mut world.evm,
                a.relayer,
                eval.checked.as_ref().unwrap(),
                &[a.pair_weth_dai],
            )
            .unwrap()
            {
                ExecutionResult::Executed { .. } => {}
                ExecutionResult::Reverted { error, .. } => reverted.push((centi, error)),
                other => panic!("{centi}: {other:?}"),
            }
        }
        println!(
            "issuer holdings, honest deposits (drift {drift}): {} of {} reverted {:?}",
            reverted.len(),
            sizes.len(),
            reverted
        );
        if !drift {
            assert!(reverted.is_empty(), "{reverted:?}");
        }
    }
}
