//! Simulating on a remote node's state: the embedded world copied onto anvil, reached through a
//! latency-injecting proxy (50 ms per HTTP round trip by default), for an ERC-20 transfer and a
//! Uniswap V2 approve + swap on a fresh fork (cold) and then a second, different intent on the
//! same block (warm). The proxy counts the round trips and JSON-RPC requests.
//!
//! Each intent is prefetched (`pace_simulator::prefetch`) and simulated on a fork from a
//! `pace_evm::ForkCache`; cold and warm count state round trips only: connecting and polling
//! the head block are printed apart. Every report must equal the one simulated on a fork of
//! the node without proxy or prefetch.
//!
//! `make bench-remote` (release build); `PACE_REMOTE_LATENCY_MS` sets the latency,
//! `PACE_REMOTE_REPS` the repetitions (median wall time; the counts are deterministic).

#![allow(missing_docs)]

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Router02};
use pace_evm::{CacheLimits, DEFAULT_SPEC, ForkCache, InProcessEvm, RpcStats};
use pace_node::{LatencyProxy, ProxyStats};
use pace_simulator::{Prefetch, SimulateOptions};
use pace_testkit::ether;
use pace_types::{Call, Intent, SimulationReport};
use pace_world::{World, default_policy};
use std::time::{Duration, Instant};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v}: not a number"))
        })
        .unwrap_or(default)
}

fn call<C: SolCall>(target: Address, c: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: Bytes::from(c.abi_encode()),
    }
}

fn intent(world: &World, calls: Vec<Call>) -> Intent {
    Intent {
        chain_id: world.evm.chain_id(),
        account: world.addrs.account,
        calls,
        claimed: Default::default(),
        metadata: Default::default(),
    }
}

fn transfer(world: &World, amount: u64) -> Intent {
    let a = &world.addrs;
    let to = a.payee;
    intent(
        world,
        vec![call(
            a.dai,
            &IERC20::transferCall {
                to,
                value: ether(amount),
            },
        )],
    )
}

fn swap(world: &World, amount: u64) -> Intent {
    let a = &world.addrs;
    let approve = IERC20::approveCall {
        spender: a.router,
        value: ether(amount),
    };
    let swap = IUniswapV2Router02::swapExactTokensForTokensCall {
        amountIn: ether(amount),
        amountOutMin: U256::ZERO,
        path: vec![a.weth, a.dai],
        to: a.account,
        deadline: world.deadline(),
    };
    intent(world, vec![call(a.weth, &approve), call(a.router, &swap)])
}

/// One measured phase: wall time and what crossed the proxy.
struct Phase {
    ms: f64,
    net: ProxyStats,
}

fn phase<T>(proxy: &LatencyProxy, f: impl FnOnce() -> T) -> (T, Phase) {
    let before = proxy.stats();
    let t = Instant::now();
    let out = f();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    (
        out,
        Phase {
            ms,
            net: proxy.stats().since(&before),
        },
    )
}

struct Run {
    setup: Phase,
    head: Phase,
    cold: Phase,
    cold_phases: Prefetch,
    cold_simulate: RpcStats,
    warm: Phase,
    warm_simulate: RpcStats,
    memory_bytes: usize,
}

/// Prefetches and simulates `intent` on `fork`: the report, what the simulation itself still
/// fetched, and the prefetch's phases.
fn simulate(
    fork: &InProcessEvm,
    intent: &Intent,
    options: &SimulateOptions,
) -> (SimulationReport, RpcStats, Prefetch) {
    let phases = pace_simulator::prefetch(fork, intent, options).unwrap();
    let before = fork.backend().rpc().unwrap().stats();
    let report = pace_simulator::simulate_with(fork, intent, options).unwrap();
    let simulate = fork.backend().rpc().unwrap().stats().since(&before);
    assert!(report.success, "{report:?}");
    (report, simulate, phases)
}

fn run(
    proxy: &LatencyProxy,
    cold: &Intent,
    warm: &Intent,
    options: &SimulateOptions,
    expected: &[SimulationReport; 2],
) -> Run {
    // Connecting: the chain id and the head block, one round trip.
    let (cache, setup) = phase(proxy, || {
        ForkCache::connect(proxy.url(), CacheLimits::default()).unwrap()
    });
    // Polling the head block, as every intent does (the block state is shared while it stays).
    let (fork, head) = phase(proxy, || cache.fork(None, DEFAULT_SPEC).unwrap());
    let ((report, cold_simulate, cold_phases), cold) =
        phase(proxy, || simulate(&fork, cold, options));
    assert_eq!(report, expected[0], "prefetching changed the report");
    let fork = cache.fork(None, DEFAULT_SPEC).unwrap();
    let ((report, warm_simulate, _), warm) = phase(proxy, || simulate(&fork, warm, options));
    assert_eq!(report, expected[1], "prefetching changed the report");
    Run {
        setup,
        head,
        cold,
        cold_phases,
        cold_simulate,
        warm,
        warm_simulate,
        memory_bytes: cache.memory_bytes(),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let latency = Duration::from_millis(env_u64("PACE_REMOTE_LATENCY_MS", 50));
    let reps = env_u64("PACE_REMOTE_REPS", 3).max(1);
    let world = World::new(Address::repeat_byte(0x5e)).expect("build the embedded world");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (anvil, _client) = runtime
        .block_on(pace_testkit::on_node::world_on_anvil(&world.evm))
        .expect("the world on anvil (run `npm ci` if anvil is missing)");
    let proxy = LatencyProxy::start(anvil.url(), latency).unwrap();
    let options = SimulateOptions::for_policy(&default_policy(&world.addrs));
    eprintln!(
        "anvil pid {} at {}, proxy at {} (+{} ms per round trip), {reps} reps",
        anvil.pid(),
        anvil.url(),
        proxy.url(),
        latency.as_millis()
    );
    for (case, cold, warm) in [
        ("transfer", transfer(&world, 5), transfer(&world, 7)),
        ("swap", swap(&world, 1), swap(&world, 2)),
    ] {
        // The reports of the same intents on a fork of the node itself, without prefetching.
        let direct = InProcessEvm::fork(anvil.url(), None).unwrap();
        let expected =
            [&cold, &warm].map(|i| pace_simulator::simulate_with(&direct, i, &options).unwrap());
        let runs: Vec<Run> = (0..reps)
            .map(|_| run(&proxy, &cold, &warm, &options, &expected))
            .collect();
        let last = runs.last().unwrap();
        let ms = |f: fn(&Run) -> f64| median(runs.iter().map(f).collect());
        println!(
            "remote sim: case={case} latency_ms={} cold_round_trips={} warm_round_trips={} cold_ms={:.1} warm_ms={:.1}",
            latency.as_millis(),
            last.cold.net.round_trips,
            last.warm.net.round_trips,
            ms(|r| r.cold.ms),
            ms(|r| r.warm.ms),
        );
        let p = &last.cold_phases;
        println!(
            "remote detail: case={case} setup_round_trips={} setup_ms={:.1} head_poll_round_trips={} head_poll_ms={:.1} access_list_round_trips={} discovery_round_trips={} simulate_round_trips={} simulate_misses={} warm_simulate_misses={} cold_requests={} warm_requests={} cache_memory_bytes={}",
            last.setup.net.round_trips,
            ms(|r| r.setup.ms),
            last.head.net.round_trips,
            ms(|r| r.head.ms),
            p.access_lists.round_trips,
            p.execution.round_trips,
            last.cold_simulate.round_trips,
            last.cold_simulate.misses,
            last.warm_simulate.misses,
            last.cold.net.requests,
            last.warm.net.requests,
            last.memory_bytes,
        );
        println!(
            "remote methods: case={case} cold {:?}",
            last.cold.net.methods
        );
    }
    drop(proxy);
    drop(anvil);
}
