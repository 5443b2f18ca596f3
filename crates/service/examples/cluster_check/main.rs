//! `make cluster-check`: three `pace serve --rpc` instances for one account on one PostgreSQL
//! store, under concurrent clients and faults. It starts, and stops by PID, everything it
//! uses: a PostgreSQL server of its own (a fresh cluster in a temporary directory, on a free
//! loopback port, as an unprivileged user when run as root), anvil holding the embedded world,
//! and the instances, each with its own relayer key.
//!
//! 1. Load: concurrent clients; each logical request (a keyed unattended payment) is sent to
//!    two instances at once, each delivery retried on a timeout, `IN_PROGRESS` or a 503.
//! 2. `kill -9` of one instance while the store holds its submitted transaction and the node
//!    has it pending (mining stopped); the payment is delivered again to the others (answered
//!    from its proposal once the dead instance's lease lapsed); the instance restarts.
//! 3. The database stops for three seconds under load: instances answer 503
//!    `STORE_UNAVAILABLE` with `Retry-After`, decide nothing, and recover when it returns.
//! 4. One instance stops itself (`SIGSTOP`) just before recording a signature; after its lease
//!    lapsed another instance takes its lane over and executes there; continued (`SIGCONT`),
//!    the paused instance's signature is refused by the fencing token (`FENCED`).
//!
//! Then every zero is established from the chain (`PdrExecuted` logs, lane positions,
//! balances) and from the database (`verify.rs`), the audit chain is verified (and `pace audit
//! verify --store URL` run), and one line is printed:
//! `cluster: instances=3 requests=… cross_instance_duplicates=… instance_kills=1 db_outages=1
//! fenced=… lease_takeovers=… double_executions=0 nonces_reused=0 decisions_lost=0
//! audit_chain=ok rps=… p99_ms=…` (requests per second and p99 over every HTTP request of the
//! load phases). Any other finding fails with exit code 1.

mod instances;
mod load;
mod verify;

use alloy::providers::Provider;
use alloy_primitives::U256;
use instances::{Instance, Launch};
use load::{Addrs, Outcome, Tally};
use pace_node::NodeClient;
use pace_service::{
    audit::CallerType,
    auth::{Grant, Scope, token_hash},
    store::{PgStore, ProposalState, Store},
};
use std::{
    process::ExitCode,
    sync::{RwLock, atomic::Ordering},
    time::{Duration, Instant},
};

/// Concurrent clients.
const CLIENTS: usize = 6;
/// Logical requests per client in each load phase.
const ROUNDS: usize = 8;
/// The instances' leases.
const LEASE_MS: u64 = 3_000;
/// The memo of the payment the paused instance stops before signing.
const FENCE_MEMO: &str = "cluster-fence";

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cluster-check: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let started = Instant::now();
    let bin = instances::pace_bin()?;
    let dir = std::env::temp_dir().join(format!("pace-cluster-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = check(&bin, &dir);
    if out.is_ok() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!(
            "cluster-check: the instances' logs are in {}",
            dir.display()
        );
    }
    let line = out?;
    eprintln!("cluster-check: {:.1} s", started.elapsed().as_secs_f64());
    Ok(line)
}

fn grant(id: &str, secret: &str) -> Grant {
    Grant {
        id: id.to_owned(),
        caller_type: CallerType::Agent,
        token_hashes: vec![token_hash(secret)],
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
        rate_per_minute: 100_000,
        tenants: None,
        approval_threshold_wei: None,
    }
}

fn secret(i: usize) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "cluster-{i}-{}",
        alloy_primitives::keccak256(format!("{nanos}/{}/{i}", std::process::id()))
    )
}

#[allow(clippy::too_many_lines)]
fn check(bin: &std::path::Path, dir: &std::path::Path) -> Result<String, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let pg = pace_testkit::postgres::TempPostgres::start_with(true)?;
    let url = pg.create_database("pace")?;
    let verifier = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
        .map_err(|e| e.to_string())?;
    let world = pace_world::World::new(verifier.address()).map_err(|e| e.to_string())?;
    let a = world.addrs;
    let (anvil, node) = rt
        .block_on(pace_testkit::on_node::world_on_anvil(&world.evm))
        .map_err(|e| format!("the world on anvil: {e}"))?;
    let chain_id = world.evm.chain_id();
    drop(world);

    let secrets: Vec<String> = (0..=CLIENTS).map(secret).collect();
    let grants: Vec<Grant> = secrets
        .iter()
        .enumerate()
        .map(|(i, s)| grant(&format!("agent-{i}"), s))
        .collect();
    let tokens = dir.join("tokens.json");
    std::fs::write(
        &tokens,
        serde_json::to_vec(&grants).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let launch = Launch {
        bin: bin.to_owned(),
        rpc: anvil.url().to_owned(),
        store: url.clone(),
        tokens,
        lanes: (0..8).map(|l| l.to_string()).collect::<Vec<_>>().join(","),
        lease_ms: LEASE_MS,
        dir: dir.to_owned(),
    };
    // Each instance its own relayer, funded on anvil.
    let key =
        |k: usize| alloy_primitives::keccak256(format!("cluster-check relayer {k}")).to_string();
    for k in 0..3 {
        let signer: alloy::signers::local::PrivateKeySigner =
            key(k).parse().map_err(|e| format!("relayer key: {e}"))?;
        rpc(
            &rt,
            &node,
            "anvil_setBalance",
            serde_json::json!([signer.address(), "0x56bc75e2d63100000"]),
        )?;
    }
    let mut inst: Vec<Instance> = Vec::new();
    for k in 0..3 {
        // i1 is the one that will stop itself before a signature (phase 4).
        inst.push(Instance::start(&launch, &format!("i{k}"), &key(k), k == 1)?);
    }
    let addrs: Addrs = RwLock::new(inst.iter().map(|i| i.addr.clone()).collect());
    let store = PgStore::connect(&url).map_err(|e| e.to_string())?;
    let before = rt.block_on(verify::balances(&node, a.dai, a.payee, a.account))?;
    let intent = |amount: U256| load::transfer(chain_id, a.account, a.dai, a.payee, amount);
    let clients = &secrets[..CLIENTS];
    let tally = Tally::default();
    let mut seen: Vec<Outcome> = Vec::new();
    // 1. Load.
    let (t, n) = (Instant::now(), tally.requests.load(Ordering::Relaxed));
    seen.extend(load::run(&addrs, clients, 0..ROUNDS, 0, &intent, &tally)?);
    let mut load_time = t.elapsed();
    let mut load_requests = tally.requests.load(Ordering::Relaxed) - n;

    // 2. kill -9 of i1 with its transaction submitted and pending.
    rpc(&rt, &node, "evm_setAutomine", serde_json::json!([false]))?;
    let crash_amount = load::amount_of(9, 0, 0);
    let crash_body =
        serde_json::json!({ "intent": intent(crash_amount), "execute": true }).to_string();
    let crash_key = "cluster-crash";
    let crashed_addr = inst[1].addr.clone();
    // What i1 answered, if it answered before it was killed (for the failure's message).
    let answered: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);
    let killed = std::sync::atomic::AtomicBool::new(false);
    let crash_hash = std::thread::scope(|s| {
        s.spawn(|| {
            // Its final answer never comes: the instance dies first. A busy answer (a lane
            // still settling, a rate, a delivery in progress) is asked again, as a client does.
            let Ok(http) = reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
            else {
                return;
            };
            while !killed.load(Ordering::SeqCst) {
                match load::post(
                    &http,
                    &crashed_addr,
                    &secrets[CLIENTS],
                    crash_key,
                    &crash_body,
                    &tally,
                ) {
                    Ok((status, json, _, _)) => {
                        let code = json["error"]["code"].as_str().unwrap_or("?");
                        *answered.lock().unwrap_or_else(|p| p.into_inner()) =
                            Some(format!("{status} {json}"));
                        let busy =
                            matches!(status, 429 | 503) || (status == 409 && code == "IN_PROGRESS");
                        if !busy {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(500));
                    }
                    Err(_) => return,
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if Instant::now() > deadline {
                let last = answered.lock().unwrap_or_else(|p| p.into_inner()).clone();
                return Err(format!(
                    "no submitted transaction pending within 60 s (i1 answered: {})",
                    last.as_deref().unwrap_or("nothing")
                ));
            }
            std::thread::sleep(Duration::from_millis(5));
            // Submitted, or already uncertain (its receipt did not come in time: automine is
            // off), the transaction is in the node's pool either way.
            let mut pending = store
                .proposals_in(ProposalState::Submitted)
                .map_err(|e| e.to_string())?;
            pending.extend(
                store
                    .proposals_in(ProposalState::Uncertain)
                    .map_err(|e| e.to_string())?,
            );
            let Some(p) = pending.iter().find(|p| {
                p.intent
                    .claimed
                    .outflows
                    .iter()
                    .map(|o| o.amount)
                    .sum::<U256>()
                    == crash_amount
            }) else {
                continue;
            };
            let Some(tx) = store.txs(&p.id).map_err(|e| e.to_string())?.pop() else {
                continue;
            };
            let pending = rt
                .block_on(node.provider().get_transaction_by_hash(tx.tx_hash))
                .ok()
                .flatten();
            if pending.is_some() {
                killed.store(true, Ordering::SeqCst);
                let crashed = inst.remove(1);
                crashed.kill9()?;
                return Ok(tx.tx_hash);
            }
        }
    })?;
    rpc(&rt, &node, "evm_mine", serde_json::json!([]))?;
    rpc(&rt, &node, "evm_setAutomine", serde_json::json!([true]))?;
    // The payment delivered again, to the others: answered once i1's lease lapsed.
    let again = load::pay(
        &addrs,
        (0, 2),
        &secrets[CLIENTS],
        crash_key,
        &crash_body,
        crash_amount,
        &tally,
    )?;
    seen.push(again);
    let restarted = Instance::start(&launch, "i1", &key(1), true)?;
    addrs.write().unwrap_or_else(|p| p.into_inner())[1] = restarted.addr.clone();
    inst.insert(1, restarted);
    let instance_kills = 1;

    // 3. The database stops for three seconds under load.
    let (t, n) = (Instant::now(), tally.requests.load(Ordering::Relaxed));
    let outage = std::thread::scope(|s| {
        let load = s.spawn(|| load::run(&addrs, clients, 0..ROUNDS, 1, &intent, &tally));
        std::thread::sleep(Duration::from_millis(1_500));
        let t = Instant::now();
        pg.stop()?;
        std::thread::sleep(Duration::from_millis(800));
        let ready = probe_ready(&inst[0].addr);
        std::thread::sleep(Duration::from_secs(3).saturating_sub(t.elapsed()));
        pg.restart()?;
        pg.wait_ready(Duration::from_secs(30))?;
        let loaded = load.join().map_err(|_| "the load panicked".to_owned())?;
        Ok::<_, String>((ready, t.elapsed(), loaded))
    });
    let (ready, _, loaded) = outage?;
    let (loaded_time, loaded_requests) = (t.elapsed(), tally.requests.load(Ordering::Relaxed) - n);
    let (outage_time, outage_requests) = (loaded_time, loaded_requests);
    seen.extend(loaded?);
    load_time += outage_time;
    load_requests += outage_requests;
    if ready.0 != 503 || ready.1.is_none() {
        return Err(format!("/ready during the outage: {ready:?}"));
    }
    let db_outages = 1;

    // 4. i1 stops itself before a signature; past its lease, i0 takes its lane over. Every
    // instance must answer `/ready` first (its store reached again after the outage), so that
    // what i1 meets when it wakes is the fence and not its pool still recovering.
    std::thread::sleep(Duration::from_millis(2 * LEASE_MS));
    for i in &inst {
        let deadline = Instant::now() + Duration::from_secs(30);
        while probe_ready(&i.addr).0 != 200 {
            if Instant::now() > deadline {
                return Err(format!("{} not ready 30 s after the outage", i.name));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    let mut fenced_intent = intent(load::amount_of(8, 0, 0));
    fenced_intent
        .metadata
        .insert("memo".to_owned(), FENCE_MEMO.to_owned());
    let fence_body = serde_json::json!({ "intent": fenced_intent, "execute": true }).to_string();
    let paused = std::thread::scope(|s| {
        let addr = inst[1].addr.clone();
        let body = fence_body.clone();
        let secret = secrets[CLIENTS].clone();
        let answer = s.spawn(move || {
            let http = reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(120))
                .build()
                .map_err(|e| e.to_string())?;
            let r = http
                .post(format!("http://{addr}/v1/propose"))
                .bearer_auth(secret)
                .header("content-type", "application/json")
                .header("idempotency-key", "cluster-fence")
                .body(body)
                .send()
                .map_err(|e| e.to_string())?;
            let status = r.status().as_u16();
            let json: serde_json::Value = r.json().map_err(|e| e.to_string())?;
            Ok::<_, String>((status, json))
        });
        inst[1].wait_stopped(Duration::from_secs(60))?;
        std::thread::sleep(Duration::from_millis(LEASE_MS + 1_500));
        let taken = load::pay(
            &addrs,
            (0, 0),
            &secrets[CLIENTS],
            "cluster-takeover",
            &serde_json::json!({ "intent": intent(load::amount_of(8, 1, 0)), "execute": true })
                .to_string(),
            load::amount_of(8, 1, 0),
            &tally,
        )?;
        inst[1].signal("CONT")?;
        let late = answer.join().map_err(|_| "panicked".to_owned())??;
        Ok::<_, String>((taken, late))
    });
    let (taken, late) = paused?;
    seen.push(taken);
    if late.0 != 503 || late.1["error"]["code"] != "FENCED" {
        return Err(format!(
            "the paused instance's late signature (its /ready after: {:?}): {} {}",
            probe_ready(&inst[1].addr),
            late.0,
            late.1
        ));
    }
    // The fenced payment, delivered again: executed once, elsewhere.
    let again = load::pay(
        &addrs,
        (0, 2),
        &secrets[CLIENTS],
        "cluster-fence",
        &fence_body,
        load::amount_of(8, 0, 0),
        &tally,
    )?;
    seen.push(again);

    // 5. Reconciliation settles what the faults left; then the zeros.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut open = Vec::new();
        for state in [
            ProposalState::Confirmed,
            ProposalState::Signed,
            ProposalState::Submitted,
            ProposalState::Uncertain,
        ] {
            match store.proposals_in(state) {
                Ok(found) => open.extend(found.into_iter().map(|p| format!("{} {state:?}", p.id))),
                Err(e) => open.push(format!("{state:?} unreadable: {e}")),
            }
        }
        if open.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{} proposals still unsettled after 60 s: {}",
                open.len(),
                open.join(", ")
            ));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let found = rt.block_on(verify::verify(
        &node,
        &store,
        (a.account, a.dai, a.payee),
        before,
        &seen,
    ))?;
    let audit = std::process::Command::new(bin)
        .args(["audit", "verify", "--store", &url])
        .output()
        .map_err(|e| e.to_string())?;
    if !audit.status.success() {
        return Err(format!(
            "pace audit verify: {}",
            String::from_utf8_lossy(&audit.stderr)
        ));
    }
    let refusals = tally
        .refusals
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    if refusals.keys().any(|k| k.starts_with("500")) {
        return Err(format!("a 500 answer: {refusals:?}"));
    }
    if tally.without_retry_after.load(Ordering::Relaxed) != 0 {
        return Err(format!("a 429 or 503 without Retry-After: {refusals:?}"));
    }
    if !refusals.keys().any(|k| k == "503 STORE_UNAVAILABLE") {
        eprintln!("cluster-check: no request met the outage itself: {refusals:?}");
    }
    if found.double_executions + found.nonces_reused + found.decisions_lost != 0 {
        return Err(format!("{found:?}"));
    }
    if found.executed == 0 || found.fenced == 0 || found.lease_takeovers == 0 || found.relayers < 2
    {
        return Err(format!(
            "nothing fenced or taken over, or one relayer: {found:?}"
        ));
    }
    let _ = crash_hash;
    drop(inst);
    drop(anvil);
    drop(store);
    drop(pg);
    let mut lat = tally
        .latencies
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    lat.sort();
    let p99 = lat[((lat.len() - 1) as f64 * 0.99).round() as usize].as_secs_f64() * 1e3;
    eprintln!("cluster-check: refusals seen {refusals:?}");
    Ok(format!(
        "cluster: instances=3 requests={} cross_instance_duplicates={} \
         instance_kills={instance_kills} db_outages={db_outages} fenced={} lease_takeovers={} \
         double_executions={} nonces_reused={} decisions_lost={} audit_chain=ok rps={:.1} \
         p99_ms={p99:.1}",
        tally.requests.load(Ordering::Relaxed),
        tally.cross_instance_duplicates.load(Ordering::Relaxed),
        found.fenced,
        found.lease_takeovers,
        found.double_executions,
        found.nonces_reused,
        found.decisions_lost,
        load_requests as f64 / (load_time.as_secs_f64() + 1e-9),
    ))
}

/// `/ready` of the instance at `addr`: its status and `Retry-After`.
fn probe_ready(addr: &str) -> (u16, Option<String>) {
    let answer = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(15))
        .build()
        .and_then(|c| c.get(format!("http://{addr}/ready")).send());
    match answer {
        Ok(r) => (
            r.status().as_u16(),
            r.headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
        ),
        Err(_) => (0, None),
    }
}

fn rpc(
    rt: &tokio::runtime::Runtime,
    node: &NodeClient,
    method: &'static str,
    params: serde_json::Value,
) -> Result<(), String> {
    rt.block_on(
        node.provider()
            .raw_request::<_, serde_json::Value>(method.into(), params),
    )
    .map(|_| ())
    .map_err(|e| format!("{method}: {e}"))
}
