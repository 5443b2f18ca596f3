//! Health from the reached protocols' descriptors: each
//! [`HealthModel`](pace_types::descriptor::HealthModel) yields a [`LendingFact`] whose health
//! factor before and after the calls is computed from the model's collateral, debt and price
//! reads, and the reads themselves as [`FactRead`]s the signer keeps
//! (the collateral as [`ReadKind::Holding`], the price as [`ReadKind::HealthTerm`], the debt as
//! [`ReadKind::Debt`]). Every position a reached descriptor declares is a read of the report,
//! model or not: debt booked on the account at execution beyond the simulated one, or a
//! holding that falls below the simulated one, reverts the PDR (the loss counted both).
//!
//! A read that does not answer before and after the calls leaves the health factor unknown;
//! the fact then counts as lowering the position, so the verifier refuses unless nothing moved
//! it.

use alloy_primitives::{Address, U256};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{AdapterGap, FactRead, LendingFact, LendingProtocol, LendingState, ReadKind};

use crate::{
    error::Result,
    fork::Viewer,
    members::{PositionReads, word_read},
};

/// What the descriptors' health models and debt positions read.
#[derive(Default)]
pub(crate) struct ModelHealth {
    /// One fact per health model.
    pub(crate) facts: Vec<LendingFact>,
    /// The reads the facts rest on, and every position's.
    pub(crate) reads: Vec<FactRead>,
    /// The reads that did not answer.
    pub(crate) gaps: Vec<AdapterGap>,
}

/// The health facts and reads of the reached descriptors whose position views `positions`
/// holds (see the module docs); their price reads are made here.
pub(crate) fn model_health<B, A>(
    positions: &[PositionReads<'_>],
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<ModelHealth>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let mut out = ModelHealth::default();
    for PositionReads {
        descriptor: d,
        reads,
    } in positions
    {
        // Every position read: the loss counted what it held and owed as value, so the signer
        // keeps holdings from falling and debts from rising at execution.
        for r in reads.iter().flatten() {
            if r.after.is_some() {
                push_once(&mut out.reads, r.clone());
            }
        }
        for (i, h) in d.health.iter().enumerate() {
            let (Some(Some(collateral)), Some(Some(debt))) =
                (reads.get(h.collateral), reads.get(h.debt))
            else {
                continue;
            };
            let market = debt.target;
            let price = match (d.root(&h.price.root), h.price.call_data(account)) {
                (Some(root), Some(data)) => Some(word_read(
                    (ReadKind::HealthTerm, market),
                    root.address,
                    data,
                    h.price.word,
                    before,
                    after,
                )?),
                _ => None,
            };
            let state = |at: fn(&FactRead) -> Option<U256>| LendingState {
                health_factor_bps: match (at(collateral), price.as_ref().and_then(at), at(debt)) {
                    (Some(c), Some(p), Some(b)) => Some(h.health_bps(c, p, b)),
                    _ => None,
                },
                collateral: at(collateral),
                debt: at(debt),
            };
            let (was, is) = (state(|r| r.before), state(|r| r.after));
            if is.health_factor_bps.is_none() || was.health_factor_bps.is_none() {
                out.gaps.push(AdapterGap {
                    via: market,
                    what: format!("{} health[{i}] of the account", d.id),
                });
            }
            let lowers = lowers(&was, &is);
            out.facts.push(LendingFact {
                protocol: LendingProtocol::Descriptor,
                market,
                before: was,
                after: is,
                lowers,
            });
            let mut collateral = collateral.clone();
            collateral.subject = market;
            for r in [Some(collateral), price].into_iter().flatten() {
                if r.after.is_some() {
                    push_once(&mut out.reads, r);
                }
            }
        }
    }
    Ok(out)
}

/// Whether the calls can have lowered the position: collateral out, debt in, or either
/// unknown. The price is the market's, not the account's doing.
fn lowers(was: &LendingState, is: &LendingState) -> bool {
    let fell = match (was.collateral, is.collateral) {
        (Some(b), Some(a)) => a < b,
        _ => true,
    };
    let grew = match (was.debt, is.debt) {
        (Some(b), Some(a)) => a > b,
        _ => true,
    };
    fell || grew
}

/// Adds `r` unless the same read (target, data, word) is there already.
fn push_once(reads: &mut Vec<FactRead>, r: FactRead) {
    if !reads
        .iter()
        .any(|o| o.target == r.target && o.data == r.data && o.word == r.word)
    {
        reads.push(r);
    }
}
