//! `verify` on a realistic swap: a USDC -> WETH Uniswap V2 swap, the demo policy (with its
//! three metadata regexes) and a faithful simulation report. Also the two hashes it computes.

#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use pace_testkit::mainnet as fixture;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let policy = fixture::compiled();
    let (intent, report) = fixture::benign();
    assert!(pace_verifier::verify(&intent, &policy, Some(&report), fixture::NOW).approved());

    c.bench_function("verify/benign_swap", |b| {
        b.iter(|| {
            pace_verifier::verify(
                black_box(&intent),
                black_box(&policy),
                black_box(Some(&report)),
                black_box(fixture::NOW),
            )
        })
    });
    let hashed_intent = pace_types::Hashed::new(intent.clone());
    let hashed_report = pace_types::Hashed::new(report.clone());
    c.bench_function("verify_hashed/benign_swap", |b| {
        b.iter(|| {
            pace_verifier::verify_hashed(
                black_box(&hashed_intent),
                black_box(&policy),
                black_box(Some(&hashed_report)),
                black_box(fixture::NOW),
            )
        })
    });
    c.bench_function("hash/intent", |b| {
        b.iter(|| black_box(&intent).intent_hash())
    });
    c.bench_function("hash/simulation", |b| {
        b.iter(|| black_box(&report).simulation_hash())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
