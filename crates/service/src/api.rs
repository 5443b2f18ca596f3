//! The operations as transport-neutral requests: JSON in, status and JSON out. The HTTP API
//! and the MCP tools both call these, so both have the same checks and the same answers.
//!
//! `propose` and `confirm` go through the idempotent receiver (I7). A request carries an
//! idempotency key (the `Idempotency-Key` header, or the tools' `idempotency_key` argument)
//! or is identified by its canonical content; see [`Service::answer`].

use crate::{
    Error, Result, Service,
    auth::Caller,
    confirm::Repeat,
    error_response,
    identity::{key, request_hash},
    service::{Confirmed, ProposeOptions, Proposed},
    store::{ConfirmMode, IdemBegin, IdemClaim, Proposal, ProposalState, StoredResponse},
};
use alloy_primitives::B256;
use pace_types::Intent;
use serde::{Deserialize, Serialize};

/// `propose`'s request body.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeRequest {
    /// The intent (the `Intent` JSON of `pace verify`).
    pub intent: serde_json::Value,
    /// Confirm at once without a preview round trip (requires the `unattended` scope).
    #[serde(default)]
    pub execute: bool,
    /// With `execute`: run it even if an intent with the same account, chain and calls was
    /// executed within the repeat window (24 h by default). Two honest equal payments need it.
    #[serde(default)]
    pub allow_repeat: bool,
    /// A key the client chooses for this request (1 to 255 visible ASCII characters): a retry
    /// with the same key gets the recorded answer, and the same key with another request is
    /// refused. Over HTTP, the `Idempotency-Key` header.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// `confirm`'s request body.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmRequest {
    /// The proposal to confirm.
    pub proposal_id: String,
    /// Must be the JSON boolean `true`; a string such as `"false"` (or `"true"`) is refused.
    pub confirm: bool,
    /// A key the client chooses for this request, as for `propose`.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// `status`'s request.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusRequest {
    /// The proposal.
    pub proposal_id: String,
}

/// `history`'s request.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryRequest {
    /// How many proposals, newest first (default 50).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// `pending`'s request.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PendingRequest {
    /// How many proposals, newest first (default 50).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// `halt`'s request: the kill switch.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HaltRequest {
    /// `true` refuses every confirm from now on (and across restarts); `false` lifts it.
    pub halted: bool,
    /// Whether transactions already sent keep getting fee bumps and rebroadcasts while halted
    /// (default `true`: a transaction left without them may be stuck until its PDR expires).
    #[serde(default = "yes")]
    pub fee_bumps: bool,
    /// Why, for the audit log.
    #[serde(default)]
    pub reason: String,
}

fn yes() -> bool {
    true
}

/// An operation of the service, on either transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    /// Simulate and judge an intent; nothing is signed.
    Propose,
    /// Confirm a proposal: fresh re-check, sign, submit.
    Confirm,
    /// A proposal's state.
    Status,
    /// The latest proposals.
    History,
    /// The proposals waiting for a human.
    Pending,
    /// The kill switch.
    Halt,
}

impl Operation {
    /// Its name on the wire (and in the idempotency key).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Propose => "propose",
            Self::Confirm => "confirm",
            Self::Status => "status",
            Self::History => "history",
            Self::Pending => "pending",
            Self::Halt => "halt",
        }
    }
}

/// An answer: HTTP status, JSON body, and whether it repeats the answer to an earlier
/// delivery of the same request (the HTTP header `Idempotent-Replayed: true`, the MCP
/// result's `_meta`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// JSON body.
    pub body: String,
    /// Whether it is a replay.
    pub replayed: bool,
}

impl Answer {
    fn fresh((status, body): (u16, String)) -> Self {
        Self {
            status,
            body,
            replayed: false,
        }
    }

    fn error(e: &Error) -> Self {
        Self::fresh(error_response(e))
    }
}

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| Error::BadRequest(e.to_string()))
}

/// The request's intent, parsed strictly and validated; a mistake names its field by its path
/// (`intent.calls[0].target: …`).
fn intent(value: &serde_json::Value) -> Result<Intent> {
    Intent::from_json_str(&value.to_string()).map_err(|e| {
        Error::BadRequest(match e {
            pace_types::Error::Json { path, message, .. } if path.is_empty() => {
                format!("intent: {message}")
            }
            pace_types::Error::Json { path, message, .. } => format!("intent.{path}: {message}"),
            pace_types::Error::Invalid { field, message } => format!("intent.{field}: {message}"),
            other => format!("intent: {other}"),
        })
    })
}

fn respond<T: Serialize>(out: Result<T>) -> (u16, String) {
    match out {
        Ok(v) => (
            200,
            serde_json::to_string(&v)
                .unwrap_or_else(|e| error_response(&Error::Store(format!("response: {e}"))).1),
        ),
        Err(e) => error_response(&e),
    }
}

/// The client's idempotency key, from the header and the body (they must agree when both are
/// given): 1 to 255 visible ASCII characters.
fn client_key(header: Option<&str>, body: Option<&str>) -> Result<Option<String>> {
    let key = match (header, body) {
        (Some(h), Some(b)) if h != b => {
            return Err(Error::BadRequest(
                "the Idempotency-Key header and idempotency_key differ".into(),
            ));
        }
        (Some(k), _) | (None, Some(k)) => k,
        (None, None) => return Ok(None),
    };
    let valid = (1..=255).contains(&key.len()) && key.bytes().all(|b| (0x21..=0x7e).contains(&b));
    if !valid {
        return Err(Error::BadRequest(
            "idempotency key: 1 to 255 visible ASCII characters".into(),
        ));
    }
    Ok(Some(key.to_owned()))
}

/// The canonical form of a `propose` request: the parsed intent and the options.
#[derive(Serialize)]
struct CanonicalPropose<'a> {
    intent: &'a Intent,
    execute: bool,
    allow_repeat: bool,
}

/// The canonical form of a `confirm` request.
#[derive(Serialize)]
struct CanonicalConfirm<'a> {
    proposal_id: &'a str,
    confirm: bool,
}

/// How a keyed or content-identified request is answered.
struct Keyed<'a> {
    op: crate::api::Operation,
    tenant: &'a str,
    request_hash: B256,
    client_key: Option<&'a str>,
}

impl Service {
    /// Runs operation `op` for `caller` on the raw request `body`. `propose` and `confirm` go
    /// through the idempotent receiver (I7), without a key in a header.
    pub fn handle(&self, caller: &Caller, op: Operation, body: &[u8]) -> (u16, String) {
        let a = self.answer(caller, op, body, None);
        (a.status, a.body)
    }

    /// Runs operation `op` for `caller` on the raw request `body`, with the idempotency key
    /// of the request's header if it has one.
    ///
    /// `propose` and `confirm` are answered at most once per request (I7):
    /// - with a key (the header or the body's `idempotency_key`), scoped to the caller's grant
    ///   and the request's tenant and kept [`crate::ServiceConfig::idempotency_retention_secs`]
    ///   (24 h by default): a retry of the same canonical request gets the recorded answer
    ///   ([`Answer::replayed`]); the key with another request is `IDEMPOTENCY_KEY_REUSED`
    ///   (422); a grant holding `rate_per_minute` × retention (in minutes) unexpired keys is
    ///   refused with `IDEMPOTENCY_STORE_FULL` (429), never by evicting one;
    /// - without one, the request is identified by its canonical content (the parsed request,
    ///   memos ignored) for [`crate::ServiceConfig::idempotency_window_secs`].
    ///
    /// A refused request (status 400 and above) records nothing, so no echo of it is stored
    /// and a corrected retry is handled afresh. A delivery cut short by a crash is answered
    /// after the restart from the proposal it had reached, never run again.
    pub fn answer(
        &self,
        caller: &Caller,
        op: Operation,
        body: &[u8],
        header_key: Option<&str>,
    ) -> Answer {
        let _in_flight = match self.begin(Some(op)) {
            Ok(guard) => guard,
            Err(e) => return Answer::error(&e),
        };
        match op {
            Operation::Propose => self.answer_propose(caller, body, header_key),
            Operation::Confirm => self.answer_confirm(caller, body, header_key),
            Operation::Status => Answer::fresh(respond(
                parse::<StatusRequest>(body).and_then(|r| self.status(caller, &r.proposal_id)),
            )),
            Operation::History => Answer::fresh(respond(
                parse::<HistoryRequest>(body)
                    .and_then(|r| self.history(caller, r.limit.unwrap_or(50))),
            )),
            Operation::Pending => Answer::fresh(respond(
                parse::<PendingRequest>(body)
                    .and_then(|r| self.pending(caller, r.limit.unwrap_or(50))),
            )),
            Operation::Halt => Answer::fresh(respond(
                parse::<HaltRequest>(body)
                    .and_then(|r| self.halt(caller, r.halted, r.fee_bumps, &r.reason)),
            )),
        }
    }

    fn answer_propose<'a>(
        &'a self,
        caller: &'a Caller,
        body: &[u8],
        header_key: Option<&str>,
    ) -> Answer {
        let parsed = parse::<ProposeRequest>(body).and_then(|r| {
            let key = client_key(header_key, r.idempotency_key.as_deref())?;
            Ok((intent(&r.intent)?, r.execute, r.allow_repeat, key))
        });
        let (intent, execute, allow_repeat, client) = match parsed {
            Ok(p) => p,
            Err(e) => return Answer::error(&e),
        };
        // Without a key, memos do not make two deliveries of one request differ.
        let mut canonical = intent.clone();
        if client.is_none() {
            canonical.metadata.clear();
        }
        let request_hash = request_hash(
            "propose",
            &CanonicalPropose {
                intent: &canonical,
                execute,
                allow_repeat,
            },
        );
        let tenant = self
            .tenant_for(caller, intent.account)
            .map_or_else(|_| "-".to_owned(), |t| t.id.clone());
        let keyed = Keyed {
            op: Operation::Propose,
            tenant: &tenant,
            request_hash,
            client_key: client.as_deref(),
        };
        self.keyed(
            caller,
            &keyed,
            |claim| {
                let options = ProposeOptions {
                    execute,
                    allow_repeat,
                    claim,
                };
                respond(self.propose_with(caller, intent, options))
            },
            |p| {
                let answer = |confirmed: Option<Confirmed>| Proposed {
                    preview: p.preview.clone(),
                    preview_hash: p.preview.hash(),
                    confirmed,
                };
                match (execute, Confirmed::of(p), p.state) {
                    (_, Some(c), _) => Recovered::Answer(respond(Ok(answer(Some(c))))),
                    (false, None, _) | (true, None, ProposalState::Rejected) => {
                        Recovered::Answer(respond(Ok(answer(None))))
                    }
                    // Its confirmation never got as far as a signature: it is continued, on
                    // this proposal (a new one would be a second payment of the same intent).
                    (true, None, ProposalState::Proposed) => {
                        let p = p.clone();
                        Recovered::Run(Box::new(move |_claim| {
                            let repeat = if allow_repeat {
                                Repeat::Allowed
                            } else {
                                Repeat::Refused
                            };
                            let id = p.id.clone();
                            let proposed = Proposed {
                                preview: p.preview.clone(),
                                preview_hash: p.preview.hash(),
                                confirmed: None,
                            };
                            respond(self.continue_unattended(caller, p, repeat).or_else(|e| {
                                Ok(Proposed {
                                    confirmed: Some(self.overtaken(&id, e)?),
                                    ..proposed
                                })
                            }))
                        }))
                    }
                    // Being confirmed (by an instance that may yet sign it), or gone further
                    // on another path: asked again shortly.
                    (true, None, ProposalState::Confirmed) => Recovered::InProgress,
                    (true, None, _) => Recovered::Answer(respond(Ok(answer(None)))),
                }
            },
        )
    }

    /// Continues an unattended execution whose proposal `p` was recorded but never signed.
    fn continue_unattended(
        &self,
        caller: &Caller,
        mut p: Proposal,
        repeat: Repeat,
    ) -> crate::Result<Proposed> {
        let mut st = self.state();
        self.authorize(&mut st, caller, crate::auth::Scope::Unattended)?;
        let preview_hash = p.preview.hash();
        let confirmed = self.confirm_with(
            st,
            caller,
            &mut p,
            ConfirmMode::Unattended,
            repeat,
            ProposalState::Proposed,
        )?;
        Ok(Proposed {
            preview: p.preview,
            preview_hash,
            confirmed: Some(confirmed),
        })
    }

    fn answer_confirm<'a>(
        &'a self,
        caller: &'a Caller,
        body: &[u8],
        header_key: Option<&str>,
    ) -> Answer {
        let parsed = parse::<ConfirmRequest>(body).and_then(|r| {
            let key = client_key(header_key, r.idempotency_key.as_deref())?;
            Ok((r.proposal_id, r.confirm, key))
        });
        let (id, confirm, client) = match parsed {
            Ok(p) => p,
            Err(e) => return Answer::error(&e),
        };
        let request_hash = request_hash(
            "confirm",
            &CanonicalConfirm {
                proposal_id: &id,
                confirm,
            },
        );
        let tenant = {
            let st = self.state();
            self.visible_proposal(&st, caller, &id)
                .map_or_else(|_| "-".to_owned(), |p| p.tenant)
        };
        let keyed = Keyed {
            op: Operation::Confirm,
            tenant: &tenant,
            request_hash,
            client_key: client.as_deref(),
        };
        self.keyed(
            caller,
            &keyed,
            |claim| respond(self.confirm_keyed(caller, &id, confirm, claim)),
            |p| match (Confirmed::of(p), p.state) {
                (Some(c), _) => Recovered::Answer(respond(Ok(c))),
                // Being confirmed by an instance that may yet sign it: asked again shortly.
                (None, ProposalState::Confirmed) => Recovered::InProgress,
                // Run again; another delivery may take it past a signature first, and what
                // that reached is then this one's answer.
                (None, _) => {
                    let id = p.id.clone();
                    Recovered::Run(Box::new(move |claim| {
                        respond(
                            self.confirm_keyed(caller, &id, confirm, claim)
                                .or_else(|e| self.overtaken(&id, e)),
                        )
                    }))
                }
            },
        )
    }

    /// The idempotent receiver: runs `run` once per request (with the claim to link to the
    /// proposal it reaches), replays its recorded answer, or after a crash answers from the
    /// proposal with `recover` (running the request afresh when that has nothing to say).
    fn keyed<'a>(
        &'a self,
        caller: &'a Caller,
        k: &Keyed<'_>,
        run: impl FnOnce(Option<B256>) -> (u16, String) + 'a,
        recover: impl FnOnce(&Proposal) -> Recovered<'a>,
    ) -> Answer {
        let op = k.op.as_str().as_bytes();
        let hash = k.request_hash.0;
        let parts: [&[u8]; 5] = match k.client_key {
            Some(c) => [
                caller.id.as_bytes(),
                k.tenant.as_bytes(),
                op,
                b"key",
                c.as_bytes(),
            ],
            None => [
                caller.id.as_bytes(),
                k.tenant.as_bytes(),
                op,
                b"content",
                &hash,
            ],
        };
        let idem_key = key(b"PACE-RS/idempotency/v2\n", &parts);
        let now = self.now();
        let c = &self.config;
        let keep = if k.client_key.is_some() {
            c.idempotency_retention_secs
        } else {
            c.idempotency_window_secs
        };
        let capacity = u64::from(caller.rate_per_minute)
            .saturating_mul(c.idempotency_retention_secs.div_ceil(60).max(1));
        let claim = IdemClaim {
            key: idem_key,
            grant: caller.id.clone(),
            request_hash: k.request_hash,
            now,
            expires_at: now.saturating_add(keep),
            capacity,
        };
        // Held in this instance's registry before the claim is taken, so that its heartbeat
        // never releases a claim a handler holds.
        let _held = Held::new(self, idem_key);
        let begin = self.store.idempotency_begin(&claim, &self.instance.id);
        match begin {
            Ok(IdemBegin::Replay(r)) => {
                self.metrics.inc("idempotent_replays", "recorded");
                Answer {
                    status: r.status,
                    body: r.body,
                    replayed: true,
                }
            }
            Ok(IdemBegin::InFlight) => {
                // Another delivery is being handled (here or on another instance): a moment
                // later its recorded answer is replayed.
                Answer::error(&Error::InProgress)
            }
            Ok(IdemBegin::Reused) => Answer::error(&Error::IdempotencyKeyReused),
            Ok(IdemBegin::Full) => Answer::error(&Error::IdempotencyStoreFull { held: capacity }),
            Ok(IdemBegin::Recover(id)) => {
                let p = self.store.proposal(&id);
                let recovered = match p {
                    Ok(Some(p)) => recover(&p),
                    Ok(None) => Recovered::Afresh,
                    Err(e) => return Answer::error(&e),
                };
                // What runs again, under the key claimed again.
                let again: Box<dyn FnOnce(Option<B256>) -> (u16, String) + 'a> = match recovered {
                    Recovered::Answer(answer) => {
                        self.metrics.inc("idempotent_replays", "recovered");
                        return Answer {
                            replayed: true,
                            ..Answer::fresh(answer)
                        };
                    }
                    Recovered::InProgress => return Answer::error(&Error::InProgress),
                    Recovered::Run(f) => f,
                    Recovered::Afresh => Box::new(run),
                };
                // Taken over (its link kept), so that one delivery runs it.
                match self.store.idempotency_take(idem_key, &self.instance.id) {
                    Ok(true) => self.run_claimed(idem_key, again),
                    Ok(false) => Answer::error(&Error::InProgress),
                    Err(e) => Answer::error(&e),
                }
            }
            Err(e) => Answer::error(&e),
            Ok(IdemBegin::Fresh) => self.run_claimed(idem_key, run),
        }
    }

    /// Runs a claimed request and records its answer; a refusal records nothing.
    fn run_claimed(&self, key: B256, run: impl FnOnce(Option<B256>) -> (u16, String)) -> Answer {
        let (status, body) = run(Some(key));
        let recorded = if status >= 400 {
            self.store.idempotency_abandon(key, &self.instance.id)
        } else {
            let stored = StoredResponse {
                status,
                body: body.clone(),
            };
            self.store
                .idempotency_finish(key, &self.instance.id, &stored)
        };
        match recorded {
            Ok(()) => Answer::fresh((status, body)),
            Err(e) => {
                // Released by the heartbeat once the store answers again.
                self.ended
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(key);
                Answer::error(&e)
            }
        }
    }
}

/// How a delivery cut short (its handler's instance gone, or its answer never recorded) is
/// answered from the proposal it had reached.
enum Recovered<'a> {
    /// This answer, as the first delivery would have had it.
    Answer((u16, String)),
    /// The proposal is being worked on: `IN_PROGRESS`, asked again shortly.
    InProgress,
    /// The request is run again, as it is.
    Afresh,
    /// The request is continued from the proposal.
    Run(Box<dyn FnOnce(Option<B256>) -> (u16, String) + 'a>),
}

/// An idempotency key held by one of this instance's handlers, for as long as it lives.
struct Held<'a> {
    service: &'a Service,
    key: B256,
}

impl<'a> Held<'a> {
    fn new(service: &'a Service, key: B256) -> Self {
        service
            .claims
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key);
        Self { service, key }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.service
            .claims
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_bounded_and_header_and_body_must_agree() {
        assert_eq!(client_key(None, None).unwrap(), None);
        assert_eq!(
            client_key(Some("k-1"), None).unwrap().as_deref(),
            Some("k-1")
        );
        assert_eq!(
            client_key(Some("k"), Some("k")).unwrap().as_deref(),
            Some("k")
        );
        for bad in ["", "has space", "é", &"x".repeat(256)] {
            assert!(client_key(Some(bad), None).is_err(), "{bad:?}");
        }
        assert!(client_key(Some("a"), Some("b")).is_err());
    }
}
