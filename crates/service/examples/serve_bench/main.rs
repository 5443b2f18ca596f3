//! `make serve-bench`: the load benchmark of `pace serve`. For each setup — one instance and
//! three, on the embedded world (each instance its own world and in-memory store) and on
//! anvil (the instances sharing a PostgreSQL store of the benchmark's own) — and for 1, 10
//! and 50 concurrent clients, proposes (a DAI transfer to the payee, each under its own
//! idempotency key, on warm state) and confirms (propose unmeasured, then the confirm that
//! signs and executes it) for a few seconds each: requests per second, p50 and p99, and where
//! the time goes, per request, from the instances' `pace_phase_microseconds_total` (store,
//! simulation, verification, signing, node). Everything it starts it stops by PID.
//!
//! Prints one line per (setup, clients, operation):
//! `bench: setup=world-1 clients=50 op=propose ok=… errors=… rps=… p50_ms=… p99_ms=…
//! store_ms=… simulation_ms=… verification_ms=… signing_ms=… node_ms=…`, then the refusals
//! by status and code when there were any. `make serve-bench` builds it and `pace` in release;
//! with `SERVE_BENCH=world` in its environment it runs the embedded world's cells only.

use alloy::providers::Provider;
use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::IERC20;
use pace_service::{
    audit::CallerType,
    auth::{Grant, Scope, token_hash},
};
use pace_types::{Call, Claims, Intent, TokenAmount};
use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// How long each cell runs.
const CELL: Duration = Duration::from_secs(5);
/// The phases of `pace_phase_microseconds_total`.
const PHASES: [&str; 5] = ["store", "simulation", "verification", "signing", "node"];
const VERIFIER_KEY: &str = "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";
const SECRET: &str = "serve-bench-agent";

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serve-bench: FAILED: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// A running `pace serve`.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(bin: &Path, args: &[String], env: &[(&str, String)]) -> Result<Server, String> {
    let mut cmd = Command::new(bin);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--metrics-public"])
        .args(args)
        .env_clear()
        .env("PACE_VERIFIER_KEY", VERIFIER_KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(|e| format!("{}: {e}", bin.display()))?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(a) = line.split("listening on http://").nth(1) {
                let _ = tx.send(Ok(a.split_whitespace().next().unwrap_or("").to_owned()));
            } else if line.contains("pace serve: ") && !line.contains(": on ") {
                let _ = tx.send(Err(line));
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Ok(addr)) => return Ok(Server { child, addr }),
            Ok(Err(line)) if line.contains("store ") || line.contains("relayer") => continue,
            other => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("pace serve did not start: {other:?}"));
            }
        }
    }
}

fn transfer(chain_id: u64, account: Address, dai: Address, payee: Address, n: u64) -> Intent {
    let amount = U256::from(1_000_000_000u64) * U256::from(1 + n);
    Intent {
        chain_id,
        account,
        calls: vec![Call {
            target: dai,
            value: U256::ZERO,
            data: Bytes::from(
                IERC20::transferCall {
                    to: payee,
                    value: amount,
                }
                .abi_encode(),
            ),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount { token: dai, amount }],
            ..Claims::default()
        },
        metadata: Default::default(),
    }
}

/// What one cell measured.
#[derive(Default)]
struct Cell {
    ok: AtomicU64,
    errors: AtomicU64,
    latencies: Mutex<Vec<Duration>>,
    /// The refusals, by `<status> <code>`.
    refused: Mutex<std::collections::BTreeMap<String, u64>>,
}

/// The instances' phase totals (µs), summed.
fn phases(http: &reqwest::blocking::Client, servers: &[Server]) -> [u64; 5] {
    let mut out = [0u64; 5];
    for s in servers {
        let text = http
            .get(format!("http://{}/metrics", s.addr))
            .send()
            .and_then(|r| r.text())
            .unwrap_or_default();
        for (i, phase) in PHASES.iter().enumerate() {
            let prefix = format!("pace_phase_microseconds_total{{phase=\"{phase}\"}} ");
            out[i] += text
                .lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    out
}

/// One propose (and, for `confirm`, the confirm it leads to, which alone is timed) by
/// request number `n` on `addr`: the time of the measured request, or what refused it
/// (`<status> <code>`, or the transport error's kind).
fn request(
    http: &reqwest::blocking::Client,
    addr: &str,
    intent: &Intent,
    n: u64,
    confirm: bool,
) -> Result<Duration, String> {
    let post = |path: &str, body: String, key: String| {
        let started = Instant::now();
        let answer = http
            .post(format!("http://{addr}{path}"))
            .bearer_auth(SECRET)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(body)
            .send()
            .and_then(|r| {
                let status = r.status();
                r.json::<serde_json::Value>().map(|v| (status, v))
            })
            .map_err(|e| {
                if e.is_timeout() {
                    "timeout"
                } else {
                    "transport"
                }
                .to_owned()
            })
            .and_then(|(status, v)| {
                if status.is_success() {
                    Ok(v)
                } else {
                    Err(format!(
                        "{} {}",
                        status.as_u16(),
                        v["error"]["code"].as_str().unwrap_or("?")
                    ))
                }
            });
        (answer, started.elapsed())
    };
    let pid = std::process::id();
    let (proposed, took) = post(
        "/v1/propose",
        serde_json::json!({ "intent": intent }).to_string(),
        format!("bench-{pid}-{n}-p"),
    );
    let proposed = proposed?;
    if !confirm {
        return Ok(took);
    }
    let id = proposed["preview"]["proposal_id"]
        .as_str()
        .unwrap_or_default();
    let (confirmed, took) = post(
        "/v1/confirm",
        serde_json::json!({ "proposal_id": id, "confirm": true }).to_string(),
        format!("bench-{pid}-{n}-c"),
    );
    match confirmed? {
        v if v["state"] == "executed" => Ok(took),
        v => {
            // A revert by its error's name (`PaceAccountOutcomeBound`, say).
            let error = v["outcome"]["error"]
                .as_str()
                .or(v["outcome"]["Reverted"]["error"].as_str());
            let name = error.map(|e| e.split('(').next().unwrap_or(e));
            Err(format!(
                "200 {}{}",
                v["state"].as_str().unwrap_or("?"),
                name.map(|n| format!(" {n}")).unwrap_or_default()
            ))
        }
    }
}

/// Runs one cell: `clients` clients for [`CELL`], round-robin over `servers`.
fn cell(
    servers: &[Server],
    clients: usize,
    confirm: bool,
    intent: &(dyn Fn(u64) -> Intent + Sync),
    counter: &AtomicU64,
) -> Cell {
    let out = Cell::default();
    let until = Instant::now() + CELL;
    std::thread::scope(|s| {
        for c in 0..clients {
            let out = &out;
            s.spawn(move || {
                let http = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(60))
                    .build()
                    .expect("a client");
                let mut i = c;
                while Instant::now() < until {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let addr = &servers[i % servers.len()].addr;
                    i += 1;
                    match request(&http, addr, &intent(n), n, confirm) {
                        Ok(took) => {
                            out.ok.fetch_add(1, Ordering::Relaxed);
                            out.latencies
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(took);
                        }
                        Err(why) => {
                            out.errors.fetch_add(1, Ordering::Relaxed);
                            *out.refused
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .entry(why)
                                .or_default() += 1;
                        }
                    }
                }
            });
        }
    });
    out
}

fn grants(dir: &Path) -> Result<PathBuf, String> {
    let grant = Grant {
        id: "bench".to_owned(),
        caller_type: CallerType::Agent,
        token_hashes: vec![token_hash(SECRET)],
        scopes: [Scope::Propose, Scope::Confirm, Scope::Read]
            .into_iter()
            .collect(),
        tokens: None,
        max_outflow: Default::default(),
        rate_per_minute: 1_000_000,
        tenants: None,
        approval_threshold_wei: None,
    };
    let path = dir.join("tokens.json");
    std::fs::write(
        &path,
        serde_json::to_vec(&vec![grant]).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    Ok(path)
}

/// Runs every cell of `setup` on `servers` and prints its lines.
fn bench(setup: &str, servers: &[Server], intent: &(dyn Fn(u64) -> Intent + Sync)) {
    let http = reqwest::blocking::Client::new();
    let counter = AtomicU64::new(1_000_000 * (setup.len() as u64 + setup.as_bytes()[0] as u64));
    // Warm state: a few requests of each kind first.
    let _ = cell(servers, 2, true, intent, &counter);
    for op in ["propose", "confirm"] {
        for clients in [1, 10, 50] {
            let before = phases(&http, servers);
            let started = Instant::now();
            let out = cell(servers, clients, op == "confirm", intent, &counter);
            let elapsed = started.elapsed();
            let after = phases(&http, servers);
            let mut lat = out
                .latencies
                .into_inner()
                .unwrap_or_else(|p| p.into_inner());
            lat.sort();
            let pct = |q: f64| {
                lat.get(((lat.len().max(1) - 1) as f64 * q).round() as usize)
                    .map_or(0.0, |d| d.as_secs_f64() * 1e3)
            };
            let ok = out.ok.load(Ordering::Relaxed);
            let errors = out.errors.load(Ordering::Relaxed);
            // Per request (proposes of a confirm cell included in the phases).
            let per = |i: usize| {
                let requests = if op == "confirm" {
                    2 * (ok + errors)
                } else {
                    ok + errors
                };
                (after[i].saturating_sub(before[i])) as f64 / 1e3 / requests.max(1) as f64
            };
            println!(
                "bench: setup={setup} clients={clients} op={op} ok={ok} errors={errors} \
                 rps={:.1} p50_ms={:.1} p99_ms={:.1} store_ms={:.2} simulation_ms={:.2} \
                 verification_ms={:.2} signing_ms={:.2} node_ms={:.2}",
                ok as f64 / elapsed.as_secs_f64(),
                pct(0.5),
                pct(0.99),
                per(0),
                per(1),
                per(2),
                per(3),
                per(4),
            );
            let refused = out.refused.into_inner().unwrap_or_else(|p| p.into_inner());
            if !refused.is_empty() {
                let list: Vec<String> = refused.iter().map(|(k, n)| format!("{k}={n}")).collect();
                println!("bench:   refused: {}", list.join(", "));
            }
        }
    }
}

/// The audit chain's write ceiling on PostgreSQL: `writers` threads appending records to one
/// chain for [`CELL`] (every step of the service appends at least one, holding the chain's head
/// row while it does), as records per second and the p99 of one append.
fn audit_ceiling(pg: &pace_testkit::postgres::TempPostgres, writers: usize) -> Result<(), String> {
    use pace_service::{
        audit::{AuditEntry, AuditKind},
        store::{PgStore, Store},
    };
    let url = pg.create_database(&format!("audit{writers}"))?;
    let store = PgStore::connect(&url).map_err(|e| e.to_string())?;
    let out = Cell::default();
    let until = Instant::now() + CELL;
    std::thread::scope(|s| {
        for w in 0..writers {
            let (store, out) = (&store, &out);
            s.spawn(move || {
                while Instant::now() < until {
                    let entry = AuditEntry {
                        kind: AuditKind::Propose,
                        actor: format!("writer-{w}"),
                        caller_type: CallerType::Agent,
                        scopes: vec![],
                        proposal_id: None,
                        intent_hash: None,
                        policy_hash: None,
                        simulation_hash: None,
                        codes: vec![],
                        detail: serde_json::Value::Null,
                    };
                    let started = Instant::now();
                    match store.append_audit(0, entry) {
                        Ok(_) => {
                            out.ok.fetch_add(1, Ordering::Relaxed);
                            out.latencies
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(started.elapsed());
                        }
                        Err(_) => {
                            out.errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    let records = store
        .verify_audit()
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("the audit chain broke under {writers} writers: {e}"))?;
    let ok = out.ok.load(Ordering::Relaxed);
    if records != ok {
        return Err(format!("{ok} appends answered, {records} records chained"));
    }
    let mut lat = out
        .latencies
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    lat.sort();
    let p99 = lat
        .get(((lat.len().max(1) - 1) as f64 * 0.99).round() as usize)
        .map_or(0.0, |d| d.as_secs_f64() * 1e3);
    println!(
        "bench: setup=postgres audit_writers={writers} records={ok} errors={} \
         records_per_s={:.0} p99_ms={p99:.1} audit_chain=ok",
        out.errors.load(Ordering::Relaxed),
        ok as f64 / CELL.as_secs_f64(),
    );
    Ok(())
}

fn run() -> Result<(), String> {
    let bin = std::env::var_os("PACE_BIN")
        .map(PathBuf::from)
        .ok_or("set PACE_BIN to the pace binary")?;
    let dir = std::env::temp_dir().join(format!("pace-serve-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let tokens = grants(&dir)?;
    let verifier = pace_signer::PdrSigner::from_bytes(&pace_signer::DEV_VERIFIER_KEY)
        .map_err(|e| e.to_string())?;
    let world = pace_world::World::new(verifier.address()).map_err(|e| e.to_string())?;
    let a = world.addrs;
    let chain_id = world.evm.chain_id();
    let intent = |n: u64| transfer(chain_id, a.account, a.dai, a.payee, n);
    let lanes = (0..32).map(|l| l.to_string()).collect::<Vec<_>>().join(",");
    let common = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = vec![
            "--tokens".into(),
            tokens.display().to_string(),
            "--lanes".into(),
            lanes.clone(),
        ];
        v.extend(extra.iter().map(|s| (*s).to_owned()));
        v
    };

    // The embedded world: each instance its own world and store.
    for n in [1, 3] {
        let servers = (0..n)
            .map(|_| start(&bin, &common(&[]), &[]))
            .collect::<Result<Vec<_>, _>>()?;
        bench(&format!("world-{n}"), &servers, &intent);
    }

    // `SERVE_BENCH=world` stops here: the embedded world's cells only.
    if std::env::var("SERVE_BENCH").is_ok_and(|only| only == "world") {
        let _ = std::fs::remove_dir_all(&dir);
        return Ok(());
    }
    // anvil: the instances share a PostgreSQL store.
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let pg = pace_testkit::postgres::TempPostgres::start_with(true)?;
    let (anvil, node) = rt
        .block_on(pace_testkit::on_node::world_on_anvil(&world.evm))
        .map_err(|e| format!("the world on anvil: {e}"))?;
    drop(world);
    for n in [1usize, 3] {
        let url = pg.create_database(&format!("bench{n}"))?;
        let mut servers = Vec::new();
        for k in 0..n {
            let key = alloy_primitives::keccak256(format!("serve-bench relayer {n}/{k}"));
            let signer: alloy::signers::local::PrivateKeySigner =
                key.to_string().parse().map_err(|e| format!("{e}"))?;
            rt.block_on(node.provider().raw_request::<_, serde_json::Value>(
                "anvil_setBalance".into(),
                serde_json::json!([signer.address(), "0x56bc75e2d63100000"]),
            ))
            .map_err(|e| e.to_string())?;
            let args = common(&[
                "--rpc",
                anvil.url(),
                "--store",
                &url,
                "--instance-name",
                &format!("bench-{k}"),
            ]);
            servers.push(start(
                &bin,
                &args,
                &[("PACE_RELAYER_KEY", key.to_string())],
            )?);
        }
        bench(&format!("anvil-{n}"), &servers, &intent);
    }
    drop(anvil);
    for writers in [1, 8] {
        audit_ceiling(&pg, writers)?;
    }
    drop(pg);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
