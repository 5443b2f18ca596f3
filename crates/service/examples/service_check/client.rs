//! The agents: HTTP clients that propose and confirm, deliver some requests twice and race
//! some confirms, and time every request.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::IERC20;
use pace_types::{Call, Claims, Intent, TokenAmount};
use std::{
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// What every client counts (the zeros of the line are not counted here: see `verify.rs`).
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) requests: AtomicU64,
    pub(crate) duplicates: AtomicU64,
    pub(crate) latencies: Mutex<Vec<Duration>>,
}

/// What one logical request (one intent) came to, as the client saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    /// The proposal id of the answered propose.
    pub(crate) proposal_id: String,
    /// The DAI sent to the payee.
    pub(crate) amount: U256,
    /// The state in the answered confirm, if one was answered with 200.
    pub(crate) confirmed: Option<String>,
}

/// One client's connection to the server.
pub(crate) struct Agent<'a> {
    pub(crate) http: reqwest::blocking::Client,
    pub(crate) base: String,
    pub(crate) token: String,
    pub(crate) tally: &'a Tally,
}

impl Agent<'_> {
    /// POSTs `body` to `path`; the status and JSON body. Timed and counted.
    pub(crate) fn post(&self, path: &str, body: &str) -> Result<(u16, serde_json::Value), String> {
        self.send(
            self.http
                .post(format!("{}{path}", self.base))
                .body(body.to_owned()),
        )
    }

    /// POSTs `body` to `path` with the idempotency key `key`; the status, the JSON body and
    /// whether the server says it replayed an earlier answer.
    pub(crate) fn post_keyed(
        &self,
        path: &str,
        body: &str,
        key: &str,
    ) -> Result<(u16, serde_json::Value, bool), String> {
        let started = Instant::now();
        self.tally.requests.fetch_add(1, Ordering::Relaxed);
        let resp = self
            .http
            .post(format!("{}{path}", self.base))
            .body(body.to_owned())
            .bearer_auth(&self.token)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .send()
            .map_err(|e| format!("request: {e}"))?;
        let status = resp.status().as_u16();
        let replayed = resp
            .headers()
            .get("idempotent-replayed")
            .is_some_and(|v| v == "true");
        let text = resp.text().map_err(|e| format!("response: {e}"))?;
        self.tally
            .latencies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(started.elapsed());
        let json = serde_json::from_str(&text).map_err(|e| format!("{text}: {e}"))?;
        Ok((status, json, replayed))
    }

    /// GETs `path`.
    pub(crate) fn get(&self, path: &str) -> Result<(u16, serde_json::Value), String> {
        self.send(self.http.get(format!("{}{path}", self.base)))
    }

    fn send(
        &self,
        req: reqwest::blocking::RequestBuilder,
    ) -> Result<(u16, serde_json::Value), String> {
        let started = Instant::now();
        self.tally.requests.fetch_add(1, Ordering::Relaxed);
        let resp = req
            .bearer_auth(&self.token)
            .header("content-type", "application/json")
            .send()
            .map_err(|e| format!("request: {e}"))?;
        let status = resp.status().as_u16();
        let text = resp.text().map_err(|e| format!("response: {e}"))?;
        self.tally
            .latencies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(started.elapsed());
        let json = serde_json::from_str(&text).map_err(|e| format!("{text}: {e}"))?;
        Ok((status, json))
    }

    /// POSTs a request that the server answers idempotently, delivering it again while the
    /// first delivery is in flight (409 `IN_PROGRESS`): each re-delivery is a duplicate.
    pub(crate) fn post_until_answered(
        &self,
        path: &str,
        body: &str,
    ) -> Result<(u16, serde_json::Value), String> {
        for _ in 0..600 {
            let (status, json) = self.post(path, body)?;
            if json["error"]["code"] != "IN_PROGRESS" {
                return Ok((status, json));
            }
            self.tally.duplicates.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!("{path}: still in progress after 60 s"))
    }

    /// One logical request of client `client`, round `round`: propose a transfer of `amount`
    /// DAI to the payee (delivered twice on even rounds), then confirm it: once, twice with
    /// the same bytes at the same time, or raced by a confirm with other bytes.
    pub(crate) fn round(
        &self,
        intent: &Intent,
        amount: U256,
        round: usize,
    ) -> Result<Seen, String> {
        let propose = serde_json::json!({ "intent": intent }).to_string();
        let (status, first) = self.post_until_answered("/v1/propose", &propose)?;
        if status != 200 {
            return Err(format!("propose answered {status}: {first}"));
        }
        if round.is_multiple_of(2) {
            // An at-least-once carrier delivers the same request again.
            self.tally.duplicates.fetch_add(1, Ordering::Relaxed);
            let (_, again) = self.post_until_answered("/v1/propose", &propose)?;
            if again != first {
                return Err(format!("a duplicate propose was not replayed: {again}"));
            }
        }
        let id = first["preview"]["proposal_id"]
            .as_str()
            .ok_or_else(|| format!("no proposal id in {first}"))?
            .to_owned();
        let confirm = serde_json::json!({ "proposal_id": id, "confirm": true }).to_string();
        let answers: Vec<(u16, serde_json::Value)> = match round % 3 {
            // Two deliveries of the same bytes at once.
            0 => {
                self.tally.duplicates.fetch_add(1, Ordering::Relaxed);
                std::thread::scope(|s| {
                    let a = s.spawn(|| self.post_until_answered("/v1/confirm", &confirm));
                    let b = s.spawn(|| self.post_until_answered("/v1/confirm", &confirm));
                    [a.join(), b.join()]
                        .into_iter()
                        .map(|r| r.map_err(|_| "a client thread panicked".to_owned())?)
                        .collect::<Result<_, _>>()
                })?
            }
            // A race: the same confirmation in other bytes (not deduplicated by I7).
            1 => {
                let other = format!(r#"{{"confirm":true,"proposal_id":"{id}"}}"#);
                std::thread::scope(|s| {
                    let a = s.spawn(|| self.post_until_answered("/v1/confirm", &confirm));
                    let b = s.spawn(|| self.post_until_answered("/v1/confirm", &other));
                    [a.join(), b.join()]
                        .into_iter()
                        .map(|r| r.map_err(|_| "a client thread panicked".to_owned())?)
                        .collect::<Result<_, _>>()
                })?
            }
            _ => vec![self.post_until_answered("/v1/confirm", &confirm)?],
        };
        let confirmed = answers
            .iter()
            .find(|(status, _)| *status == 200)
            .and_then(|(_, json)| json["state"].as_str().map(str::to_owned));
        Ok(Seen {
            proposal_id: id,
            amount,
            confirmed,
        })
    }
}

/// A transfer of `amount` DAI from the account to the payee (the default policy's recipient).
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
        metadata: [("memo".to_owned(), "service-check".to_owned())]
            .into_iter()
            .collect(),
    }
}
