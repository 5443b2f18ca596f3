//! The clients: each logical request is a keyed unattended payment sent to two instances at
//! once, each delivery retried (on a timeout, a refused connection, `IN_PROGRESS`, or a 503
//! after its `Retry-After`) until one is answered. Every HTTP request is timed.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::IERC20;
use pace_types::{Call, Claims, Intent, TokenAmount};
use std::{
    collections::BTreeMap,
    sync::{
        Mutex, RwLock,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// What the clients count (the zeros of the line are established elsewhere: `verify.rs`).
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) requests: AtomicU64,
    pub(crate) cross_instance_duplicates: AtomicU64,
    pub(crate) latencies: Mutex<Vec<Duration>>,
    /// Error answers seen, by status and code (`503 STORE_UNAVAILABLE`, ...).
    pub(crate) refusals: Mutex<BTreeMap<String, u64>>,
    /// 429 and 503 answers without a `Retry-After` header.
    pub(crate) without_retry_after: AtomicU64,
}

/// What one logical request came to, as the client was answered.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub(crate) proposal_id: String,
    pub(crate) amount: U256,
    pub(crate) state: String,
}

/// The instances' addresses, by index (a restarted instance listens on another port).
pub(crate) type Addrs = RwLock<Vec<String>>;

/// A transfer of `amount` DAI from the account to the payee.
pub(crate) fn transfer(
    chain_id: u64,
    account: Address,
    dai: Address,
    payee: Address,
    amount: U256,
) -> Intent {
    let data = IERC20::transferCall {
        to: payee,
        value: amount,
    }
    .abi_encode();
    Intent {
        chain_id,
        account,
        calls: vec![Call {
            target: dai,
            value: U256::ZERO,
            data: Bytes::from(data),
        }],
        claimed: Claims {
            outflows: vec![TokenAmount { token: dai, amount }],
            ..Claims::default()
        },
        metadata: [("memo".to_owned(), "cluster-check".to_owned())]
            .into_iter()
            .collect(),
    }
}

/// One HTTP answer: status, JSON, whether replayed, `Retry-After`.
type Answer = (u16, serde_json::Value, bool, Option<u64>);

/// POSTs a keyed propose to `addr`.
pub(crate) fn post(
    http: &reqwest::blocking::Client,
    addr: &str,
    token: &str,
    key: &str,
    body: &str,
    tally: &Tally,
) -> Result<Answer, String> {
    let started = Instant::now();
    tally.requests.fetch_add(1, Ordering::Relaxed);
    let out = http
        .post(format!("http://{addr}/v1/propose"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("idempotency-key", key)
        .body(body.to_owned())
        .send()
        .and_then(|r| {
            let status = r.status().as_u16();
            let replayed = r
                .headers()
                .get("idempotent-replayed")
                .is_some_and(|v| v == "true");
            let retry = r
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok());
            r.text().map(|t| (status, t, replayed, retry))
        });
    tally
        .latencies
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(started.elapsed());
    let (status, text, replayed, retry) = out.map_err(|e| format!("request: {e}"))?;
    let json = serde_json::from_str(&text).map_err(|e| format!("{status} {text}: {e}"))?;
    Ok((status, json, replayed, retry))
}

/// One logical request: the payment `body` under `key`, delivered to instances `first` and
/// `second` at once; each delivery retried until one of them is answered 200.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pay(
    addrs: &Addrs,
    (first, second): (usize, usize),
    token: &str,
    key: &str,
    body: &str,
    amount: U256,
    tally: &Tally,
) -> Result<Outcome, String> {
    let done = AtomicBool::new(false);
    let answers: Mutex<Vec<serde_json::Value>> = Mutex::new(Vec::new());
    let delivered = AtomicU64::new(0);
    let deliver = |mut at: usize| -> Result<(), String> {
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(20))
            .build()
            .map_err(|e| e.to_string())?;
        let started = Instant::now();
        let mut answered_once = false;
        let mut last = String::new();
        while !done.load(Ordering::SeqCst) {
            if started.elapsed() > Duration::from_secs(120) {
                return Err(format!("{key}: no answer within 120 s (last: {last})"));
            }
            let addr = addrs.read().unwrap_or_else(|p| p.into_inner())[at].clone();
            match post(&http, &addr, token, key, body, tally) {
                Ok((status, json, _, retry)) => {
                    if !answered_once {
                        answered_once = true;
                        delivered.fetch_add(1, Ordering::SeqCst);
                    }
                    if status == 200 {
                        answers.lock().unwrap_or_else(|p| p.into_inner()).push(json);
                        done.store(true, Ordering::SeqCst);
                        return Ok(());
                    }
                    let code = json["error"]["code"].as_str().unwrap_or("?").to_owned();
                    last = format!("{status} {json}");
                    *tally
                        .refusals
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .entry(format!("{status} {code}"))
                        .or_default() += 1;
                    match status {
                        409 if code == "IN_PROGRESS" => {
                            std::thread::sleep(Duration::from_millis(150))
                        }
                        429 | 503 => {
                            if retry.is_none() {
                                tally.without_retry_after.fetch_add(1, Ordering::Relaxed);
                            }
                            // As asked, at most a second (the check is short).
                            let wait = retry.unwrap_or(1).clamp(1, 1);
                            std::thread::sleep(Duration::from_secs(wait));
                        }
                        _ => {
                            eprintln!("cluster-check: {key} to {addr}: {status} {json}");
                            return Err(format!("{key}: {status} {json}"));
                        }
                    }
                }
                // Timed out or refused (the instance is dead, stopped, or restarting): on to
                // the next instance.
                Err(e) => {
                    last = e;
                    let n = addrs.read().unwrap_or_else(|p| p.into_inner()).len();
                    at = (at + 1) % n;
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
        Ok(())
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| deliver(first));
        let b = s.spawn(|| deliver(second));
        (a.join(), b.join())
    });
    let answered = answers.into_inner().unwrap_or_else(|p| p.into_inner());
    if answered.is_empty() {
        return Err(format!(
            "{key}: unanswered ({:?}, {:?})",
            a.map_err(|_| "panicked"),
            b.map_err(|_| "panicked")
        ));
    }
    // Two deliveries answered 200: the same proposal and the same PDR (one is the other's
    // replay, or both answer from the one proposal: its state may have moved on between).
    let same = |a: &serde_json::Value, b: &serde_json::Value| {
        a["preview"]["proposal_id"] == b["preview"]["proposal_id"]
            && a["confirmed"]["pdr_digest"] == b["confirmed"]["pdr_digest"]
    };
    if answered.len() == 2 && !same(&answered[0], &answered[1]) {
        return Err(format!(
            "{key}: two answers: {} and {}",
            answered[0], answered[1]
        ));
    }
    tally.cross_instance_duplicates.fetch_add(
        delivered.load(Ordering::SeqCst).saturating_sub(1),
        Ordering::Relaxed,
    );
    let json = &answered[0];
    Ok(Outcome {
        proposal_id: json["preview"]["proposal_id"]
            .as_str()
            .ok_or_else(|| format!("{key}: no proposal id in {json}"))?
            .to_owned(),
        amount,
        state: json["confirmed"]["state"]
            .as_str()
            .unwrap_or("none")
            .to_owned(),
    })
}

/// Every client runs `rounds` logical requests, each to two instances at once.
pub(crate) fn run(
    addrs: &Addrs,
    tokens: &[String],
    rounds: std::ops::Range<usize>,
    phase: usize,
    intent: &(dyn Fn(U256) -> Intent + Sync),
    tally: &Tally,
) -> Result<Vec<Outcome>, String> {
    let n = addrs.read().unwrap_or_else(|p| p.into_inner()).len();
    std::thread::scope(|s| {
        let handles: Vec<_> = tokens
            .iter()
            .enumerate()
            .map(|(c, token)| {
                let rounds = rounds.clone();
                s.spawn(move || {
                    rounds
                        .map(|r| {
                            let amount = amount_of(phase, c, r);
                            let body = serde_json::json!({
                                "intent": intent(amount), "execute": true
                            })
                            .to_string();
                            let key = format!("cluster-{phase}-{c}-{r}");
                            let pair = ((c + r) % n, (c + r + 1) % n);
                            pay(addrs, pair, token, &key, &body, amount, tally)
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        let mut all = Vec::new();
        for h in handles {
            all.extend(h.join().map_err(|_| "a client panicked".to_owned())??);
        }
        Ok(all)
    })
}

/// The amount of logical request `round` of client `client` in `phase`: one intent each.
pub(crate) fn amount_of(phase: usize, client: usize, round: usize) -> U256 {
    U256::from(1_000_000_000_000u64)
        * U256::from(1 + phase as u64 * 100_000 + client as u64 * 1_000 + round as u64)
}
