//! Profiles the fixed cost of one in-process transaction (a call to an account without code).
//! `cargo run --release -p pace-evm --example fixed_cost`
use alloy_primitives::{Address, Bytes, U256};
use pace_evm::InProcessEvm;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut evm = InProcessEvm::new(31337);
    let from = Address::repeat_byte(1);
    evm.fund(from, U256::from(1u64) << 80).unwrap();
    let to = Address::repeat_byte(0x77);
    let n = 200_000u32;
    let t = Instant::now();
    for _ in 0..n {
        black_box(evm.simulate(from, to, U256::ZERO, Bytes::new()).unwrap());
    }
    println!(
        "{:.3} µs per empty simulated transaction",
        t.elapsed().as_secs_f64() * 1e6 / f64::from(n)
    );
}
