//! Fetching the state a run will read before it runs, in batched round trips:
//! [`InProcessEvm::prefetch_calls`] (the node's access lists for the calls) and
//! [`InProcessEvm::discover`] (speculative local runs that record what they miss).
//!
//! Neither ever changes a value: all state still comes from the node at the pinned block, each
//! key fetched once. A prefetch that misses something costs round trips, never correctness:
//! the real run reads what is still missing one key at a time ([`crate::RpcStats::misses`]).

use crate::{
    backend::{Backend, ForkError},
    evm::InProcessEvm,
    rpc::Purpose,
    state::StateKeys,
};
use alloy::rpc::types::{TransactionInput, TransactionRequest};
use alloy_primitives::{Address, Bytes, U256};
use std::{collections::BTreeMap, sync::PoisonError};

/// Speculative runs [`InProcessEvm::discover`] makes at most before it leaves the rest to
/// single reads.
pub const MAX_DISCOVERY_RUNS: u32 = 8;

/// What [`InProcessEvm::discover`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    /// Speculative runs made (the last one read nothing unknown, unless `capped`).
    pub runs: u32,
    /// Keys fetched, in `runs - 1` batched round trips at most.
    pub fetched: usize,
    /// Whether it stopped at [`MAX_DISCOVERY_RUNS`] with keys still unknown.
    pub capped: bool,
}

/// One call of an intent, for [`InProcessEvm::prefetch_calls`]: target, value, calldata.
pub type CallSpec = (Address, U256, Bytes);

impl InProcessEvm {
    /// Runs `run` on copies of this world that never ask the node, fetching in one batched
    /// round trip what each run read and the fork did not hold, until a run reads nothing new
    /// (or [`MAX_DISCOVERY_RUNS`]). A no-op on an in-memory world.
    ///
    /// On the copies a read of unknown state answers empty (no account, zero slot, zero hash)
    /// and is recorded, so what `run` computes there is meaningless and must be thrown away:
    /// only the fetched state is kept, in the fork's block state, where it is the node's
    /// answer. Run the real thing afterwards on `self`.
    pub fn discover(&self, mut run: impl FnMut(&InProcessEvm)) -> Result<Discovery, ForkError> {
        let Some(rpc) = self.backend().rpc() else {
            return Ok(Discovery::default());
        };
        let mut done = Discovery::default();
        loop {
            let missed = self.missed(&mut run);
            done.runs += 1;
            if missed.is_empty() {
                return Ok(done);
            }
            if done.runs >= MAX_DISCOVERY_RUNS {
                done.capped = true;
                return Ok(done);
            }
            done.fetched += rpc.fetch(&missed)?;
        }
    }

    /// One speculative run of `run` (see [`Self::discover`]): the state it read that the fork
    /// does not hold. Nothing is fetched; empty on an in-memory world.
    pub fn missed(&self, run: impl FnOnce(&InProcessEvm)) -> StateKeys {
        let Some(rpc) = self.backend().rpc() else {
            return StateKeys::default();
        };
        let (speculative, record) = rpc.speculative();
        let mut copy = self.clone();
        copy.db_mut().db = Backend::Rpc(speculative);
        run(&copy);
        std::mem::take(&mut *record.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Fetches what `calls`, sent in order from `from` at the pinned block, will read, as the
    /// node sees it: one round trip asks for each call's access list (`eth_createAccessList`,
    /// each on the pinned state, so a call that depends on an earlier one may stop short) and
    /// for `from`, the targets and `keys`, and takes the values of the calls' prestate traces
    /// (`debug_traceCall`, the node's own values at the block); a second one fetches what the
    /// lists name that the traces did not carry. Known keys are skipped, and a round trip with
    /// nothing to ask is not made.
    /// Returns how many keys were fetched. A no-op on an in-memory world.
    pub fn prefetch_calls(
        &self,
        from: Address,
        calls: &[CallSpec],
        keys: &StateKeys,
    ) -> Result<usize, ForkError> {
        let Some(rpc) = self.backend().rpc() else {
            return Ok(0);
        };
        let mut first = keys.clone();
        first.accounts.insert(from);
        first.accounts.extend(calls.iter().map(|c| c.0));
        let requests = calls
            .iter()
            .map(|(to, value, data)| {
                TransactionRequest::default()
                    .from(from)
                    .to(*to)
                    .value(*value)
                    .input(TransactionInput::new(data.clone()))
            })
            .collect();
        let (fetched, named) = rpc.fetch_with(&first, requests, Purpose::Prefetch)?;
        Ok(fetched + rpc.fetch(&named)?)
    }
}

impl InProcessEvm {
    /// For a batch of several `calls` sent in order from `from`: runs them on a copy that
    /// never asks the node, and in one round trip fetches what they missed and has the node
    /// trace each later call (prestate) on the pinned state with the storage the earlier ones
    /// wrote here overridden, so that it runs past what depends on them (an approval, say),
    /// where its access list on the pinned state stopped. The traces' values are the node's
    /// except for the overridden slots, which are not taken. Returns how many keys were
    /// fetched. A no-op on an in-memory world, for a single call, or when the calls miss nothing.
    pub fn prefetch_sequence(&self, from: Address, calls: &[CallSpec]) -> Result<usize, ForkError> {
        let Some(rpc) = self.backend().rpc() else {
            return Ok(0);
        };
        if calls.len() < 2 {
            return Ok(0);
        }
        let (speculative, record) = rpc.speculative();
        let mut copy = self.clone();
        copy.db_mut().db = Backend::Rpc(speculative);
        let mut traced = Vec::new();
        for (i, (to, value, data)) in calls.iter().enumerate() {
            if i > 0 {
                let mut diff: BTreeMap<Address, BTreeMap<U256, U256>> = BTreeMap::new();
                for (address, account) in &copy.db().cache.accounts {
                    for (&slot, &v) in &account.storage {
                        let changed = match rpc.known_slot(*address, slot) {
                            Some(known) => known != v,
                            None => !v.is_zero(),
                        };
                        if changed {
                            diff.entry(*address).or_default().insert(slot, v);
                        }
                    }
                }
                if !diff.is_empty() {
                    let call = TransactionRequest::default()
                        .from(from)
                        .to(*to)
                        .value(*value)
                        .input(TransactionInput::new(data.clone()));
                    traced.push((call, diff));
                }
            }
            // Meaningless on a speculative copy: only what it reads and writes counts.
            let _ = copy.call(from, *to, *value, data.clone());
        }
        let missed = std::mem::take(&mut *record.lock().unwrap_or_else(PoisonError::into_inner));
        if missed.is_empty() {
            // The calls read nothing unknown: the traces would name nothing new.
            return Ok(0);
        }
        let (fetched, _) = rpc.fetch_traced(&missed, Vec::new(), traced, Purpose::Prefetch)?;
        Ok(fetched)
    }
}
