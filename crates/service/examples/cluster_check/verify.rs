//! The zeros of the line, established from the chain (`PdrExecuted` logs, lane positions,
//! balances) and from the database, never from what the clients counted.

use crate::load::Outcome;
use alloy::{providers::Provider, rpc::types::Filter};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::SolEvent;
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_node::NodeClient;
use pace_service::store::{PgStore, ProposalState, Store};
use std::collections::{BTreeMap, BTreeSet};

/// What the chain and the database show.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub(crate) double_executions: u64,
    pub(crate) nonces_reused: u64,
    pub(crate) decisions_lost: u64,
    pub(crate) executed: u64,
    pub(crate) fenced: u64,
    pub(crate) lease_takeovers: u64,
    pub(crate) relayers: u64,
}

/// The payee's and the account's DAI.
pub(crate) async fn balances(
    node: &NodeClient,
    dai: Address,
    payee: Address,
    account: Address,
) -> Result<(U256, U256), String> {
    let read = |who: Address| {
        let call = IERC20::balanceOfCall { account: who };
        async move { node.call_sol(dai, &call).await.map_err(|e| e.to_string()) }
    };
    Ok((read(payee).await?, read(account).await?))
}

/// Checks the run: `seen` is what the clients were answered, `before` the balances at the
/// start.
pub(crate) async fn verify(
    node: &NodeClient,
    store: &PgStore,
    (account, dai, payee): (Address, Address, Address),
    before: (U256, U256),
    seen: &[Outcome],
) -> Result<Findings, String> {
    let e = |e: pace_service::Error| e.to_string();
    let proposals = store.proposals(None, 1_000_000).map_err(e)?;
    let by_id: BTreeMap<&str, _> = proposals.iter().map(|p| (p.id.as_str(), p)).collect();
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
        let digest = log.topics().get(1).copied().ok_or("a log without digest")?;
        *on_chain.entry(digest).or_default() += 1;
    }
    let mut f = Findings {
        executed: logs.len() as u64,
        ..Findings::default()
    };
    // Double executions: a digest twice, or one payment (its amount) through two digests.
    f.double_executions += on_chain.values().map(|n| n.saturating_sub(1)).sum::<u64>();
    let amount = |p: &pace_service::store::Proposal| -> U256 {
        p.intent.claimed.outflows.iter().map(|o| o.amount).sum()
    };
    let mut per_payment: BTreeMap<U256, u64> = BTreeMap::new();
    let mut executed_ids = BTreeSet::new();
    let mut executed_amount = U256::ZERO;
    for p in &proposals {
        let Some(signed) = &p.pdr else { continue };
        if on_chain.contains_key(&signed.digest) {
            *per_payment.entry(amount(p)).or_default() += 1;
            executed_amount += amount(p);
            executed_ids.insert(p.id.as_str());
        }
    }
    f.double_executions += per_payment
        .values()
        .map(|n| n.saturating_sub(1))
        .sum::<u64>();
    let after = balances(node, dai, payee, account).await?;
    if after.0 - before.0 != executed_amount || before.1 - after.1 != executed_amount {
        return Err(format!(
            "DAI moved: payee +{}, account -{}; the executed proposals sent {executed_amount}",
            after.0 - before.0,
            before.1 - after.1
        ));
    }
    // Nonces: one live PDR per (lane, sequence); each sequence a lane consumed on-chain is one
    // executed PDR of the store; one PDR per relayer nonce (each instance its own relayer).
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
    let shared_relayer_nonces = store
        .scalar(
            "SELECT count(*) FROM (SELECT sender, nonce FROM transactions
             WHERE sender IS NOT NULL GROUP BY sender, nonce
             HAVING count(DISTINCT proposal_id) > 1) x",
        )
        .map_err(e)?;
    f.nonces_reused += u64::try_from(shared_relayer_nonces).unwrap_or(0);
    f.relayers = u64::try_from(
        store
            .scalar("SELECT count(DISTINCT sender) FROM transactions WHERE sender IS NOT NULL")
            .map_err(e)?,
    )
    .unwrap_or(0);
    // Decisions: every answered payment is stored (the same amount) and audited; an answered
    // execution is executed in the store and on-chain; the store says executed exactly when
    // the chain does; every execution on-chain is a stored PDR.
    let audited: BTreeSet<String> = store
        .audit_records(1, 10_000_000)
        .map_err(e)?
        .into_iter()
        .filter(|r| r.entry.kind == "propose")
        .filter_map(|r| r.entry.proposal_id)
        .collect();
    for s in seen {
        match by_id.get(s.proposal_id.as_str()) {
            None => f.decisions_lost += 1,
            Some(p) => {
                let lost = s.state == "executed"
                    && !(p.state == ProposalState::Executed
                        && executed_ids.contains(p.id.as_str()));
                f.decisions_lost +=
                    u64::from(lost || amount(p) != s.amount || !audited.contains(&p.id));
            }
        }
    }
    for p in &proposals {
        let here = executed_ids.contains(p.id.as_str());
        f.decisions_lost += u64::from(here != (p.state == ProposalState::Executed));
    }
    let known: BTreeSet<B256> = proposals
        .iter()
        .filter_map(|p| p.pdr.as_ref().map(|s| s.digest))
        .collect();
    f.decisions_lost += on_chain.keys().filter(|d| !known.contains(*d)).count() as u64;
    let count = |code: &str| -> Result<u64, String> {
        let n = store
            .scalar(&format!(
                "SELECT count(*) FROM audit WHERE entry LIKE '%\"codes\":[\"{code}\"]%'"
            ))
            .map_err(e)?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    f.fenced = count("FENCED")?;
    f.lease_takeovers = count("LANE_TAKEN_OVER")?;
    match store.verify_audit().map_err(e)? {
        Ok(_) => {}
        Err(broken) => return Err(format!("audit chain broken: {broken}")),
    }
    Ok(f)
}
