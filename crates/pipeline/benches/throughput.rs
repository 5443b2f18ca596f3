//! Full pipeline throughput: simulate (revm) + verify + sign (EIP-712, libsecp256k1) for an ERC-20
//! transfer intent on the embedded world. One run prints, side by side:
//!
//! - the three parts alone, the canonical hashing the pipeline does (the intent and report
//!   content hashes, once each) and the whole through `Pipeline::evaluate` (which also runs
//!   pass 2, the signed transaction's own simulation, counted in the overhead);
//! - the whole again with a different amount in each intent (`whole_distinct`): nothing but
//!   the accounts' and tokens' storage slots hashes the same twice, where the repeated intent
//!   finds every hash of the one before in the keccak cache;
//! - `overhead = whole - (simulate + verify + sign)` and `overhead - hashing`, with the other
//!   steps of the overhead timed alone;
//! - intents/s with 1 and 2 threads (each evaluating on its own world for a fixed time),
//!   interleaved 5 times, the medians and their ratio.
//!
//! `cargo bench -p pace-pipeline --bench throughput`. The load average is printed at the start
//! and the end: on a shared machine the figures mean little without it.
//!
//! With `--part NAME --iterations K` it runs only `K` iterations of one part and prints
//! nothing: `make bench-instructions` counts each part's instructions that way under
//! callgrind, which does not depend on the machine's load.

use alloy_primitives::{B256, U256};
use alloy_sol_types::SolStruct;
use pace_contracts::bindings::PaceAccount;
use pace_pipeline::{Evaluation, Pipeline};
use pace_signer::{PdrSigner, bounds_from_report};
use pace_simulator::{SimulateOptions, simulate_hashed};
use pace_types::{CompiledPolicy, Hashed, Intent};
use pace_world::{World, default_policy};
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Iterations of each single-thread row.
const N: u32 = 20_000;
/// How long each multi-thread sample runs.
const SAMPLE: Duration = Duration::from_millis(1500);
/// Interleaved 1- and 2-thread samples.
const ROUNDS: usize = 5;

/// Times `n` calls of `f` (after `n / 10` warm-up calls), prints the row and returns µs/call.
fn row(label: &str, n: u32, mut f: impl FnMut()) -> f64 {
    for _ in 0..n / 10 {
        f();
    }
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    print_row(label, us);
    us
}

fn print_row(label: &str, us: f64) {
    println!(
        "{label:<56} {us:>8.1} µs/intent {:>9.0} intents/s",
        1e6 / us
    );
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The bench's agent, world and intent.
struct Setup {
    signer: PdrSigner,
    pipeline: Pipeline,
    world: World,
    policy: CompiledPolicy,
    intent: Intent,
}

impl Setup {
    fn new() -> Self {
        let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
        let world = World::new(signer.address()).unwrap();
        let a = world.addrs;
        let policy = CompiledPolicy::try_from(default_policy(&a)).unwrap();
        let amount = U256::from(10u64).pow(U256::from(18u64)) * U256::from(250u64);
        let intent = pace_testkit::intents::dai_to_payee(&world, amount);
        Self {
            pipeline: Pipeline::new(signer.clone()),
            signer,
            world,
            policy,
            intent,
        }
    }

    fn evaluate(&self) -> Evaluation {
        self.pipeline
            .evaluate(&self.world.evm, black_box(&self.intent), &self.policy, 0)
            .unwrap()
    }
}

/// Intents per second with `threads` threads, each evaluating on its own setup for
/// [`SAMPLE`].
fn parallel_rate(setups: &[Setup], threads: usize) -> f64 {
    let barrier = Barrier::new(threads);
    let counts: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = setups[..threads]
            .iter()
            .map(|setup| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let start = Instant::now();
                    let mut n = 0u64;
                    while start.elapsed() < SAMPLE {
                        black_box(setup.evaluate());
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    counts.iter().sum::<u64>() as f64 / SAMPLE.as_secs_f64()
}

/// What the parts measure, built once.
struct Parts<'a> {
    setup: &'a Setup,
    /// The amount the next `whole_distinct` intent pays (one more wei each time).
    distinct: std::cell::Cell<U256>,
    options: SimulateOptions,
    hashed: Hashed<Intent>,
    report: Hashed<pace_types::SimulationReport>,
    eval: Evaluation,
}

impl<'a> Parts<'a> {
    fn new(setup: &'a Setup) -> Self {
        let eval = setup.evaluate();
        assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
        Self {
            setup,
            distinct: std::cell::Cell::new(U256::from(1u64)),
            options: SimulateOptions::for_policy(&setup.policy),
            hashed: Hashed::new(setup.intent.clone()),
            report: Hashed::new(eval.report.clone()),
            eval,
        }
    }

    /// One iteration of the part called `name` (see [`PARTS`]).
    fn run(&self, name: &str) {
        let (world, intent, policy) = (
            &self.setup.world.evm,
            &self.setup.intent,
            &self.setup.policy,
        );
        let pdr = self.eval.record.signed().unwrap();
        match name {
            "simulate" => {
                black_box(simulate_hashed(world, black_box(&self.hashed), &self.options).unwrap());
            }
            "verify" => {
                black_box(pace_verifier::verify_hashed(
                    &self.hashed,
                    policy,
                    Some(&self.report),
                    world.timestamp(),
                ));
            }
            "sign" => {
                black_box(
                    self.setup
                        .signer
                        .sign_digest(black_box(pdr.digest))
                        .unwrap(),
                );
            }
            "intent_hash" => {
                black_box(black_box(intent).intent_hash());
            }
            "report_hash" => {
                black_box(black_box(&self.eval.report).simulation_hash());
            }
            "whole" => {
                black_box(self.setup.evaluate());
            }
            "whole_distinct" => {
                let amount = self.distinct.get();
                self.distinct.set(amount + U256::from(1u64));
                let intent = pace_testkit::intents::dai_to_payee(&self.setup.world, amount);
                let eval = (self.setup.pipeline)
                    .evaluate(world, black_box(&intent), policy, 0)
                    .unwrap();
                black_box(eval);
            }
            "options" => {
                black_box(SimulateOptions::for_policy(black_box(policy)));
            }
            "intent_clone" => {
                black_box(black_box(intent).clone());
            }
            "next_sequence" => {
                black_box(pace_pipeline::next_sequence(world, intent.account, 0).unwrap());
            }
            "next_sequence_view" => {
                let call = PaceAccount::nextSequenceCall { key: 0 };
                black_box(world.view_sol(intent.account, &call).unwrap());
            }
            "bounds" => {
                black_box(bounds_from_report(
                    black_box(&self.eval.report),
                    intent.account,
                    policy.outcome_tolerance_bps,
                ));
            }
            "digest" => {
                black_box(black_box(&pdr.pdr).digest(pdr.chain_id, pdr.account));
            }
            "alloy_digest" => {
                let domain = pace_types::pdr::domain(pdr.chain_id, pdr.account);
                black_box(black_box(&pdr.pdr).eip712_signing_hash(&domain));
            }
            "none" => {}
            other => panic!("unknown part {other:?}; one of {:?}", PARTS.map(|(n, _)| n)),
        }
    }
}

/// Every part: its name (for `--part`) and its row label.
const PARTS: [(&str, &str); 15] = [
    (
        "simulate",
        "simulate (revm; the policy's options, hashed intent)",
    ),
    ("verify", "verify (hashed intent and report)"),
    ("sign", "sign (libsecp256k1, RFC 6979)"),
    ("intent_hash", "  hashing: intent content hash"),
    ("report_hash", "  hashing: report content hash"),
    ("whole", "whole: simulate + verify + sign (evaluate)"),
    (
        "whole_distinct",
        "whole, each intent a different amount (no digest repeats)",
    ),
    ("options", "  simulate options for the policy"),
    ("intent_clone", "  intent clone"),
    (
        "next_sequence",
        "  next sequence read (the account's storage)",
    ),
    (
        "next_sequence_view",
        "  (the same through the nextSequence view call)",
    ),
    ("bounds", "  outcome bounds"),
    ("digest", "  EIP-712 digest of the PDR"),
    (
        "alloy_digest",
        "  (the same digest through alloy's eip712_signing_hash)",
    ),
    ("none", "  nothing (the loop alone)"),
];

fn label(name: &str) -> &'static str {
    PARTS.iter().find(|(n, _)| *n == name).unwrap().1
}

/// `--part NAME --iterations K`: builds the setup, runs `K` iterations of one part and exits,
/// printing nothing: what `script/bench_instructions.py` counts under callgrind.
fn part_mode() -> Option<(String, u32)> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        let i = args.iter().position(|a| a == flag)?;
        args.get(i + 1).cloned()
    };
    let part = value("--part")?;
    let iterations = value("--iterations").map_or(1, |k| k.parse().expect("--iterations K"));
    Some((part, iterations))
}

fn main() {
    let setup = Setup::new();
    let parts = Parts::new(&setup);
    if let Some((part, iterations)) = part_mode() {
        for _ in 0..iterations {
            parts.run(&part);
        }
        return;
    }
    let time = |name: &str| row(label(name), N, || parts.run(name));

    println!(
        "ERC-20 transfer intent, {N} iterations, one thread; load average {}",
        loadavg()
    );
    let simulate = time("simulate");
    let verify = time("verify");
    let sign = time("sign");
    let hashing = time("intent_hash") + time("report_hash");
    print_row("hashing (intent + report, once each)", hashing);
    let whole = time("whole");
    time("whole_distinct");
    let overhead = whole - (simulate + verify + sign);
    println!("overhead = whole - (simulate + verify + sign)            {overhead:>8.1} µs/intent");
    println!(
        "overhead - hashing                                       {:>8.1} µs/intent",
        overhead - hashing
    );
    println!("the rest of the overhead, each step alone:");
    for name in [
        "options",
        "intent_clone",
        "next_sequence",
        "next_sequence_view",
        "bounds",
        "digest",
        "alloy_digest",
    ] {
        time(name);
    }
    println!("load average {}", loadavg());
    println!(
        "pipeline throughput: {:.0} intents/s on one thread (target >= 5000)",
        1e6 / whole
    );

    threads_section();
}

/// 1 vs 2 threads, interleaved.
fn threads_section() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let setups = [Setup::new(), Setup::new()];
    println!(
        "\nthreads: evaluate for {:.1} s per sample, 1 and 2 threads interleaved {ROUNDS} times \
         ({cores} cores available); load average {}",
        SAMPLE.as_secs_f64(),
        loadavg()
    );
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        let a = parallel_rate(&setups, 1);
        let b = parallel_rate(&setups, 2);
        println!(
            "  round {round}: 1 thread {a:>7.0} intents/s   2 threads {b:>7.0} intents/s   \
             ratio {:.2}   load average {}",
            b / a,
            loadavg()
        );
        one.push(a);
        two.push(b);
    }
    let (one, two) = (median(one), median(two));
    println!(
        "median: 1 thread {one:.0} intents/s, 2 threads {two:.0} intents/s, ratio {:.2} \
         (target >= 1.7)",
        two / one
    );
}
