//! `verify_hashed` on the benchmark's swap in a loop, for a profiler:
//! `perf record -g target/release/examples/verify_profile` (or callgrind). Prints the mean time
//! per decision over the loop.

#![allow(missing_docs)]

use pace_testkit::mainnet as fixture;
use std::{hint::black_box, time::Instant};

fn main() {
    let iterations: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000_000);
    let policy = fixture::compiled();
    let (intent, report) = fixture::benign();
    let intent = pace_types::Hashed::new(intent);
    let report = pace_types::Hashed::new(report);
    let start = Instant::now();
    for _ in 0..iterations {
        let decision =
            pace_verifier::verify_hashed(black_box(&intent), &policy, Some(&report), fixture::NOW);
        assert!(black_box(decision).approved());
    }
    let per = start.elapsed().as_nanos() / u128::from(iterations);
    println!("verify_hashed: {per} ns per decision over {iterations}");
}
