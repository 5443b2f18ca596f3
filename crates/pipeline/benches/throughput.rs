//! Full pipeline throughput on one core: simulate (revm) + verify + sign (EIP-712, k256) for an
//! ERC-20 transfer intent on the embedded world, and each stage alone.
//!
//! `cargo bench -p pace-pipeline --bench throughput`; prints intents per second.

use alloy_primitives::{B256, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::IERC20;
use pace_pipeline::{PipelineConfig, evaluate};
use pace_signer::PdrSigner;
use pace_types::{Call, Claims, CompiledPolicy, Hashed, Intent, TokenAmount};
use pace_world::{World, default_policy};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn rate(label: &str, n: u32, mut f: impl FnMut()) -> f64 {
    for _ in 0..n / 10 {
        f();
    }
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    let elapsed = start.elapsed();
    let per_sec = f64::from(n) / elapsed.as_secs_f64();
    println!(
        "{label:<44} {:>9.1} µs/intent {:>10.0} intents/s",
        per(elapsed, n),
        per_sec
    );
    per_sec
}

fn per(elapsed: Duration, n: u32) -> f64 {
    elapsed.as_secs_f64() * 1e6 / f64::from(n)
}

fn main() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
    let amount = U256::from(10u64).pow(U256::from(18u64)) * U256::from(250u64);
    let intent = Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls: vec![Call {
            target: a.dai,
            value: U256::ZERO,
            data: Bytes::from(
                IERC20::transferCall {
                    to: a.payee,
                    value: amount,
                }
                .abi_encode(),
            ),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount {
                token: a.dai,
                amount,
            }],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let config = PipelineConfig::default();
    let eval = evaluate(&world.evm, &intent, &policy, &signer, &config).unwrap();
    assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
    assert!(eval.record.signed().is_some());

    let n = 20_000;
    println!("ERC-20 transfer intent, {n} iterations, one thread");
    rate("simulate (revm, trace-derived facts)", n, || {
        black_box(pace_simulator::simulate(&world.evm, black_box(&intent)).unwrap());
    });
    let report = Hashed::new(eval.report.clone());
    let hashed = Hashed::new(intent.clone());
    rate("verify (pre-hashed intent and report)", n, || {
        black_box(pace_verifier::verify_hashed(
            &hashed,
            &policy,
            Some(&report),
            world.evm.timestamp(),
        ));
    });
    let digest = eval.record.signed().unwrap().digest;
    rate("sign (k256, RFC 6979)", n, || {
        black_box(signer.sign_digest(black_box(digest)).unwrap());
    });
    let total = rate(
        "simulate + verify + sign (pace_pipeline::evaluate)",
        n,
        || {
            black_box(evaluate(&world.evm, black_box(&intent), &policy, &signer, &config).unwrap());
        },
    );
    println!("pipeline throughput: {total:.0} intents/s on one core (target >= 5000)");
}
