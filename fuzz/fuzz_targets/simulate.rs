//! `pace_simulator::simulate` on arbitrary calldata and value sent by the world's PaceAccount
//! to the embedded world's contracts: never panics; the only result is a report (a revert is
//! a report with `success: false`), never an `Err` (the intent is for the world's chain, has
//! calls, and the world is in-process, so none of the documented error kinds applies); the
//! same intent gives the same report twice; a failed batch reports no effects; the verifier
//! judges the report against the world's default policy without panicking.
//!
//! Input: `[flags]` then up to three calls, each `[target index][value selector][len u16 BE]`
//! and `len` bytes of calldata (at most what is left). Flag bit 0: simulate with
//! the options of the default policy and the world's revert decoder.
//! `PACE_FUZZ_DEBUG=1` prints each report's outcome.
#![no_main]

use alloy_primitives::{Address, Bytes, U256};
use libfuzzer_sys::fuzz_target;
use pace_simulator::{SimulateOptions, simulate, simulate_with};
use pace_types::{Call, Claims, CompiledPolicy, Intent};
use pace_world::{CHAIN_ID, GENESIS_BLOCK, World};
use std::sync::OnceLock;

struct Fixture {
    world: World,
    targets: Vec<Address>,
    policy: CompiledPolicy,
    options: SimulateOptions,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();
/// `PACE_FUZZ_DEBUG=1`: print each report's outcome (to check what the seeds reach).
static DEBUG: OnceLock<bool> = OnceLock::new();

fn fixture() -> &'static Fixture {
    FIXTURE.get_or_init(|| {
        let world = World::new(Address::with_last_byte(0x99)).unwrap_or_else(|e| {
            panic!("cannot build the embedded world (run `npm ci` first?): {e}")
        });
        let a = &world.addrs;
        let targets = vec![
            a.router,
            a.weth,
            a.dai,
            a.usdc,
            a.fee_token,
            a.pair_weth_dai,
            a.pair_weth_fee,
            a.factory,
            a.mock_router,
            a.malicious_router,
            a.hidden_sink,
            a.drainer,
            a.oracle,
            a.lending_pool,
            a.account,
            a.payee,
            a.attacker,
        ];
        let policy = pace_world::default_policy(a);
        let mut options = SimulateOptions::for_policy(&policy);
        options.revert_decoder = pace_world::revert_decoder();
        let policy = policy.compile().expect("the default policy compiles");
        Fixture {
            world,
            targets,
            policy,
            options,
        }
    })
}

fn value(sel: u8) -> U256 {
    let ether = U256::from(10u64).pow(U256::from(18u64));
    match sel % 6 {
        0 => U256::ZERO,
        1 => U256::from(1u8),
        2 => ether,
        3 => ether * U256::from(10u8),
        4 => ether * U256::from(11u8),
        _ => U256::MAX,
    }
}

fn calls(fx: &Fixture, mut rest: &[u8]) -> Vec<Call> {
    let mut calls = Vec::new();
    while calls.len() < 3 {
        let [t, v, rest_after @ ..] = rest else { break };
        let (len, body) = match rest_after {
            [hi, lo, body @ ..] => (usize::from(*hi) << 8 | usize::from(*lo), body),
            _ => (usize::MAX, rest_after),
        };
        let (data, tail) = body.split_at(len.min(body.len()));
        calls.push(Call {
            target: fx.targets[usize::from(*t) % fx.targets.len()],
            value: value(*v),
            data: Bytes::copy_from_slice(data),
        });
        rest = tail;
    }
    calls
}

fuzz_target!(
    init: {
        fixture();
    },
    |input: &[u8]| {
        let fx = fixture();
        let [flags, rest @ ..] = input else { return };
        let calls = calls(fx, rest);
        if calls.is_empty() {
            return;
        }
        let intent = Intent {
            chain_id: CHAIN_ID,
            account: fx.world.addrs.account,
            calls,
            claimed: Claims::default(),
            metadata: Default::default(),
        };
        let run = || {
            if flags & 1 == 0 {
                simulate(&fx.world.evm, &intent)
            } else {
                simulate_with(&fx.world.evm, &intent, &fx.options)
            }
        };
        let report = run().unwrap_or_else(|e| panic!("simulate returned an error: {e}\n{e:?}"));
        let again = run().expect("the second run failed where the first did not");
        assert_eq!(report, again, "the simulation is not deterministic");
        if *DEBUG.get_or_init(|| std::env::var_os("PACE_FUZZ_DEBUG").is_some()) {
            eprintln!(
                "calls {} success {} revert {:?} flows {} swap {}",
                intent.calls.len(),
                report.success,
                report.revert_reason,
                report.token_flows.len(),
                report.swap.is_some()
            );
        }
        assert_eq!(report.intent_hash, intent.intent_hash());
        assert_eq!(report.block_number, GENESIS_BLOCK);
        if !report.success {
            assert!(
                report.token_flows.is_empty()
                    && report.nft_flows.is_empty()
                    && report.approvals.is_empty()
                    && report.balance_changes.is_empty()
                    && report.swap.is_none()
                    && report.loss_bps.is_none()
                    && report.health_factor_before_bps.is_none()
                    && report.health_factor_after_bps.is_none(),
                "a failed batch reports effects: {report:?}"
            );
        }
        let decision = pace_verifier::verify(&intent, &fx.policy, Some(&report), report.timestamp);
        assert_eq!(decision.approved(), decision.violations.is_empty());
    }
);
