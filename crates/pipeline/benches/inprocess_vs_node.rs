//! Simulating the same ERC-20 transfer and AMM swap in process (revm) and through a real
//! anvil's JSON-RPC, side by side in one run, at two levels:
//!
//! - plain execution: `InProcessEvm::simulate` vs `eth_call`;
//! - traced simulation, what the pipeline needs: `pace_simulator::simulate` (frames, logs,
//!   balance and allowance reads, derived facts) vs `debug_traceCall` with the call tracer and
//!   logs (frames and logs only, still without the balance reads).
//!
//! `cargo bench -p pace-pipeline --bench inprocess_vs_node`; needs `npm ci` (anvil).

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{IERC20, MockAmmRouter, MockERC20};
use pace_evm::InProcessEvm;
use pace_node::{Anvil, CallOutcome, NodeClient, Tx};
use pace_testkit::ether;
use pace_types::{Call, Intent};
use std::hint::black_box;
use std::time::Instant;

const N: u32 = 2_000;

struct Fixture {
    account: Address,
    token_a: Address,
    router: Address,
    transfer: Bytes,
    swap: Bytes,
}

/// The deployment and setup transactions, as (to, data) with `None` for a create.
fn setup_txs(deployer: Address) -> Vec<(Option<Address>, Bytes)> {
    let artifacts = pace_contracts::artifacts().unwrap();
    let token = |s: &str| {
        artifacts.get("MockERC20").unwrap().deploy_code(
            &MockERC20::constructorCall {
                name_: s.into(),
                symbol_: s.into(),
                decimals_: 18,
            }
            .abi_encode(),
        )
    };
    // Addresses follow from the deployer's nonce: 0 token A, 1 token B, 2 router.
    let a = deployer.create(0);
    let b = deployer.create(1);
    let router = deployer.create(2);
    let mut txs = vec![
        (None, token("A")),
        (None, token("B")),
        (
            None,
            artifacts.get("MockAmmRouter").unwrap().deploy_code(&[]),
        ),
    ];
    for t in [a, b] {
        txs.push((
            Some(t),
            MockERC20::mintCall {
                to: deployer,
                amount: ether(2_000_000),
            }
            .abi_encode()
            .into(),
        ));
        txs.push((
            Some(t),
            IERC20::approveCall {
                spender: router,
                value: U256::MAX,
            }
            .abi_encode()
            .into(),
        ));
    }
    txs.push((
        Some(router),
        MockAmmRouter::addLiquidityCall {
            tokenA: a,
            tokenB: b,
            amountADesired: ether(1_000_000),
            amountBDesired: ether(1_000_000),
            amountAMin: U256::ZERO,
            amountBMin: U256::ZERO,
            to: deployer,
            deadline: U256::from(u64::MAX),
        }
        .abi_encode()
        .into(),
    ));
    txs
}

fn fixture(deployer: Address) -> Fixture {
    let (a, b, router) = (deployer.create(0), deployer.create(1), deployer.create(2));
    Fixture {
        account: deployer,
        token_a: a,
        router,
        transfer: IERC20::transferCall {
            to: Address::repeat_byte(0xbe),
            value: ether(5),
        }
        .abi_encode()
        .into(),
        swap: MockAmmRouter::swapExactTokensForTokensCall {
            amountIn: ether(10),
            amountOutMin: U256::ZERO,
            path: vec![a, b],
            to: deployer,
            deadline: U256::from(u64::MAX),
        }
        .abi_encode()
        .into(),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let anvil = Anvil::spawn().unwrap();
    let deployer = Anvil::dev_address(0);
    let f = fixture(deployer);

    // In process: the same transactions from the same sender give the same addresses.
    let mut evm = InProcessEvm::new(anvil.chain_id());
    evm.fund(deployer, ether(1_000)).unwrap();
    for (to, data) in setup_txs(deployer) {
        match to {
            None => {
                evm.deploy(deployer, data).unwrap();
            }
            Some(to) => {
                assert!(evm.call(deployer, to, U256::ZERO, data).unwrap().success);
            }
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = runtime
        .block_on(NodeClient::connect(anvil.url(), Anvil::dev_signer(0)))
        .unwrap();
    runtime.block_on(async {
        for (to, data) in setup_txs(deployer) {
            let tx = match to {
                None => Tx::create(data),
                Some(to) => Tx::call(to, U256::ZERO, data),
            };
            assert!(matches!(
                client.execute(tx).await.unwrap(),
                pace_node::TxOutcome::Executed { .. }
            ));
        }
    });

    println!("{N} simulations each, median latency per call");
    {
        let empty = Address::repeat_byte(0x77);
        let mut v = Vec::with_capacity(N as usize);
        for _ in 0..N {
            let t = Instant::now();
            black_box(
                evm.simulate(f.account, empty, U256::ZERO, Bytes::new())
                    .unwrap(),
            );
            v.push(t.elapsed().as_secs_f64() * 1e6);
        }
        println!(
            "fixed cost of a transaction to an account without code: {:.2} µs",
            median(v)
        );
    }
    for (name, to, data) in [
        ("ERC-20 transfer", f.token_a, &f.transfer),
        ("AMM swap", f.router, &f.swap),
    ] {
        // Both paths must see the same result.
        let local = evm
            .simulate(f.account, to, U256::ZERO, data.clone())
            .unwrap();
        let remote = runtime
            .block_on(client.simulate(to, U256::ZERO, data.clone(), None))
            .unwrap();
        match remote {
            CallOutcome::Returned(out) => {
                assert_eq!(out, local.output, "{name}: in-process and anvil disagree")
            }
            CallOutcome::Reverted(r) => panic!("{name} reverted on anvil: {r:?}"),
        }
        let mut inproc = Vec::with_capacity(N as usize);
        for _ in 0..N {
            let t = Instant::now();
            black_box(
                evm.simulate(f.account, to, U256::ZERO, data.clone())
                    .unwrap(),
            );
            inproc.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let mut rpc = Vec::with_capacity(N as usize);
        for _ in 0..N {
            let t = Instant::now();
            black_box(
                runtime
                    .block_on(client.simulate(to, U256::ZERO, data.clone(), None))
                    .unwrap(),
            );
            rpc.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let (i, r) = (median(inproc), median(rpc));
        println!(
            "{name:<16} execution: in-process {i:>8.1} µs   anvil eth_call        {r:>8.1} µs   ratio {:>6.1}x",
            r / i
        );

        let intent = Intent {
            chain_id: evm.chain_id(),
            account: f.account,
            calls: vec![Call {
                target: to,
                value: U256::ZERO,
                data: data.clone(),
            }],
            claimed: Default::default(),
            metadata: Default::default(),
        };
        let report = pace_simulator::simulate(&evm, &intent).unwrap();
        assert!(
            report.success && !report.token_flows.is_empty(),
            "{name}: {report:?}"
        );
        let trace = runtime
            .block_on(client.trace_call(to, U256::ZERO, data.clone()))
            .unwrap();
        assert!(
            trace.get("calls").is_some() || trace.get("logs").is_some(),
            "{name}: {trace}"
        );
        let mut inproc = Vec::with_capacity(N as usize);
        for _ in 0..N {
            let t = Instant::now();
            black_box(pace_simulator::simulate(&evm, &intent).unwrap());
            inproc.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let mut rpc = Vec::with_capacity(N as usize);
        for _ in 0..N {
            let t = Instant::now();
            black_box(
                runtime
                    .block_on(client.trace_call(to, U256::ZERO, data.clone()))
                    .unwrap(),
            );
            rpc.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let (i, r) = (median(inproc), median(rpc));
        println!(
            "{name:<16} traced:    in-process {i:>8.1} µs   anvil debug_traceCall {r:>8.1} µs   ratio {:>6.1}x",
            r / i
        );

        // The same pipeline simulation with its state read from anvil over JSON-RPC: a fresh
        // fork per intent, as `pace simulate --rpc` / `pace run` do.
        let forked = (0..N / 10)
            .map(|_| {
                let t = Instant::now();
                let fork = InProcessEvm::fork(anvil.url(), None).unwrap();
                black_box(pace_simulator::simulate(&fork, &intent).unwrap());
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        let f = median(forked);
        println!(
            "{name:<16} forked:    in-process {i:>8.1} µs   state over JSON-RPC   {f:>8.1} µs   ratio {:>6.1}x",
            f / i
        );
    }
}
