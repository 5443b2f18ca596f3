//! The zeros of the line, established from the chain (`PdrExecuted` logs, lane positions,
//! balances) and the store, never from what the clients counted.

use crate::client::Seen;
use alloy::{providers::Provider, rpc::types::Filter};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::SolEvent;
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_node::NodeClient;
use pace_service::store::{Proposal, ProposalState, SqliteStore, Store};
use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

/// What the chain and the store show.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// Intents (or digests) that took effect more than once.
    pub(crate) double_executions: u64,
    /// Sequences signed twice while the first could still execute, or consumed on-chain by
    /// nothing in the store.
    pub(crate) nonces_reused: u64,
    /// Decisions the clients were told of that the store does not hold (or holds otherwise),
    /// and executions the store does not know of.
    pub(crate) decisions_lost: u64,
    /// `PdrExecuted` logs seen.
    pub(crate) executed: u64,
}

/// The balances the check compares: the payee's and the account's DAI.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Balances {
    pub(crate) payee: U256,
    pub(crate) account: U256,
}

/// Reads both balances at the latest block.
pub(crate) async fn balances(
    node: &NodeClient,
    dai: Address,
    payee: Address,
    account: Address,
) -> Result<Balances, String> {
    let payee_call = IERC20::balanceOfCall { account: payee };
    let account_call = IERC20::balanceOfCall { account };
    Ok(Balances {
        payee: node
            .call_sol(dai, &payee_call)
            .await
            .map_err(|e| e.to_string())?,
        account: node
            .call_sol(dai, &account_call)
            .await
            .map_err(|e| e.to_string())?,
    })
}

/// Checks the run: `seen` is what the clients were answered, `before` the balances at the
/// start. Balance or audit mismatches are errors; the counts go on the line.
pub(crate) async fn verify(
    node: &NodeClient,
    store_path: &Path,
    (account, dai, payee): (Address, Address, Address),
    before: Balances,
    seen: &[Seen],
) -> Result<Findings, String> {
    let store = SqliteStore::open(store_path).map_err(|e| e.to_string())?;
    let proposals = store
        .proposals(None, 1_000_000)
        .map_err(|e| e.to_string())?;
    let by_id: BTreeMap<&str, &Proposal> = proposals.iter().map(|p| (p.id.as_str(), p)).collect();

    // Every PdrExecuted log of the account, by digest.
    let filter = Filter::new()
        .address(account)
        .event_signature(PaceAccount::PdrExecuted::SIGNATURE_HASH)
        .from_block(0);
    let logs = node
        .provider()
        .get_logs(&filter)
        .await
        .map_err(|e| format!("eth_getLogs: {e}"))?;
    let mut on_chain: BTreeMap<B256, u64> = BTreeMap::new();
    for log in &logs {
        let digest = log
            .topics()
            .get(1)
            .copied()
            .ok_or("a PdrExecuted log without digest")?;
        *on_chain.entry(digest).or_default() += 1;
    }
    let mut f = Findings {
        executed: logs.len() as u64,
        ..Findings::default()
    };

    // Double executions: a digest twice, or one intent of one caller through two digests.
    f.double_executions += on_chain.values().map(|n| n.saturating_sub(1)).sum::<u64>();
    let mut per_intent: BTreeMap<(&str, B256), u64> = BTreeMap::new();
    let mut executed_amount = U256::ZERO;
    let mut executed_ids = BTreeSet::new();
    for p in &proposals {
        let Some(signed) = &p.pdr else { continue };
        if on_chain.contains_key(&signed.digest) {
            *per_intent
                .entry((p.caller.as_str(), p.intent_hash))
                .or_default() += 1;
            executed_amount += p
                .intent
                .claimed
                .outflows
                .iter()
                .map(|o| o.amount)
                .sum::<U256>();
            executed_ids.insert(p.id.as_str());
        }
    }
    f.double_executions += per_intent
        .values()
        .map(|n| n.saturating_sub(1))
        .sum::<u64>();

    // Balances: what arrived is exactly what the executed proposals sent, once.
    let after = balances(node, dai, payee, account).await?;
    if after.payee - before.payee != executed_amount
        || before.account - after.account != executed_amount
    {
        return Err(format!(
            "DAI moved: payee +{}, account -{}; the executed proposals sent {executed_amount}",
            after.payee - before.payee,
            before.account - after.account
        ));
    }

    // Nonces: per (lane, sequence), at most one PDR that was not provably dead; and every
    // sequence the chain consumed on a lane is one executed PDR of the store.
    let mut per_sequence: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    let mut executed_per_lane: BTreeMap<u32, u64> = BTreeMap::new();
    for p in &proposals {
        let Some(signed) = &p.pdr else { continue };
        let t = signed.pdr.terms();
        if p.state != ProposalState::Expired {
            *per_sequence.entry((t.key, t.sequence)).or_default() += 1;
        }
        if on_chain.contains_key(&signed.digest) {
            *executed_per_lane.entry(t.key).or_default() += 1;
        }
    }
    f.nonces_reused += per_sequence
        .values()
        .map(|n| n.saturating_sub(1))
        .sum::<u64>();
    for (&lane, &executed) in &executed_per_lane {
        let next: u64 = node
            .call_sol(account, &PaceAccount::nextSequenceCall { key: lane })
            .await
            .map_err(|e| e.to_string())?;
        f.nonces_reused += next.abs_diff(executed);
    }
    let known: BTreeSet<B256> = proposals
        .iter()
        .filter_map(|p| p.pdr.as_ref().map(|s| s.digest))
        .collect();

    // Decisions: every answered proposal is stored and audited; every answered execution is
    // executed on-chain and in the store; every execution on-chain is a stored PDR.
    let audited: BTreeSet<String> = store
        .audit_records(1, 10_000_000)
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|r| r.entry.kind == "propose")
        .filter_map(|r| r.entry.proposal_id)
        .collect();
    for s in seen {
        match by_id.get(s.proposal_id.as_str()) {
            None => f.decisions_lost += 1,
            Some(p) => {
                let lost_outcome = s.confirmed.as_deref() == Some("executed")
                    && !(p.state == ProposalState::Executed
                        && executed_ids.contains(p.id.as_str()));
                // The stored proposal is the one the client sent (same amount).
                let other = p
                    .intent
                    .claimed
                    .outflows
                    .iter()
                    .map(|o| o.amount)
                    .sum::<U256>()
                    != s.amount;
                f.decisions_lost += u64::from(lost_outcome || other || !audited.contains(&p.id));
            }
        }
    }
    for p in &proposals {
        let executed_here = executed_ids.contains(p.id.as_str());
        // The store must say executed exactly when the chain does (I4 both ways).
        f.decisions_lost += u64::from(executed_here != (p.state == ProposalState::Executed));
    }
    f.decisions_lost += on_chain.keys().filter(|d| !known.contains(*d)).count() as u64;
    match store.verify_audit().map_err(|e| e.to_string())? {
        Ok(_) => {}
        Err(e) => return Err(format!("audit chain broken: {e}")),
    }
    Ok(f)
}
