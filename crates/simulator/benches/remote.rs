//! Simulating on a remote node's state: the embedded world copied onto anvil, reached through a
//! latency-injecting proxy (50 ms per HTTP round trip by default), for an ERC-20 transfer and a
//! Uniswap V2 approve + swap on a fresh fork (cold) and then a second, different intent on the
//! same block (warm). The proxy counts the round trips and JSON-RPC requests.
//!
//! `make bench-remote` (release build); `PACE_REMOTE_LATENCY_MS` sets the latency,
//! `PACE_REMOTE_REPS` the repetitions (median wall time; the counts are deterministic).

#![allow(missing_docs)]

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Router02};
use pace_evm::InProcessEvm;
use pace_node::{LatencyProxy, ProxyStats};
use pace_simulator::SimulateOptions;
use pace_testkit::ether;
use pace_types::{Call, Intent};
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

/// Runs the intent's calls in order from the account on a copy of `fork` (what execution
/// alone reads from the node).
fn execute(fork: &InProcessEvm, intent: &Intent) {
    let mut copy = fork.clone();
    for c in &intent.calls {
        copy.call(intent.account, c.target, c.value, c.data.clone())
            .expect("the node answers");
    }
}

struct Run {
    setup: Phase,
    exec: Phase,
    valuation: Phase,
    warm: Phase,
}

fn run(proxy: &LatencyProxy, cold: &Intent, warm: &Intent, options: &SimulateOptions) -> Run {
    let (fork, setup) = phase(proxy, || InProcessEvm::fork(proxy.url(), None).unwrap());
    let ((), exec) = phase(proxy, || execute(&fork, cold));
    let (report, valuation) = phase(proxy, || {
        pace_simulator::simulate_with(&fork, cold, options).unwrap()
    });
    assert!(report.success, "{report:?}");
    let (report, warm) = phase(proxy, || {
        pace_simulator::simulate_with(&fork, warm, options).unwrap()
    });
    assert!(report.success, "{report:?}");
    Run {
        setup,
        exec,
        valuation,
        warm,
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
        let runs: Vec<Run> = (0..reps)
            .map(|_| run(&proxy, &cold, &warm, &options))
            .collect();
        let last = runs.last().unwrap();
        let cold_rt = last.exec.net.round_trips + last.valuation.net.round_trips;
        let cold_req = last.exec.net.requests + last.valuation.net.requests;
        let cold_ms = median(runs.iter().map(|r| r.exec.ms + r.valuation.ms).collect());
        let warm_ms = median(runs.iter().map(|r| r.warm.ms).collect());
        println!(
            "remote sim: case={case} latency_ms={} cold_round_trips={cold_rt} warm_round_trips={} cold_ms={cold_ms:.1} warm_ms={warm_ms:.1}",
            latency.as_millis(),
            last.warm.net.round_trips,
        );
        println!(
            "remote detail: case={case} setup_round_trips={} setup_ms={:.1} exec_round_trips={} exec_requests={} valuation_round_trips={} valuation_requests={} cold_requests={cold_req} warm_requests={}",
            last.setup.net.round_trips,
            median(runs.iter().map(|r| r.setup.ms).collect()),
            last.exec.net.round_trips,
            last.exec.net.requests,
            last.valuation.net.round_trips,
            last.valuation.net.requests,
            last.warm.net.requests,
        );
        let mut methods = last.exec.net.methods.clone();
        for (m, n) in &last.valuation.net.methods {
            *methods.entry(m.clone()).or_default() += n;
        }
        println!("remote methods: case={case} cold {methods:?}");
    }
    drop(proxy);
    drop(anvil);
}
