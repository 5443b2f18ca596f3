//! The whole pipeline on a remote node's state: the embedded world copied onto anvil, reached
//! through a latency-injecting proxy (50 ms per HTTP round trip by default). For an ERC-20
//! transfer and a Uniswap V2 approve + swap, `Pipeline::evaluate` (prefetch, pass 1 in the
//! account's frame, verify, sign, pass 2 on the signed transaction and its other runs) on a
//! fresh fork (cold), then a second, different intent of the same kind on the same block
//! (warm). The proxy counts the round trips and JSON-RPC requests.
//!
//! Cold and warm count state round trips only: connecting and polling the head block are
//! printed apart. Every evaluation (report, decision, signed PDR) must equal the one made on a
//! fork of the node without proxy: the prefetch never changes a result.
//!
//! `make bench-remote` (release build); `PACE_REMOTE_LATENCY_MS` sets the latency,
//! `PACE_REMOTE_REPS` the repetitions (median wall time; the counts are deterministic).

#![allow(missing_docs)]

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Router02};
use pace_evm::{CacheLimits, DEFAULT_SPEC, ForkCache, InProcessEvm};
use pace_node::{LatencyProxy, ProxyStats};
use pace_pipeline::{Evaluation, Pipeline, Relayer};
use pace_signer::PdrSigner;
use pace_types::{Approval, Call, Claims, CompiledPolicy, Intent, TokenAmount};
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

fn intent(world: &World, calls: Vec<Call>, claimed: Claims) -> Intent {
    Intent {
        chain_id: world.evm.chain_id(),
        account: world.addrs.account,
        calls,
        claimed,
        metadata: Default::default(),
    }
}

/// `amount` DAI to the allow-listed payee.
fn transfer(world: &World, amount: u64) -> Intent {
    pace_testkit::intents::dai_to_payee(world, pace_testkit::ether(amount))
}

/// Approve the router for `amount` WETH and swap it for DAI, at most 0.5 % below the quote.
fn swap(world: &World, amount: u64) -> Intent {
    let a = &world.addrs;
    let amount = pace_testkit::ether(amount);
    let path = vec![a.weth, a.dai];
    let quote = world
        .evm
        .view_sol(
            a.router,
            &IUniswapV2Router02::getAmountsOutCall {
                amountIn: amount,
                path: path.clone(),
            },
        )
        .expect("a quote")[1];
    let approve = IERC20::approveCall {
        spender: a.router,
        value: amount,
    };
    let swap = IUniswapV2Router02::swapExactTokensForTokensCall {
        amountIn: amount,
        amountOutMin: quote * U256::from(9_950u64) / U256::from(10_000u64),
        path,
        to: a.account,
        deadline: world.deadline(),
    };
    let claimed = Claims {
        approvals: vec![Approval {
            token: a.weth,
            spender: a.router,
            amount,
        }],
        outflows: vec![TokenAmount {
            token: a.weth,
            amount,
        }],
        slippage_bps: Some(50),
        touched: vec![],
    };
    intent(
        world,
        vec![call(a.weth, &approve), call(a.router, &swap)],
        claimed,
    )
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
    warm: Phase,
    memory_bytes: usize,
}

/// The bench's one evaluation: approved and checked by pass 2, or the bench means nothing.
fn evaluate(
    pipeline: &Pipeline,
    fork: &InProcessEvm,
    intent: &Intent,
    policy: &CompiledPolicy,
) -> Evaluation {
    let eval = pipeline.evaluate(fork, intent, policy, 0).unwrap();
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    assert!(eval.checked.is_some(), "pass 2: {:?}", eval.refused);
    eval
}

fn run(
    proxy: &LatencyProxy,
    pipeline: &Pipeline,
    intents: [&Intent; 2],
    policy: &CompiledPolicy,
    expected: &[Evaluation; 2],
) -> Run {
    // Connecting: the chain id and the head block, one round trip.
    let (cache, setup) = phase(proxy, || {
        ForkCache::connect(proxy.url(), CacheLimits::default()).unwrap()
    });
    // Polling the head block, as every intent does (the block state is shared while it stays).
    let (fork, head) = phase(proxy, || cache.fork(None, DEFAULT_SPEC).unwrap());
    let (eval, cold) = phase(proxy, || evaluate(pipeline, &fork, intents[0], policy));
    assert_eq!(eval, expected[0], "prefetching changed the evaluation");
    let fork = cache.fork(None, DEFAULT_SPEC).unwrap();
    let (eval, warm) = phase(proxy, || evaluate(pipeline, &fork, intents[1], policy));
    assert_eq!(eval, expected[1], "prefetching changed the evaluation");
    Run {
        setup,
        head,
        cold,
        warm,
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
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x5e)).unwrap();
    let world = World::new(signer.address()).expect("build the embedded world");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (anvil, _client) = runtime
        .block_on(pace_testkit::on_node::world_on_anvil(&world.evm))
        .expect("the world on anvil (run `npm ci` if anvil is missing)");
    let proxy = LatencyProxy::start(anvil.url(), latency).unwrap();
    let policy = CompiledPolicy::try_from(default_policy(&world.addrs)).unwrap();
    let pipeline = Pipeline::new(signer)
        .with_relayer(Relayer::free(world.addrs.relayer, world.evm.tx_gas_limit()));
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
        // The same evaluations on a fork of the node itself, without the proxy.
        let direct = InProcessEvm::fork(anvil.url(), None).unwrap();
        let expected = [&cold, &warm].map(|i| evaluate(&pipeline, &direct, i, &policy));
        let runs: Vec<Run> = (0..reps)
            .map(|_| run(&proxy, &pipeline, [&cold, &warm], &policy, &expected))
            .collect();
        let last = runs.last().unwrap();
        let ms = |f: fn(&Run) -> f64| median(runs.iter().map(f).collect());
        println!(
            "remote evaluate: case={case} latency_ms={} cold_round_trips={} warm_round_trips={} cold_ms={:.1} warm_ms={:.1}",
            latency.as_millis(),
            last.cold.net.round_trips,
            last.warm.net.round_trips,
            ms(|r| r.cold.ms),
            ms(|r| r.warm.ms),
        );
        println!(
            "remote detail: case={case} setup_round_trips={} setup_ms={:.1} head_poll_round_trips={} head_poll_ms={:.1} cold_requests={} warm_requests={} cache_memory_bytes={}",
            last.setup.net.round_trips,
            ms(|r| r.setup.ms),
            last.head.net.round_trips,
            ms(|r| r.head.ms),
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
