//! `pace serve --rpc` on a real anvil holding the embedded world: confirm submits with the
//! hash recorded before the broadcast and reports `executed` only from a receipt; with mining
//! stopped the receipt never comes (I3: `uncertain` with the hash) until mining resumes; and a
//! restart reconciles against the chain (executed, expired).

use crate::common::{ALL, grant};
use alloy::providers::Provider;
use alloy_primitives::{B256, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, PaceAccount};
use pace_node::{Anvil, NodeClient};
use pace_pipeline::{ExecutionResult, Pipeline};
use pace_service::{
    Error, Service, ServiceConfig,
    auth::ApiTokens,
    chain::{NodeChain, NodeConfig},
    store::{ProposalState, ReservationState, SqliteStore, Store},
};
use pace_signer::{DEV_VERIFIER_KEY, PdrSigner};
use pace_types::{CompiledPolicy, Intent};
use pace_world::{Addresses, World, default_policy};
use std::{path::PathBuf, time::Duration};

/// The embedded world on anvil, and what a service on it needs.
pub(crate) struct OnAnvil {
    pub(crate) runtime: tokio::runtime::Runtime,
    pub(crate) anvil: Anvil,
    client: NodeClient,
    addrs: Addresses,
    pub(crate) swap: Intent,
    policy: CompiledPolicy,
}

impl OnAnvil {
    pub(crate) fn start() -> Self {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let signer = PdrSigner::from_bytes(&DEV_VERIFIER_KEY).unwrap();
        let world = World::new(signer.address()).unwrap();
        let swap = pace_world::scenarios(&world)[0].intent.clone();
        let policy = CompiledPolicy::try_from(default_policy(&world.addrs)).unwrap();
        let (anvil, client) = runtime
            .block_on(pace_testkit::on_node::world_on_anvil(&world.evm))
            .unwrap();
        Self {
            runtime,
            anvil,
            client,
            addrs: world.addrs,
            swap,
            policy,
        }
    }

    /// A service on the node with `store`, relaying from anvil's dev account 2.
    pub(crate) fn service(&self, store: Box<dyn Store>, node: NodeConfig) -> Service {
        self.service_with(store, node, ServiceConfig::default())
    }

    /// [`Self::service`] with `config`.
    pub(crate) fn service_with(
        &self,
        store: Box<dyn Store>,
        node: NodeConfig,
        config: ServiceConfig,
    ) -> Service {
        let signer = PdrSigner::from_bytes(&DEV_VERIFIER_KEY).unwrap();
        let chain = NodeChain::connect(self.anvil.url(), Anvil::dev_signer(2), node).unwrap();
        Service::new(
            Pipeline::new(signer).with_revert_decoder(pace_world::revert_decoder()),
            self.policy.clone(),
            chain,
            store,
            ApiTokens::from_grants(vec![grant("alice", ALL)]).unwrap(),
            config,
        )
        .unwrap()
    }

    fn rpc(&self, method: &'static str, params: serde_json::Value) -> serde_json::Value {
        self.runtime
            .block_on(self.client.provider().raw_request(method.into(), params))
            .unwrap()
    }

    /// Sends `tx` (`eth_sendTransaction`) and waits for its receipt: anvil's automine answers
    /// with the hash before the block that holds it is in.
    fn send_mined(&self, tx: &serde_json::Value) {
        let hash = self.rpc("eth_sendTransaction", serde_json::json!([tx]));
        for _ in 0..500 {
            let receipt = self.rpc("eth_getTransactionReceipt", serde_json::json!([hash]));
            if !receipt.is_null() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("transaction {hash} was not mined");
    }

    pub(crate) fn set_automine(&self, on: bool) {
        self.rpc("evm_setAutomine", serde_json::json!([on]));
    }

    pub(crate) fn mine(&self) {
        self.rpc("evm_mine", serde_json::json!([]));
    }

    pub(crate) fn next_sequence(&self, lane: u32) -> u64 {
        self.runtime
            .block_on(self.client.call_sol(
                self.addrs.account,
                &PaceAccount::nextSequenceCall { key: lane },
            ))
            .unwrap()
    }

    /// The `PdrExecuted` logs of the account for `digest`.
    pub(crate) fn executed_logs(&self, digest: B256) -> usize {
        let filter = alloy::rpc::types::Filter::new()
            .address(self.addrs.account)
            .event_signature(
                <PaceAccount::PdrExecuted as alloy_sol_types::SolEvent>::SIGNATURE_HASH,
            )
            .topic1(digest)
            .from_block(0);
        self.runtime
            .block_on(self.client.provider().get_logs(&filter))
            .unwrap()
            .len()
    }
}

pub(crate) fn quick(window_ms: u64) -> NodeConfig {
    NodeConfig {
        receipt_window: Duration::from_millis(window_ms),
        poll_interval: Duration::from_millis(20),
        ..NodeConfig::default()
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pace-service-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("pace.sqlite")
}

fn tx_hash(outcome: &Option<ExecutionResult>) -> Option<B256> {
    match outcome {
        Some(
            ExecutionResult::Executed { tx_hash, .. }
            | ExecutionResult::Reverted { tx_hash, .. }
            | ExecutionResult::Uncertain { tx_hash, .. },
        ) => *tx_hash,
        None => None,
    }
}

/// Propose simulates on a fork of the node's latest block; confirm submits through the
/// pipeline, the hash is in the store, `executed` comes from the receipt, and the chain shows
/// the lane passed and exactly one `PdrExecuted` log for the digest.
#[test]
fn rpc_confirm_executes_from_the_receipt_with_its_hash_recorded() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    let proposed = service.propose(&alice, node.swap.clone(), false).unwrap();
    assert!(
        proposed.preview.approved,
        "{:?}",
        proposed.preview.violations
    );
    let id = proposed.preview.proposal_id;
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed, "{:?}", done.outcome);
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(status.tx_hashes.len(), 1);
    assert_eq!(Some(status.tx_hashes[0]), tx_hash(&done.outcome));
    assert_eq!(node.next_sequence(done.lane), done.sequence + 1);
    assert_eq!(node.executed_logs(done.pdr_digest), 1);
    let Some(ExecutionResult::Executed {
        balance_changes, ..
    }) = &done.outcome
    else {
        panic!("{:?}", done.outcome)
    };
    assert!(
        balance_changes
            .iter()
            .any(|c| c.token == node.addrs.weth && c.delta.is_negative()),
        "{balance_changes:?}"
    );
}

/// On a chain idle for longer than the PDR's window (no block for ten minutes: the node's
/// clock moved on, its latest block did not), the window is measured from when the PDR lands
/// (the node's pending block), not from the stale latest block: the confirm executes, inside
/// a window that opened at the decision and is open at the landing block.
#[test]
fn a_confirm_on_a_chain_idle_longer_than_the_window_lands_inside_it() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    let proposed = service.propose(&alice, node.swap.clone(), false).unwrap();
    let id = proposed.preview.proposal_id;
    let latest = node.runtime.block_on(node.client.latest_block()).unwrap();
    node.rpc("evm_increaseTime", serde_json::json!([600]));
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed, "{:?}", done.outcome);
    let p = service.store().proposal(&id).unwrap().unwrap();
    let terms = p.pdr.unwrap().pdr.terms();
    let landed = node.runtime.block_on(node.client.latest_block()).unwrap();
    assert!(landed.timestamp >= latest.timestamp + 600, "{landed:?}");
    assert!(terms.valid_after <= landed.timestamp && landed.timestamp <= terms.valid_until);
    assert!(
        terms.valid_until >= landed.timestamp + 250,
        "{terms:?} {landed:?}"
    );
}

/// I2 on a node. Gate: the balance loop of `sign_and_submit` (src/confirm.rs), which reads the
/// node's `latest` block through `ServiceChain::balance_of`. After the preview, the account's
/// WETH is moved out on the node (the account impersonated): confirm names the token, the
/// balance the node holds now and the shortfall, and nothing is signed.
#[test]
fn i2_on_a_node_confirm_reads_the_latest_balance_and_names_the_shortfall() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let (a, one) = (node.addrs, U256::from(10u64).pow(U256::from(18u64)));
    let keep = one / U256::from(4u64);
    let held: U256 = node
        .runtime
        .block_on(
            node.client
                .call_sol(a.weth, &IERC20::balanceOfCall { account: a.account }),
        )
        .unwrap();
    node.rpc("anvil_impersonateAccount", serde_json::json!([a.account]));
    let data = IERC20::transferCall {
        to: a.owner,
        value: held - keep,
    }
    .abi_encode();
    node.send_mined(
        &serde_json::json!({ "from": a.account, "to": a.weth, "data": Bytes::from(data) }),
    );
    let err = service.confirm(&alice, &id, true).unwrap_err();
    match &err {
        Error::InsufficientBalance {
            token,
            balance,
            needed,
            shortfall,
        } => assert_eq!(
            (*token, *balance, *needed, *shortfall),
            (a.weth, keep, one, one - keep)
        ),
        other => panic!("expected INSUFFICIENT_BALANCE, got {other:?}"),
    }
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(
        (status.state.as_str(), status.pdr_digest),
        ("proposed", None)
    );
    assert_eq!(node.next_sequence(0), 0);
}

/// I3 on a node. Gate: the receipt window of `Relay::send` (src/chain/node.rs) and the
/// `Uncertain` arm of confirm's state mapping. With mining stopped the receipt never comes:
/// confirm reports `uncertain` with the hash it recorded, never `executed` or a failure; the
/// same intent is refused meanwhile (I6). Once a block is mined, `status` reconciles it to
/// `executed` from the chain (lane passed, `PdrExecuted` log for the digest).
#[test]
fn i3_no_receipt_is_uncertain_with_the_hash_until_the_chain_shows_it() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(800));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Uncertain, "{:?}", done.outcome);
    let hash = tx_hash(&done.outcome).expect("an uncertain outcome carries the hash");
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(
        (status.state.as_str(), status.tx_hashes),
        ("uncertain", vec![hash])
    );
    assert_eq!(node.next_sequence(done.lane), done.sequence);

    // I6: the same intent may have landed; a new proposal of it cannot be confirmed.
    let again = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    assert_eq!(
        service.confirm(&alice, &again, true).unwrap_err().code(),
        "RETRY_BLOCKED"
    );

    node.mine();
    node.set_automine(true);
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(status.state, "executed", "{status:?}");
    assert_eq!(tx_hash(&status.outcome), Some(hash));
    assert_eq!(node.next_sequence(done.lane), done.sequence + 1);
    assert_eq!(node.executed_logs(done.pdr_digest), 1);
}

/// Crash reconciliation. Gate: `Service::reconcile` at start (src/restart.rs). Two PDRs are
/// submitted while mining is stopped and the service goes away with both uncertain. One is
/// then mined, the other dropped from the pool and left to pass its `validUntil`. A new
/// service on the same store, before accepting anything, finds the first executed (lane
/// passed, log present) and the second expired (sequence unused, window closed; its
/// reservation dead, so the next PDR reuses that sequence); a third, left `confirmed` by a
/// confirm that died before signing, is `proposed` again.
#[test]
fn a_restart_reconciles_submitted_transactions_against_the_chain() {
    let node = OnAnvil::start();
    let path = scratch("restart");
    let service = node.service(Box::new(SqliteStore::open(&path).unwrap()), quick(500));
    let alice = service.authenticate(Some("alice")).unwrap();
    let propose = |intent: &Intent| {
        service
            .propose(&alice, intent.clone(), false)
            .unwrap()
            .preview
            .proposal_id
    };
    // A different intent (I6 would block an equal one): the same swap, another note.
    let mut second_swap = node.swap.clone();
    second_swap
        .metadata
        .insert("note".into(), "the second one".into());

    node.set_automine(false);
    let first = propose(&node.swap);
    let a = service.confirm(&alice, &first, true).unwrap();
    assert_eq!(a.state, ProposalState::Uncertain);
    node.mine();
    let second = propose(&second_swap);
    let b = service.confirm(&alice, &second, true).unwrap();
    assert_eq!(b.state, ProposalState::Uncertain, "{:?}", b.outcome);
    assert_ne!((a.lane, a.sequence), (b.lane, b.sequence));
    // A third one's confirm died before signing: left `confirmed`, no PDR.
    let mut third_swap = node.swap.clone();
    third_swap
        .metadata
        .insert("note".into(), "the third one".into());
    let third = propose(&third_swap);
    {
        let st = service.state();
        let mut p = st.store.proposal(&third).unwrap().unwrap();
        p.state = ProposalState::Confirmed;
        st.store.put_proposal(&p).unwrap();
    }
    drop(service);

    // The second never lands: out of the pool, and the chain moves past its validUntil.
    node.rpc("anvil_dropAllTransactions", serde_json::json!([]));
    node.rpc("evm_increaseTime", serde_json::json!([3_600]));
    node.mine();
    node.set_automine(true);

    let service = node.service(Box::new(SqliteStore::open(&path).unwrap()), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    // Reconciled at start, before anything was asked (`status` would reconcile too).
    let stored = |id: &str| service.state().store.proposal(id).unwrap().unwrap().state;
    assert_eq!(
        (stored(&first), stored(&second), stored(&third)),
        (
            ProposalState::Executed,
            ProposalState::Expired,
            ProposalState::Proposed
        )
    );
    let s1 = service.status(&alice, &first).unwrap();
    let s2 = service.status(&alice, &second).unwrap();
    assert_eq!(
        (s1.state.as_str(), s2.state.as_str()),
        ("executed", "expired")
    );
    assert_eq!(node.executed_logs(a.pdr_digest), 1);
    assert_eq!(node.executed_logs(b.pdr_digest), 0);
    assert_eq!(
        node.next_sequence(b.lane),
        b.sequence,
        "the second's sequence is unused"
    );
    {
        let st = service.state();
        assert!(
            st.store
                .live_reservation(node.addrs.account, b.lane, b.sequence)
                .unwrap()
                .is_none()
        );
        let held = st
            .store
            .live_reservation(node.addrs.account, a.lane, a.sequence)
            .unwrap();
        assert_eq!(held.map(|r| r.state), Some(ReservationState::Signed));
        assert!(st.store.verify_audit().unwrap().is_ok());
        let codes: Vec<String> = st
            .store
            .audit_records(1, 1_000)
            .unwrap()
            .into_iter()
            .filter(|r| r.entry.kind == "reconcile")
            .flat_map(|r| r.entry.codes)
            .collect();
        assert!(
            codes.contains(&"RECONCILED_EXECUTED".to_owned()),
            "{codes:?}"
        );
        assert!(
            codes.contains(&"RECONCILED_EXPIRED".to_owned()),
            "{codes:?}"
        );
        assert!(codes.contains(&"NOT_SIGNED".to_owned()), "{codes:?}");
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// A PDR past its simulation's freshness. Gate: the freshness branch of reconciliation
/// (src/restart.rs). A submission is dropped from the pool and the chain moves on by more
/// blocks than the PDR's `maxSimulationAge`, well inside its `validUntil`: the account would
/// refuse it in any block to come, so `status` settles it `expired` (`RECONCILED_STALE`)
/// without rebroadcasting it, and its sequence is signed again by the next confirm.
#[test]
fn a_pdr_past_its_simulations_age_is_expired_and_its_sequence_reused() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(500));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Uncertain, "{:?}", done.outcome);
    let relayer = relayer_nonce(&node);
    node.rpc("anvil_dropAllTransactions", serde_json::json!([]));
    let age = pace_pipeline::PipelineConfig::default().max_simulation_age_blocks;
    // One block short of the limit the PDR could still land: it stays uncertain.
    node.rpc("anvil_mine", serde_json::json!([u64::from(age) - 1]));
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(status.state, "uncertain", "{status:?}");
    node.rpc("anvil_dropAllTransactions", serde_json::json!([]));
    node.rpc("anvil_mine", serde_json::json!([2]));
    node.set_automine(true);
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(status.state, "expired", "{status:?}");
    assert_eq!(relayer_nonce(&node), relayer, "nothing was rebroadcast");
    assert_eq!(node.next_sequence(done.lane), done.sequence);
    {
        let st = service.state();
        assert!(
            st.store
                .live_reservation(node.addrs.account, done.lane, done.sequence)
                .unwrap()
                .is_none(),
            "the sequence is free again"
        );
        let codes: Vec<String> = st
            .store
            .audit_records(1, 1_000)
            .unwrap()
            .into_iter()
            .filter(|r| r.entry.kind == "reconcile")
            .flat_map(|r| r.entry.codes)
            .collect();
        assert!(codes.contains(&"RECONCILED_STALE".to_owned()), "{codes:?}");
    }
    let mut again = node.swap;
    again.metadata.insert("note".into(), "once more".into());
    let id = service
        .propose(&alice, again, false)
        .unwrap()
        .preview
        .proposal_id;
    let next = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(next.state, ProposalState::Executed, "{:?}", next.outcome);
    assert_eq!(
        (next.lane, next.sequence),
        (done.lane, done.sequence),
        "the stale PDR's sequence, signed again"
    );
}

/// Replacement of a stuck transaction. Gate: `replace_if_stuck` in reconciliation
/// (src/restart.rs). With mining stopped, the submission stays pending; reconciliation
/// replaces it (same nonce, higher fees), recording the new hash before its broadcast, so the
/// proposal keeps both. Once mined, exactly one of them landed, the PDR executed once, and
/// the outcome names the replacement.
#[test]
fn a_stuck_transaction_is_replaced_and_every_hash_is_kept() {
    let node = OnAnvil::start();
    let config = NodeConfig {
        replace_after_secs: 0,
        ..quick(500)
    };
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), config);
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Uncertain);
    assert_eq!(service.reconcile().unwrap(), 0, "still uncertain");
    let hashes = service.state().store.tx_hashes(&id).unwrap();
    assert_eq!(
        hashes.len(),
        2,
        "the replacement's hash is kept beside the first"
    );
    let p = node.client.provider();
    let (old, new) = node.runtime.block_on(async {
        (
            p.get_transaction_by_hash(hashes[0]).await.unwrap(),
            p.get_transaction_by_hash(hashes[1]).await.unwrap().unwrap(),
        )
    });
    assert!(
        old.is_none(),
        "the node's pool dropped the replaced transaction"
    );
    assert_eq!(
        alloy::consensus::Transaction::nonce(&new),
        node.runtime
            .block_on(std::future::IntoFuture::into_future(
                p.get_transaction_count(Anvil::dev_address(2))
            ))
            .unwrap()
    );

    node.mine();
    node.set_automine(true);
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(status.state, "executed", "{status:?}");
    assert_eq!(tx_hash(&status.outcome), Some(hashes[1]));
    assert_eq!(status.tx_hashes, hashes);
    let receipt = node
        .runtime
        .block_on(p.get_transaction_receipt(hashes[0]))
        .unwrap();
    assert!(receipt.is_none());
    assert_eq!(node.executed_logs(done.pdr_digest), 1);
    assert_eq!(service.metrics().get("replacements", ""), 1);
}

/// Parallel simulation: `propose` and `confirm_with` release the lock around `fork_latest` and
/// `assess` (src/service.rs, src/confirm.rs). What that must not break, gated by the state
/// check of `check_confirmable` (the proposal stands `confirmed` while its confirm simulates)
/// and the durable lane reservation: four agents propose and confirm transfers at once, each
/// proposal confirmed twice at the same time; every one executes exactly once, on its own
/// lane sequence, and the racing confirm is refused.
#[test]
fn concurrent_confirms_simulate_in_parallel_and_never_share_a_sequence() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    let a = node.addrs;
    let transfer = |amount: u64| Intent {
        chain_id: node.swap.chain_id,
        account: a.account,
        calls: vec![pace_types::Call {
            target: a.dai,
            value: U256::ZERO,
            data: IERC20::transferCall {
                to: a.payee,
                value: U256::from(amount),
            }
            .abi_encode()
            .into(),
        }],
        claimed: pace_types::Claims {
            outflows: vec![pace_types::TokenAmount {
                token: a.dai,
                amount: U256::from(amount),
            }],
            ..Default::default()
        },
        metadata: Default::default(),
    };
    let done: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (1..=4u64)
            .map(|i| {
                let (service, alice, intent) = (&service, &alice, transfer(i * 1_000));
                s.spawn(move || {
                    let id = service
                        .propose(alice, intent, false)
                        .unwrap()
                        .preview
                        .proposal_id;
                    let other = id.clone();
                    let racing =
                        s.spawn(move || service.confirm(alice, &other, true).map_err(Box::new));
                    let first = service.confirm(alice, &id, true).map_err(Box::new);
                    (first, racing.join().unwrap())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut sequences = std::collections::BTreeSet::new();
    for (first, second) in done {
        let (ok, refused) = match (first, second) {
            (Ok(c), Err(e)) | (Err(e), Ok(c)) => (c, e),
            other => panic!("exactly one confirm of a proposal succeeds: {other:?}"),
        };
        assert_eq!(refused.code(), "NOT_CONFIRMABLE", "{refused}");
        assert_eq!(ok.state, ProposalState::Executed, "{:?}", ok.outcome);
        assert_eq!(node.executed_logs(ok.pdr_digest), 1);
        assert!(sequences.insert((ok.lane, ok.sequence)), "{sequences:?}");
    }
    assert_eq!(sequences.len(), 4);
}

/// I4 with a confirmation depth. Gate: `Relay::confirmed` (src/chain/node.rs) and the depth
/// condition of reconciliation (src/restart.rs). With two confirmations required and no block
/// after the transaction's own, the receipt alone is not enough: the outcome is `uncertain`
/// with the hash, and stays so on `status` until one more block is mined.
#[test]
fn i4_executed_only_once_the_receipt_is_deep_enough() {
    let node = OnAnvil::start();
    let config = NodeConfig {
        confirmations: 2,
        ..quick(600)
    };
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), config);
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Uncertain, "{:?}", done.outcome);
    let Some(ExecutionResult::Uncertain {
        reason,
        tx_hash: sent,
    }) = &done.outcome
    else {
        panic!("{:?}", done.outcome)
    };
    assert!(reason.contains("not 2 blocks deep"), "{reason}");
    assert_eq!(node.executed_logs(done.pdr_digest), 1, "it did land");
    assert_eq!(service.status(&alice, &id).unwrap().state, "uncertain");

    node.mine();
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(status.state, "executed", "{status:?}");
    assert_eq!(tx_hash(&status.outcome), *sent);
}

/// A confirm awaiting its receipt holds no lock. Gate: the lock released around
/// `NodeChain::submit` in `confirm_with` (src/confirm.rs). With mining stopped and a 5 s
/// receipt window, another caller proposes and reads its status while the first confirm
/// waits; both answer long before the window closes.
#[test]
fn a_confirm_awaiting_its_receipt_does_not_block_other_requests() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    std::thread::scope(|s| {
        let waiting = s.spawn(|| service.confirm(&alice, &id, true).map_err(Box::new));
        // Until the transaction is pending, the confirm may still hold the lock.
        while service.state().store.tx_hashes(&id).unwrap().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let started = std::time::Instant::now();
        let mut other = node.swap.clone();
        other
            .metadata
            .insert("note".into(), "while the first waits".into());
        let proposed = service.propose(&alice, other, false).unwrap();
        let status = service.status(&alice, &id).unwrap();
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "blocked for {took:?}");
        assert!(proposed.preview.approved);
        assert!(!waiting.is_finished(), "the confirm is still waiting");
        assert_eq!(status.tx_hashes.len(), 1);
        let done = waiting.join().unwrap().unwrap();
        assert_eq!(done.state, ProposalState::Uncertain);
    });
    node.mine();
    assert_eq!(service.status(&alice, &id).unwrap().state, "executed");
}

/// The relayer's (anvil dev account 2) transaction count at the latest block.
fn relayer_nonce(node: &OnAnvil) -> u64 {
    node.runtime
        .block_on(std::future::IntoFuture::into_future(
            node.client
                .provider()
                .get_transaction_count(Anvil::dev_address(2)),
        ))
        .unwrap()
}

/// Pre-flight on a node. Gate: `Service::preflight` (src/preflight.rs), on the fork of the
/// latest block, before anything is signed. The owner pauses the account after the preview:
/// confirm refuses with `ACCOUNT_PAUSED` and the relayer sends nothing (its nonce unchanged);
/// unpaused, it executes.
#[test]
fn preflight_on_a_node_refuses_a_paused_account_and_sends_nothing() {
    let node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(5_000));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    let pause = |on: bool| {
        let a = node.addrs;
        node.rpc("anvil_impersonateAccount", serde_json::json!([a.owner]));
        let data = PaceAccount::setPausedCall { paused_: on }.abi_encode();
        node.send_mined(
            &serde_json::json!({ "from": a.owner, "to": a.account, "data": Bytes::from(data) }),
        );
    };
    pause(true);
    let before = relayer_nonce(&node);
    let err = service.confirm(&alice, &id, true).unwrap_err();
    assert_eq!(err.code(), "ACCOUNT_PAUSED", "{err}");
    assert_eq!(relayer_nonce(&node), before, "the relayer sent nothing");
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(
        (status.state.as_str(), status.tx_hashes.len()),
        ("proposed", 0)
    );
    pause(false);
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Executed, "{:?}", done.outcome);
    assert_eq!(relayer_nonce(&node), before + 1);
}

/// A replacement mined after `validUntil` that reverts is `reverted`, with its receipt, not
/// `expired`. Gate: `reverted_receipt` in reconciliation (src/restart.rs), before the window
/// is looked at. Mining stopped: the submission and its replacement wait in the pool; the
/// chain moves an hour on and mines the replacement, which the account refuses.
#[test]
fn a_replacement_landing_after_valid_until_that_reverts_is_reverted_with_its_receipt() {
    let node = OnAnvil::start();
    let config = NodeConfig {
        replace_after_secs: 0,
        ..quick(500)
    };
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), config);
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Uncertain);
    service.reconcile().unwrap();
    let hashes = service.state().store.tx_hashes(&id).unwrap();
    assert_eq!(hashes.len(), 2, "replaced");
    node.rpc("evm_increaseTime", serde_json::json!([3_600]));
    node.mine();
    node.set_automine(true);
    node.mine();
    let status = service.status(&alice, &id).unwrap();
    assert_eq!(status.state, "reverted", "{status:?}");
    let Some(ExecutionResult::Reverted {
        tx_hash,
        gas_used,
        error,
        ..
    }) = &status.outcome
    else {
        panic!("{:?}", status.outcome)
    };
    assert_eq!(*tx_hash, Some(hashes[1]), "the replacement's receipt");
    assert!(*gas_used > 21_000, "{gas_used}");
    assert!(error.contains("Expired"), "{error}");
    assert_eq!(node.executed_logs(done.pdr_digest), 0);
}

/// A transaction the node lost is broadcast again from its signed bytes. Gate: `keep_sent`
/// (src/restart.rs) and the bytes recorded before the broadcast (`NodeChain::raw_of`). With
/// mining stopped the node's pool is emptied: reconciliation finds no transaction of the
/// proposal known and the relayer nonce unused, and rebroadcasts it; once mined it executed
/// once. A second one whose relayer nonce is then used by another transaction is dead: not
/// rebroadcast, and expired once its window closes.
#[test]
fn a_lost_transaction_is_rebroadcast_from_its_signed_bytes_until_its_nonce_is_used() {
    let node = OnAnvil::start();
    let path = scratch("rebroadcast");
    let service = node.service(Box::new(SqliteStore::open(&path).unwrap()), quick(400));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Uncertain);
    let sent = service.state().store.txs(&id).unwrap();
    assert!(sent[0].raw.is_some(), "the signed bytes are kept");
    assert_eq!(
        alloy_primitives::keccak256(sent[0].raw.as_ref().unwrap()),
        sent[0].tx_hash
    );
    node.rpc("anvil_dropAllTransactions", serde_json::json!([]));
    service.reconcile().unwrap();
    assert_eq!(service.metrics().get("rebroadcasts", ""), 1);
    node.mine();
    node.set_automine(true);
    assert_eq!(service.status(&alice, &id).unwrap().state, "executed");
    assert_eq!(node.executed_logs(done.pdr_digest), 1);

    // A second one, lost, and its relayer nonce taken by another transaction.
    let mut other = node.swap.clone();
    other.metadata.insert("note".into(), "the second".into());
    let second = service
        .propose(&alice, other, false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    let b = service.confirm(&alice, &second, true).unwrap();
    assert_eq!(b.state, ProposalState::Uncertain);
    node.rpc("anvil_dropAllTransactions", serde_json::json!([]));
    let relayer = node
        .runtime
        .block_on(NodeClient::connect(node.anvil.url(), Anvil::dev_signer(2)))
        .unwrap();
    node.runtime
        .block_on(relayer.send(Anvil::dev_address(1), U256::from(1u8), Bytes::new()))
        .unwrap();
    node.mine();
    service.reconcile().unwrap();
    assert_eq!(
        service.metrics().get("rebroadcasts", ""),
        1,
        "not rebroadcast"
    );
    assert_eq!(service.metrics().get("transactions_dead", ""), 1);
    node.rpc("evm_increaseTime", serde_json::json!([3_600]));
    node.mine();
    node.set_automine(true);
    assert_eq!(service.status(&alice, &second).unwrap().state, "expired");
    assert_eq!(node.executed_logs(b.pdr_digest), 0);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// `status` and `history` answer from the store while the node is unreachable, marked stale.
/// Gate: the `Err(Error::Chain(_) | Error::Pipeline(_))` arm of `Service::status`.
#[test]
fn status_and_history_answer_from_the_store_while_the_node_is_down() {
    let mut node = OnAnvil::start();
    let service = node.service(Box::new(SqliteStore::in_memory().unwrap()), quick(300));
    let alice = service.authenticate(Some("alice")).unwrap();
    let id = service
        .propose(&alice, node.swap.clone(), false)
        .unwrap()
        .preview
        .proposal_id;
    node.set_automine(false);
    let done = service.confirm(&alice, &id, true).unwrap();
    assert_eq!(done.state, ProposalState::Uncertain);
    node.anvil.kill();
    let status = service.status(&alice, &id).unwrap();
    assert_eq!((status.state.as_str(), status.stale), ("uncertain", true));
    assert_eq!(status.tx_hashes.len(), 1);
    let history = service.history(&alice, 10).unwrap();
    assert_eq!(history.len(), 1);
    assert!(history[0].stale);
}

/// The bounded wait for a free lane. Gate: the `NoFreeLane` arm of confirm's signing loop
/// (`ServiceConfig::lane_wait`, src/confirm.rs). With one lane held by a PDR whose receipt has
/// not come, a second confirm waits `lane_wait` and then answers `NO_FREE_LANE` (503,
/// `Retry-After`), nothing signed and the proposal confirmable again; with a longer wait, it
/// signs on the lane as soon as the first one settles, both executed, in order on the lane.
#[test]
fn a_confirm_waits_briefly_for_a_free_lane() {
    let node = OnAnvil::start();
    let with_wait = |wait_ms: u64, receipt_ms: u64| {
        let config = ServiceConfig {
            lanes: vec![0],
            lane_wait: Duration::from_millis(wait_ms),
            ..ServiceConfig::default()
        };
        let store = Box::new(SqliteStore::in_memory().unwrap());
        node.service_with(store, quick(receipt_ms), config)
    };
    let noted = |note: &str| {
        let mut intent = node.swap.clone();
        intent.metadata.insert("note".into(), note.into());
        intent
    };

    // Bounded: the lane stays held, the wait ends, NO_FREE_LANE.
    let service = with_wait(400, 300);
    let alice = service.authenticate(Some("alice")).unwrap();
    let propose = |service: &Service, note: &str| {
        service
            .propose(&alice, noted(note), false)
            .unwrap()
            .preview
            .proposal_id
    };
    let held = propose(&service, "held");
    let waiting = propose(&service, "waiting");
    node.set_automine(false);
    let first = service.confirm(&alice, &held, true).unwrap();
    assert_eq!(first.state, ProposalState::Uncertain, "{:?}", first.outcome);
    let started = std::time::Instant::now();
    let err = service.confirm(&alice, &waiting, true).unwrap_err();
    let waited = started.elapsed();
    assert_eq!(err.code(), "NO_FREE_LANE", "{err}");
    assert_eq!((err.http_status(), err.retry_after()), (503, Some(2)));
    assert!(
        waited >= Duration::from_millis(400),
        "answered after {waited:?}"
    );
    assert!(waited < Duration::from_secs(5), "answered after {waited:?}");
    assert!(service.metrics().get("lane_waits", "") >= 1);
    assert_eq!(service.status(&alice, &waiting).unwrap().state, "proposed");
    node.mine();
    node.set_automine(true);
    assert_eq!(service.status(&alice, &held).unwrap().state, "executed");
    drop(service);

    // Waiting: the second confirm signs once the first one's receipt frees the lane.
    let service = with_wait(30_000, 20_000);
    let alice = service.authenticate(Some("alice")).unwrap();
    let a = propose(&service, "first in line");
    let b = propose(&service, "second in line");
    node.set_automine(false);
    // An error as its text: `Error` is large to carry across threads.
    let confirm = |id: &str| service.confirm(&alice, id, true).map_err(|e| e.to_string());
    let (first, second) = std::thread::scope(|s| {
        let first = s.spawn(|| confirm(&a));
        let submitted = |id: &str| {
            let p = service.state().store.proposal(id).unwrap().unwrap();
            p.state == ProposalState::Submitted
        };
        let until = std::time::Instant::now() + Duration::from_secs(20);
        while !submitted(&a) {
            assert!(
                std::time::Instant::now() < until,
                "the first was never sent"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let second = s.spawn(|| confirm(&b));
        while service.metrics().get("lane_waits", "") == 0 {
            assert!(std::time::Instant::now() < until, "the second never waited");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !second.is_finished(),
            "the second answered while the lane was held"
        );
        node.mine();
        node.set_automine(true);
        (first.join().unwrap(), second.join().unwrap())
    });
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(first.state, ProposalState::Executed, "{:?}", first.outcome);
    assert_eq!(
        second.state,
        ProposalState::Executed,
        "{:?}",
        second.outcome
    );
    assert_eq!((first.lane, first.sequence), (0, 1));
    assert_eq!((second.lane, second.sequence), (0, 2));
    assert_eq!(node.next_sequence(0), 3);
    assert_eq!(node.executed_logs(second.pdr_digest), 1);
}
