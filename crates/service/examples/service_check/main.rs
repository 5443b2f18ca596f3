//! `make service-check`: `pace serve --rpc` under concurrent load and faults, against its own
//! anvil holding the embedded world. Starts anvil (loopback, free port) and the `pace serve`
//! processes itself, and kills only them, by PID.
//!
//! 1. Load: [`CLIENTS`] concurrent agents, [`ROUNDS`] transfers each: propose (half of them
//!    delivered twice), then confirm once, twice with the same bytes at once (I7), or raced
//!    by the same confirmation in other bytes.
//! 2. Crash: mining off, one confirm; as soon as the store holds its transaction hash and the
//!    node has the transaction pending without a receipt, `kill -9` of the server. Restart on
//!    the same store: the transaction is `uncertain` with its hash; mining resumes and status
//!    reconciles it to `executed`. The interrupted confirm is delivered again: the dead
//!    process's claim on it was released at start, and it is refused (`NOT_CONFIRMABLE`).
//! 3. Load again on the restarted server, then a final restart (reconciliation at start).
//!
//! Keyed retries, by an agent with the `unattended` scope: an unattended payment sent with an
//! `Idempotency-Key`, then again with its JSON keys in another order (replayed), and again
//! after the 30 s window of requests without a key, across the `kill -9` and its restart
//! (replayed); and the crashed confirm of phase 2 carries a key too, its re-delivery after the
//! restart answered from the proposal. Each executes once, as the chain shows.
//!
//! Then it establishes the zeros from the chain and the store (`verify.rs`) and prints one line:
//! `service: requests=… duplicates=… replayed=… crashes=… keyed_retries=… double_executions=0
//! nonces_reused=0 decisions_lost=0 p50_ms=… p99_ms=… rps=…` (latencies over every request; requests per
//! second over the two load phases). Any other finding fails with exit code 1.

mod client;
mod server;
mod verify;

use alloy::providers::Provider;
use alloy_primitives::{B256, U256};
use client::{Agent, Seen, Tally, transfer};
use pace_node::{Anvil, NodeClient};
use pace_service::{
    audit::CallerType,
    auth::{Grant, Scope, token_hash},
};
use server::{Launch, Server};
use std::{
    process::ExitCode,
    sync::atomic::Ordering,
    time::{Duration, Instant},
};

/// The idempotency key of the confirm the `kill -9` interrupts.
const CRASH_KEY: &str = "svc-check-crashed-confirm";

/// Concurrent agents.
const CLIENTS: usize = 8;
/// Logical requests per agent in the first load phase (half as many in the second).
const ROUNDS: usize = 12;

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("service-check: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let started = Instant::now();
    let bin = server::pace_bin()?;
    let dir = std::env::temp_dir().join(format!("pace-service-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = check(&bin, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let line = out?;
    eprintln!("service-check: {:.1} s", started.elapsed().as_secs_f64());
    Ok(line)
}

fn check(bin: &std::path::Path, dir: &std::path::Path) -> Result<String, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let verifier = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
        .map_err(|e| e.to_string())?;
    let world = pace_world::World::new(verifier.address()).map_err(|e| e.to_string())?;
    let a = world.addrs;
    let (anvil, node) = rt
        .block_on(pace_testkit::on_node::world_on_anvil(&world.evm))
        .map_err(|e| format!("the world on anvil: {e}"))?;
    let chain_id = world.evm.chain_id();
    drop(world);

    // One token per agent (propose, confirm, read).
    let secrets: Vec<String> = (0..CLIENTS)
        .map(|i| format!("svc-check-{i}-{}", alloy_primitives::keccak256(nonce(i))))
        .collect();
    let grants: Vec<Grant> = secrets
        .iter()
        .enumerate()
        .map(|(i, secret)| Grant {
            id: format!("agent-{i}"),
            caller_type: CallerType::Agent,
            token_hashes: vec![token_hash(secret)],
            scopes: [Scope::Propose, Scope::Confirm, Scope::Read]
                .into_iter()
                .collect(),
            tokens: None,
            max_outflow: Default::default(),
            rate_per_minute: 10_000,
            tenants: None,
            approval_threshold_wei: None,
        })
        .collect();
    // The agent that executes unattended, with idempotency keys.
    let retrier_secret = format!(
        "svc-check-retrier-{}",
        alloy_primitives::keccak256(nonce(99))
    );
    let mut grants = grants;
    grants.push(Grant {
        id: "retrier".to_owned(),
        caller_type: CallerType::Agent,
        token_hashes: vec![token_hash(&retrier_secret)],
        scopes: [
            Scope::Propose,
            Scope::Confirm,
            Scope::Unattended,
            Scope::Read,
        ]
        .into_iter()
        .collect(),
        tokens: None,
        max_outflow: Default::default(),
        rate_per_minute: 10_000,
        tenants: None,
        approval_threshold_wei: None,
    });
    let tokens = dir.join("tokens.json");
    std::fs::write(
        &tokens,
        serde_json::to_vec(&grants).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let launch = Launch {
        bin: bin.to_owned(),
        rpc: anvil.url().to_owned(),
        store: dir.join("pace.sqlite"),
        tokens,
        relayer_key: Anvil::dev_key(2).to_string(),
        lanes: (0..16).map(|l| l.to_string()).collect::<Vec<_>>().join(","),
    };
    let before = rt.block_on(verify::balances(&node, a.dai, a.payee, a.account))?;
    let tally = Tally::default();
    let mut seen: Vec<Seen> = Vec::new();
    let (mut replayed, mut crashes) = (0u64, 0u64);
    let (mut load_time, mut load_requests) = (Duration::ZERO, 0u64);
    let intent = |client: usize, round: usize| {
        // Distinct amounts: one intent per logical request.
        let amount = U256::from(1_000_000_000_000u64 * (1 + client as u64 * 1_000 + round as u64));
        (
            transfer(chain_id, a.account, a.dai, a.payee, amount),
            amount,
        )
    };

    // 1. Load, after a keyed unattended payment and its retry with reordered keys.
    let server = Server::start(&launch)?;
    let keyed_at = Instant::now();
    let (keyed_intent, keyed_amount) = intent(CLIENTS + 1, 0);
    let keyed = serde_json::json!({ "intent": keyed_intent, "execute": true }).to_string();
    let reordered = format!(
        r#"{{"execute":true,"intent":{}}}"#,
        serde_json::to_string(&keyed_intent).map_err(|e| e.to_string())?
    );
    let retrier = agent(&server, &retrier_secret, &tally);
    let (code, first_keyed, replayed_first) =
        retrier.post_keyed("/v1/propose", &keyed, "svc-check-pay-1")?;
    if code != 200 || replayed_first || first_keyed["confirmed"]["state"] != "executed" {
        return Err(format!("the keyed payment: {code} {first_keyed}"));
    }
    let mut keyed_retries = 0u64;
    let retry_keyed = |server: &Server, what: &str| -> Result<(), String> {
        let retrier = agent(server, &retrier_secret, &tally);
        tally.duplicates.fetch_add(1, Ordering::Relaxed);
        let (code, again, replayed) =
            retrier.post_keyed("/v1/propose", &reordered, "svc-check-pay-1")?;
        if code != 200 || !replayed || again != first_keyed {
            return Err(format!(
                "the keyed retry {what}: {code} replayed={replayed} {again}"
            ));
        }
        Ok(())
    };
    retry_keyed(&server, "with reordered keys")?;
    keyed_retries += 1;
    seen.push(Seen {
        proposal_id: first_keyed["preview"]["proposal_id"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        amount: keyed_amount,
        confirmed: Some("executed".to_owned()),
    });
    let (t, n) = (Instant::now(), tally.requests.load(Ordering::Relaxed));
    seen.extend(load(&server, &secrets, &tally, 0..ROUNDS, &intent)?);
    load_time += t.elapsed();
    load_requests += tally.requests.load(Ordering::Relaxed) - n;
    replayed += replays(&server)?;

    // 2. kill -9 with a submitted transaction and no receipt in the store.
    let (crashed, hash) = crash(&rt, &node, server, &launch, &secrets[0], &tally, &intent)?;
    crashes += 1;
    let server = Server::start(&launch)?;
    let agent = agent(&server, &secrets[0], &tally);
    let status = |agent: &Agent<'_>| agent.get(&format!("/v1/status/{}", crashed.proposal_id));
    let (_, st) = status(&agent)?;
    if st["state"] != "uncertain" || st["tx_hashes"][0] != serde_json::json!(hash) {
        return Err(format!("after the crash, before mining: {st}"));
    }
    rt.block_on(anvil_rpc(&node, "evm_mine", serde_json::json!([])))?;
    rt.block_on(anvil_rpc(
        &node,
        "evm_setAutomine",
        serde_json::json!([true]),
    ))?;
    let (_, st) = status(&agent)?;
    if st["state"] != "executed" {
        return Err(format!("after mining, the crashed confirm is {st}"));
    }
    // The interrupted confirm delivered again with its key: answered from the proposal the
    // dead process had reached (executed), never run twice.
    let confirm =
        serde_json::json!({ "proposal_id": crashed.proposal_id, "confirm": true }).to_string();
    tally.duplicates.fetch_add(1, Ordering::Relaxed);
    let (code, again, was_replayed) = agent.post_keyed("/v1/confirm", &confirm, CRASH_KEY)?;
    if code != 200 || !was_replayed || again["state"] != "executed" {
        return Err(format!(
            "the crashed confirm delivered again: {code} replayed={was_replayed} {again}"
        ));
    }
    keyed_retries += 1;
    // And without its key: answered (from the proposal, or refused by its state), never run.
    tally.duplicates.fetch_add(1, Ordering::Relaxed);
    let (code, again) = agent.post_until_answered("/v1/confirm", &confirm)?;
    if !(code == 200 && again["state"] == "executed" || again["error"]["code"] == "NOT_CONFIRMABLE")
    {
        return Err(format!(
            "the crashed confirm without its key: {code} {again}"
        ));
    }
    // The keyed payment of phase 1, after the kill -9.
    retry_keyed(&server, "after the restart")?;
    keyed_retries += 1;
    seen.push(Seen {
        confirmed: Some("executed".to_owned()),
        ..crashed
    });

    // 3. Load again, then one more restart: reconciliation at start finds nothing pending.
    let (t, n) = (Instant::now(), tally.requests.load(Ordering::Relaxed));
    seen.extend(load(
        &server,
        &secrets,
        &tally,
        ROUNDS..ROUNDS + ROUNDS / 2,
        &intent,
    )?);
    load_time += t.elapsed();
    load_requests += tally.requests.load(Ordering::Relaxed) - n;
    replayed += replays(&server)?;
    // The keyed payment once more, past the 30 s window of requests without a key.
    let window = Duration::from_secs(31);
    if let Some(left) = window.checked_sub(keyed_at.elapsed()) {
        std::thread::sleep(left);
    }
    retry_keyed(&server, "after the 30 s window")?;
    keyed_retries += 1;
    drop(server);
    let server = Server::start(&launch)?;
    drop(server);

    let found = rt.block_on(verify::verify(
        &node,
        &launch.store,
        (a.account, a.dai, a.payee),
        before,
        &seen,
    ))?;
    drop(anvil);
    if found.double_executions + found.nonces_reused + found.decisions_lost != 0 {
        return Err(format!("{found:?}"));
    }
    let duplicates = tally.duplicates.load(Ordering::Relaxed);
    if duplicates == 0 || found.executed == 0 {
        return Err(format!(
            "nothing tested: {duplicates} duplicates, {found:?}"
        ));
    }
    let mut lat = tally
        .latencies
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    lat.sort();
    let pct = |q: f64| lat[((lat.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    let requests = tally.requests.load(Ordering::Relaxed);
    Ok(format!(
        "service: requests={requests} duplicates={duplicates} replayed={replayed} \
         crashes={crashes} keyed_retries={keyed_retries} double_executions={} nonces_reused={} \
         decisions_lost={} \
         p50_ms={:.1} p99_ms={:.1} rps={:.1}",
        found.double_executions,
        found.nonces_reused,
        found.decisions_lost,
        pct(0.50),
        pct(0.99),
        load_requests as f64 / (load_time.as_secs_f64() + 1e-9),
    ))
}

/// Unguessable enough for a loopback check: the clock, the PID and the index, hashed.
fn nonce(i: usize) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos}/{}/{i}", std::process::id())
}

fn agent<'a>(server: &Server, secret: &str, tally: &'a Tally) -> Agent<'a> {
    Agent {
        http: reqwest::blocking::Client::new(),
        base: format!("http://{}", server.addr),
        token: secret.to_owned(),
        tally,
    }
}

/// Every agent runs `rounds` logical requests at once.
fn load(
    server: &Server,
    secrets: &[String],
    tally: &Tally,
    rounds: std::ops::Range<usize>,
    intent: &(dyn Fn(usize, usize) -> (pace_types::Intent, U256) + Sync),
) -> Result<Vec<Seen>, String> {
    std::thread::scope(|s| {
        let handles: Vec<_> = secrets
            .iter()
            .enumerate()
            .map(|(c, secret)| {
                let rounds = rounds.clone();
                s.spawn(move || {
                    let agent = agent(server, secret, tally);
                    rounds
                        .map(|r| {
                            let (i, amount) = intent(c, r);
                            agent.round(&i, amount, r)
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        let mut all = Vec::new();
        for h in handles {
            all.extend(h.join().map_err(|_| "an agent panicked".to_owned())??);
        }
        Ok(all)
    })
}

/// Stops mining, confirms one transfer and `kill -9`s the server once the store holds the
/// transaction's hash and the node has it pending without a receipt. Returns the proposal and
/// the hash.
fn crash(
    rt: &tokio::runtime::Runtime,
    node: &NodeClient,
    server: Server,
    launch: &Launch,
    secret: &str,
    tally: &Tally,
    intent: &dyn Fn(usize, usize) -> (pace_types::Intent, U256),
) -> Result<(Seen, B256), String> {
    let agent = agent(&server, secret, tally);
    let (transfer, amount) = intent(0, 999);
    let body = serde_json::json!({ "intent": transfer }).to_string();
    let (_, proposed) = agent.post("/v1/propose", &body)?;
    let id = proposed["preview"]["proposal_id"]
        .as_str()
        .ok_or_else(|| format!("propose: {proposed}"))?
        .to_owned();
    rt.block_on(anvil_rpc(
        node,
        "evm_setAutomine",
        serde_json::json!([false]),
    ))?;
    let confirm = serde_json::json!({ "proposal_id": id, "confirm": true }).to_string();
    let db = rusqlite::Connection::open_with_flags(
        &launch.store,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .map_err(|e| e.to_string())?;
    let hash = std::thread::scope(|s| {
        // The confirm's answer never comes: the server dies first.
        s.spawn(|| agent.post_keyed("/v1/confirm", &confirm, CRASH_KEY));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if Instant::now() > deadline {
                return Err(
                    "no pending transaction in the store and the node within 20 s".to_owned(),
                );
            }
            std::thread::sleep(Duration::from_millis(2));
            let row: Option<(String, String)> = db
                .query_row(
                    "SELECT t.tx_hash, p.state FROM transactions t JOIN proposals p
                     ON p.id = t.proposal_id WHERE p.id = ?1",
                    [&id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .ok();
            let Some((hash, state)) = row else { continue };
            let hash: B256 = hash.parse().map_err(|e| format!("{hash}: {e}"))?;
            let p = node.provider();
            let pending = rt.block_on(p.get_transaction_by_hash(hash)).ok().flatten();
            let receipt = rt.block_on(p.get_transaction_receipt(hash)).ok().flatten();
            if pending.is_some() && receipt.is_none() && state == "submitted" {
                server.kill9()?;
                return Ok(hash);
            }
        }
    })?;
    Ok((
        Seen {
            proposal_id: id,
            amount,
            confirmed: None,
        },
        hash,
    ))
}

/// The server's count of replayed duplicates (its own metric, since it started).
fn replays(server: &Server) -> Result<u64, String> {
    let text = reqwest::blocking::get(format!("http://{}/metrics", server.addr))
        .and_then(|r| r.text())
        .map_err(|e| format!("/metrics: {e}"))?;
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("pace_idempotent_replays_total{source=\"recorded\"} "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0))
}

async fn anvil_rpc(
    node: &NodeClient,
    method: &'static str,
    params: serde_json::Value,
) -> Result<(), String> {
    node.provider()
        .raw_request::<_, serde_json::Value>(method.into(), params)
        .await
        .map(|_| ())
        .map_err(|e| format!("{method}: {e}"))
}
