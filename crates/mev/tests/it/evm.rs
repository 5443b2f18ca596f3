//! Differential test: the optimiser's sandwich replayed on real Uniswap V2 bytecode.

use alloy_primitives::{Address, U256};
use pace_contracts::bindings::{IERC20, IUniswapV2Pair, IUniswapV2Router02, IWETH9};
use pace_mev::{AttackOutcome, MevReport, Pool, Victim, optimise};
use pace_testkit::ether;
use pace_world::World;

/// The WETH/DAI pool as the victim (selling WETH for DAI) sees it.
fn pool(w: &World) -> Pool {
    let (r0, r1, _) = w
        .evm
        .view_sol(w.addrs.pair_weth_dai, &IUniswapV2Pair::getReservesCall {})
        .unwrap()
        .into();
    let token0 = w
        .evm
        .view_sol(w.addrs.pair_weth_dai, &IUniswapV2Pair::token0Call {})
        .unwrap();
    let (r0, r1) = (U256::from(r0), U256::from(r1));
    let (reserve_in, reserve_out) = if token0 == w.addrs.weth {
        (r0, r1)
    } else {
        (r1, r0)
    };
    Pool::uniswap_v2(reserve_in, reserve_out)
}

fn swap(
    w: &mut World,
    from: Address,
    amount_in: U256,
    min_out: U256,
    path: Vec<Address>,
) -> pace_evm::Result<U256> {
    let deadline = w.deadline();
    let router = w.addrs.router;
    let amounts = w.evm.call_sol(
        from,
        router,
        U256::ZERO,
        &IUniswapV2Router02::swapExactTokensForTokensCall {
            amountIn: amount_in,
            amountOutMin: min_out,
            path,
            to: from,
            deadline,
        },
    )?;
    Ok(*amounts.last().unwrap())
}

/// Replays front-run, victim swap and back-run on chain; returns (victim out, attacker profit).
fn replay(report: &MevReport) -> (U256, U256) {
    let mut w = World::new(Address::repeat_byte(0x5e)).unwrap();
    assert_eq!(pool(&w), report.pool, "the world's pool is the optimiser's");
    let (weth, dai, router) = (w.addrs.weth, w.addrs.dai, w.addrs.router);
    let (attacker, victim) = (w.addrs.attacker, w.addrs.trader);

    let budget = report.budget;
    w.evm
        .call_sol(attacker, weth, budget, &IWETH9::depositCall {})
        .unwrap();
    for token in [weth, dai] {
        w.evm
            .call_sol(
                attacker,
                token,
                U256::ZERO,
                &IERC20::approveCall {
                    spender: router,
                    value: U256::MAX,
                },
            )
            .unwrap();
    }
    let start = w.balance_of(weth, attacker);

    let mut bought = U256::ZERO;
    if !report.front_run.is_zero() {
        bought = swap(
            &mut w,
            attacker,
            report.front_run,
            U256::ZERO,
            vec![weth, dai],
        )
        .unwrap();
        assert_eq!(bought, report.sandwich.front_run_out);
    }
    let dai_before = w.balance_of(dai, victim);
    let out = swap(
        &mut w,
        victim,
        report.victim.amount_in,
        report.victim.amount_out_min,
        vec![weth, dai],
    )
    .unwrap();
    assert_eq!(w.balance_of(dai, victim) - dai_before, out);
    if !bought.is_zero() {
        swap(&mut w, attacker, bought, U256::ZERO, vec![dai, weth]).unwrap();
    }
    let end = w.balance_of(weth, attacker);
    (out, end - start)
}

#[test]
fn optimal_sandwich_replays_exactly_on_uniswap_v2() {
    let world = World::new(Address::repeat_byte(0x5e)).unwrap();
    let pool = pool(&world);
    // (victim WETH, slippage bps, budget WETH): a 100 WETH victim moves the price ~2 %, worth
    // sandwiching up to its slippage; in the last case the budget binds, not the slippage.
    for (amount, slippage, budget) in [(100, 100, 1_000), (100, 10, 1_000), (300, 200, 20)] {
        let victim = Victim::with_slippage(&pool, ether(amount), slippage).unwrap();
        let report = optimise(&pool, &victim, ether(budget)).unwrap();
        assert_eq!(report.outcome, AttackOutcome::Profitable);
        let (victim_out, profit) = replay(&report);
        assert_eq!(
            victim_out, report.victim_out_attacked,
            "{amount} WETH @ {slippage} bps"
        );
        assert_eq!(
            profit, report.attacker_profit,
            "{amount} WETH @ {slippage} bps"
        );
        assert!(victim_out < report.victim_out_clean);
        if budget == 20 {
            // The budget binds (to within rounding: a few wei less can round better).
            assert!(ether(budget) - report.front_run < U256::from(1_000));
        } else {
            assert_eq!(report.front_run, report.max_feasible_front_run);
        }
    }

    let victim = Victim::with_slippage(&pool, ether(100), 100).unwrap();
    let report = optimise(&pool, &victim, ether(1_000)).unwrap();
    // One wei more front-run and the victim's own min-out makes its swap revert on chain.
    let mut w = World::new(Address::repeat_byte(0x5e)).unwrap();
    let (weth, dai) = (w.addrs.weth, w.addrs.dai);
    let (attacker, trader) = (w.addrs.attacker, w.addrs.trader);
    let too_much = report.max_feasible_front_run + U256::from(1);
    w.evm
        .call_sol(attacker, weth, too_much, &IWETH9::depositCall {})
        .unwrap();
    let router = w.addrs.router;
    w.evm
        .call_sol(
            attacker,
            weth,
            U256::ZERO,
            &IERC20::approveCall {
                spender: router,
                value: U256::MAX,
            },
        )
        .unwrap();
    swap(&mut w, attacker, too_much, U256::ZERO, vec![weth, dai]).unwrap();
    let reverted = swap(
        &mut w,
        trader,
        victim.amount_in,
        victim.amount_out_min,
        vec![weth, dai],
    );
    let err = reverted.unwrap_err();
    assert!(
        format!("{err}").contains("INSUFFICIENT_OUTPUT_AMOUNT"),
        "{err}"
    );
}

#[test]
fn no_attack_replay_gives_the_clean_output() {
    let world = World::new(Address::repeat_byte(0x5e)).unwrap();
    let pool = pool(&world);
    // The paper's default: 10 WETH at 1 %; its price impact cannot pay two 0.3 % fees.
    let victim = Victim::with_slippage(&pool, ether(10), 100).unwrap();
    let report = optimise(&pool, &victim, ether(100)).unwrap();
    assert_eq!(report.outcome, AttackOutcome::Unprofitable);
    let (victim_out, profit) = replay(&report);
    assert_eq!(victim_out, report.victim_out_clean);
    assert_eq!(profit, U256::ZERO);
}
