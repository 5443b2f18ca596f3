//! [`prefetch`]: fetch the state a simulation of an intent will read from a forked world's
//! node in a few batched round trips, before [`crate::simulate_detailed`] runs on it.

use crate::{error::Result, prices, simulate::SimulateOptions};
use alloy_primitives::{Address, Bytes, U256};
use pace_evm::{CallSpec, InProcessEvm, RpcStats};
use pace_types::Intent;

/// The round trips [`prefetch`] made, by phase (all zero on an in-memory world).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefetch {
    /// The node's access lists and prestate traces for the intent's calls, with the accounts
    /// a first local run missed and the options' tokens, price sources and oracles (one round
    /// trip, whose traces carry the values of what the calls read), then whatever the lists name
    /// that the traces did not carry (one more, if any): made only when that local run missed
    /// something.
    pub access_lists: RpcStats,
    /// For a batch of several calls, first one round trip (only if a local run of the calls
    /// still misses something) fetching what they miss with the prestate traces of the later
    /// calls on the pinned state overridden with what the earlier ones wrote (see
    /// [`InProcessEvm::prefetch_sequence`]). Then the whole simulation run locally on the
    /// fetched state, and what it still misses fetched
    /// in one round trip per run: state behind an earlier call of the batch, a path the access
    /// lists did not take, and the reads around the calls (balances, allowances, budgets, pool
    /// reserves and vault rates for valuation, health factors). The calls and the valuation are
    /// discovered together, so their chains of reads share round trips.
    pub execution: RpcStats,
}

impl Prefetch {
    /// All phases together.
    pub fn total(&self) -> RpcStats {
        let phases = [self.access_lists, self.execution];
        RpcStats {
            round_trips: phases.iter().map(|p| p.round_trips).sum(),
            requests: phases.iter().map(|p| p.requests).sum(),
            misses: phases.iter().map(|p| p.misses).sum(),
            head_polls: phases.iter().map(|p| p.head_polls).sum(),
        }
    }
}

/// Fetches what simulating `intent` with `options` on `world` will read, so that the
/// simulation itself makes no round trip; a no-op on an in-memory world.
///
/// It never changes a simulation's result: every value still comes from the node at the
/// fork's pinned block, fetched once into the block's state (see
/// [`InProcessEvm::discover`]); what it misses, the simulation reads one key at a time
/// (counted in [`RpcStats::misses`]). An intent that reads nothing the fork lacks costs no
/// round trip. Errors: only a node that cannot answer ([`crate::Error::Fork`]).
pub fn prefetch(
    world: &InProcessEvm,
    intent: &Intent,
    options: &SimulateOptions,
) -> Result<Prefetch> {
    prefetch_with(world, intent, options, |w| {
        let _ = crate::simulate_detailed(w, intent, options);
    })
}

/// [`prefetch`] for a caller whose simulation is not [`crate::simulate_detailed`] of the
/// intent (the transaction that will carry the calls, run in the account's frame): the last
/// phase discovers what `simulation` reads on the fetched state (see
/// [`InProcessEvm::discover`]; what it computes there is thrown away).
pub fn prefetch_with(
    world: &InProcessEvm,
    intent: &Intent,
    options: &SimulateOptions,
    simulation: impl FnMut(&InProcessEvm),
) -> Result<Prefetch> {
    let Some(rpc) = world.backend().rpc() else {
        return Ok(Prefetch::default());
    };
    let execute = |w: &InProcessEvm| {
        let mut copy = w.clone();
        for c in &intent.calls {
            // Meaningless on a speculative copy: only what it reads counts.
            let _ = copy.call(intent.account, c.target, c.value, c.data.clone());
        }
    };
    let start = rpc.stats();
    let mut missed = world.missed(execute);
    if !missed.is_empty() {
        // The contracts the valuation will read: their code now saves a round trip later.
        let sources = options.price_sources.iter().chain(&options.extra_tokens);
        let oracles = options.price_oracles.iter().map(|o| &o.oracle);
        missed.accounts.extend(sources.chain(oracles).copied());
        let mut calls: Vec<CallSpec> = (intent.calls.iter())
            .map(|c| (c.target, c.value, c.data.clone()))
            .collect();
        // The valuation's own read-only calls on the state before the calls, traced in the
        // same round trip: pool reserves and tokens, vault rates, feed answers.
        let mut sources: Vec<Address> = Vec::new();
        for a in (intent.calls.iter().map(|c| c.target))
            .chain(options.price_sources.iter().copied())
            .chain(options.extra_tokens.iter().copied())
        {
            if !sources.contains(&a) {
                sources.push(a);
            }
        }
        let probe = |to: Address, data: Vec<u8>| (to, U256::ZERO, Bytes::from(data));
        for &source in &sources {
            calls.extend(prices::probes(true).into_iter().map(|d| probe(source, d)));
        }
        for feed in &options.price_oracles {
            calls.extend(
                prices::probes(false)
                    .into_iter()
                    .map(|d| probe(feed.oracle, d)),
            );
        }
        world.prefetch_calls(intent.account, &calls, &missed)?;
    }
    let listed = rpc.stats();
    if intent.calls.len() > 1 {
        let calls: Vec<CallSpec> = (intent.calls.iter())
            .map(|c| (c.target, c.value, c.data.clone()))
            .collect();
        world.prefetch_sequence(intent.account, &calls)?;
    }
    world.discover(simulation)?;
    Ok(Prefetch {
        access_lists: listed.since(&start),
        execution: rpc.stats().since(&listed),
    })
}
