//! Simulation throughput on the test fixture world: an ERC-20 transfer and a Router02
//! approve + swap. `cargo bench -p pace-simulator --bench simulate`.

#![allow(missing_docs)]

use alloy_primitives::U256;
use criterion::{Criterion, criterion_group, criterion_main};
use pace_contracts::bindings::{IERC20, IUniswapV2Router02};
use pace_simulator::simulate;
use pace_testkit::fixture::{BOB, DEADLINE, call, ether, intent, world};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let w = world();
    let transfer = intent(
        w.account,
        vec![call(
            w.a,
            &IERC20::transferCall {
                to: BOB,
                value: ether(10),
            },
        )],
    );
    assert!(simulate(&w.evm, &transfer).unwrap().success);
    c.bench_function("simulate/erc20_transfer", |b| {
        b.iter(|| simulate(black_box(&w.evm), black_box(&transfer)).unwrap())
    });

    let swap = intent(
        w.account,
        vec![
            call(
                w.a,
                &IERC20::approveCall {
                    spender: w.router,
                    value: ether(100),
                },
            ),
            call(
                w.router,
                &IUniswapV2Router02::swapExactTokensForTokensCall {
                    amountIn: ether(100),
                    amountOutMin: U256::ZERO,
                    path: vec![w.a, w.b],
                    to: w.account,
                    deadline: U256::from(DEADLINE),
                },
            ),
        ],
    );
    assert!(simulate(&w.evm, &swap).unwrap().swap.is_some());
    c.bench_function("simulate/router02_approve_swap", |b| {
        b.iter(|| simulate(black_box(&w.evm), black_box(&swap)).unwrap())
    });

    // For comparison: what a full copy of this (small) world costs.
    c.bench_function("world_clone", |b| b.iter(|| black_box(&w.evm).clone()));
}

criterion_group!(benches, bench);
criterion_main!(benches);
