//! Prefetching forked state from a real anvil holding the embedded world: the same intents
//! give byte-identical reports with and without prefetch, the prefetched simulation reads
//! nothing more from the node, and the round trips the client counts are the ones the wire
//! (a counting proxy) saw.

use alloy::providers::Provider;
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Router02};
use pace_evm::{CacheLimits, DEFAULT_SPEC, ForkCache, InProcessEvm, RpcStats};
use pace_node::{Anvil, LatencyProxy, NodeClient};
use pace_simulator::{SimulateOptions, Simulation, prefetch, simulate_detailed};
use pace_testkit::{ether, on_node::world_on_anvil};
use pace_types::{Call, Intent};
use pace_world::{World, default_policy};
use std::time::Duration;

struct Node {
    world: World,
    anvil: Anvil,
    client: NodeClient,
    runtime: tokio::runtime::Runtime,
    proxy: LatencyProxy,
    options: SimulateOptions,
}

fn node() -> Node {
    let world = World::new(Address::repeat_byte(0x5e)).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (anvil, client) = runtime.block_on(world_on_anvil(&world.evm)).unwrap();
    let proxy = LatencyProxy::start(anvil.url(), Duration::ZERO).unwrap();
    let options = SimulateOptions::for_policy(&default_policy(&world.addrs));
    Node {
        world,
        anvil,
        client,
        runtime,
        proxy,
        options,
    }
}

fn call<C: SolCall>(target: Address, c: &C) -> Call {
    Call {
        target,
        value: U256::ZERO,
        data: Bytes::from(c.abi_encode()),
    }
}

fn intents(world: &World) -> Vec<(&'static str, Intent)> {
    let a = &world.addrs;
    let intent = |calls| Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls,
        claimed: Default::default(),
        metadata: Default::default(),
    };
    let transfer = |value| call(a.dai, &IERC20::transferCall { to: a.payee, value });
    let swap = IUniswapV2Router02::swapExactTokensForTokensCall {
        amountIn: ether(1),
        amountOutMin: U256::ZERO,
        path: vec![a.weth, a.dai],
        to: a.account,
        deadline: world.deadline(),
    };
    let approve = IERC20::approveCall {
        spender: a.router,
        value: ether(1),
    };
    vec![
        ("transfer", intent(vec![transfer(ether(5))])),
        (
            "approve + swap",
            intent(vec![call(a.weth, &approve), call(a.router, &swap)]),
        ),
        // More DAI than the account holds: reverts.
        (
            "reverting transfer",
            intent(vec![transfer(ether(10_000_000))]),
        ),
    ]
}

/// Simulates and returns the simulation with what it asked the node, checking the client's
/// count against the proxy's.
fn measured(n: &Node, fork: &InProcessEvm, intent: &Intent) -> (Simulation, RpcStats) {
    let rpc = fork.backend().rpc().unwrap();
    let (client, wire) = (rpc.stats(), n.proxy.stats());
    let sim = simulate_detailed(fork, intent, &n.options).unwrap();
    let asked = rpc.stats().since(&client);
    assert_eq!(asked.round_trips, n.proxy.stats().since(&wire).round_trips);
    (sim, asked)
}

#[test]
fn prefetching_gives_byte_identical_reports_and_leaves_nothing_to_read() {
    let n = node();
    for (name, intent) in intents(&n.world) {
        // Without prefetch: every key is a round trip of its own.
        let plain = InProcessEvm::fork(n.proxy.url(), None).unwrap();
        let (expected, lazy) = measured(&n, &plain, &intent);
        assert!(lazy.misses >= 5, "{name}: {lazy:?}");
        assert_eq!(lazy.misses, lazy.round_trips, "{name}");

        // With prefetch, on a fork of the block cache.
        let cache = ForkCache::connect(n.proxy.url(), CacheLimits::default()).unwrap();
        let fork = cache.fork(None, DEFAULT_SPEC).unwrap();
        assert_eq!(fork.fork_block(), plain.fork_block());
        let wire = n.proxy.stats();
        let phases = prefetch(&fork, &intent, &n.options).unwrap();
        let total = phases.total();
        assert_eq!(total.round_trips, n.proxy.stats().since(&wire).round_trips);
        assert_eq!(
            total.misses, 0,
            "{name}: the prefetch itself reads no single key"
        );
        // The access lists and traces named state, and the traces carried its values: the first
        // round trip fetched it.
        assert_eq!(phases.access_lists.round_trips, 1, "{name}: {phases:?}");
        assert!(phases.access_lists.requests >= 8, "{name}: {phases:?}");
        // Issue #13's target: at most three state round trips for a cold intent.
        assert!(total.round_trips <= 3, "{name}: {phases:?}");
        assert!(
            total.round_trips < lazy.round_trips,
            "{name}: {phases:?} vs {lazy:?}"
        );
        let (got, after) = measured(&n, &fork, &intent);
        assert_eq!(
            after,
            RpcStats::default(),
            "{name}: the simulation read more"
        );
        assert_eq!(got, expected, "{name}");
        assert_eq!(
            serde_json::to_vec(&got.report).unwrap(),
            serde_json::to_vec(&expected.report).unwrap()
        );

        // The same intent again on the same block: nothing new, no round trip at all.
        let again = cache.at(fork.block_number()).unwrap();
        let again = InProcessEvm::from_backend(again, DEFAULT_SPEC);
        let wire = n.proxy.stats();
        assert_eq!(
            prefetch(&again, &intent, &n.options).unwrap().total(),
            RpcStats::default()
        );
        assert_eq!(measured(&n, &again, &intent).0, expected);
        assert_eq!(n.proxy.stats().since(&wire).round_trips, 0, "{name}");

        // The fallback without access lists or traces: speculative runs alone.
        let bare = InProcessEvm::fork(n.proxy.url(), None).unwrap();
        let found = bare
            .discover(|w| {
                let _ = simulate_detailed(w, &intent, &n.options);
            })
            .unwrap();
        assert!(
            found.runs >= 2 && found.fetched >= 8 && !found.capped,
            "{name}: {found:?}"
        );
        let (got, after) = measured(&n, &bare, &intent);
        assert_eq!(after.round_trips, 0, "{name}");
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn a_new_block_gets_a_new_state_and_the_cache_stays_within_its_limits() {
    let n = node();
    let (_, intent) = intents(&n.world).remove(0);
    let limits = CacheLimits {
        blocks: 2,
        bytes: usize::MAX,
    };
    let cache = ForkCache::connect(n.proxy.url(), limits).unwrap();
    let first = cache.fork(None, DEFAULT_SPEC).unwrap();
    prefetch(&first, &intent, &n.options).unwrap();
    let used = cache.memory_bytes();
    assert!(used > 1_000, "{used}");
    assert_eq!(used, first.backend().rpc().unwrap().memory_bytes());

    for _ in 0..2 {
        let _: String = n
            .runtime
            .block_on(n.client.provider().raw_request("evm_mine".into(), ()))
            .unwrap();
        let next = cache.fork(None, DEFAULT_SPEC).unwrap();
        assert!(next.block_number() > first.block_number());
        // Nothing of the old block is reused: the new one starts empty and fetches again.
        assert_eq!(next.backend().rpc().unwrap().memory_bytes(), 0);
        let phases = prefetch(&next, &intent, &n.options).unwrap();
        assert!(phases.total().round_trips >= 2, "{phases:?}");
    }
    let blocks = cache.blocks();
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert!(
        !blocks
            .iter()
            .any(|(number, _)| *number == first.block_number())
    );
    // The evicted block's fork still works from what it holds.
    assert!(
        simulate_detailed(&first, &intent, &n.options)
            .unwrap()
            .report
            .success
    );

    // A byte bound evicts down to the block in use.
    let tight = ForkCache::connect(
        n.proxy.url(),
        CacheLimits {
            blocks: 8,
            bytes: 1,
        },
    )
    .unwrap();
    let fork = tight
        .fork(Some(first.block_number()), DEFAULT_SPEC)
        .unwrap();
    prefetch(&fork, &intent, &n.options).unwrap();
    tight.fork(None, DEFAULT_SPEC).unwrap();
    assert_eq!(tight.blocks().len(), 1);
    drop(n.anvil);
}
