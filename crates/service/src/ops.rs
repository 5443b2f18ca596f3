//! The operator's side of the service: readiness, the metrics' text, graceful shutdown (the
//! requests in flight, and refusing new ones while draining), and refusals counted and
//! audited at the door.
//!
//! - **Refusals.** Every refused authentication (`UNAUTHORIZED`, `RATE_LIMITED`) and every
//!   refused scope is counted in `pace_refusals_total{code}`. One that names a caller (a known
//!   token over its rate, a token without the scope) is also written to the audit log; a rate
//!   limit at most once per caller and minute, so that a caller over its rate cannot grow the
//!   log faster than its own rate would.
//! - **Draining.** Once [`Service::drain`] starts, `propose`, `confirm`, `halt` and the human's
//!   approval are refused with `SHUTTING_DOWN` (503, nothing signed), and the requests already
//!   running are waited for, up to a bound: a confirmation that was signed is recorded and
//!   submitted before the process exits.

use crate::store::{Instance, LeaseConfig, Store};
use crate::{
    Error, Result, Service,
    api::Operation,
    audit::AuditKind,
    auth::{Caller, Scope},
};
use alloy_primitives::B256;
use std::{
    collections::{HashMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// The operator's state of a [`Service`].
#[derive(Debug, Default)]
pub struct Ops {
    in_flight: AtomicU64,
    draining: AtomicBool,
    metrics_public: AtomicBool,
    /// The minute (unix time / 60) each caller's rate limit was last audited.
    rate_audited: Mutex<HashMap<String, u64>>,
}

/// A request being handled: counted in [`Service::in_flight`] until dropped.
#[derive(Debug)]
pub struct InFlight<'a>(&'a Ops);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Service {
    /// Counts a refused authentication, and audits it when it names a caller (a known token
    /// over its rate: at most once per caller and minute).
    pub(crate) fn refused_at_the_door(&self, secret: Option<&str>, e: &Error) {
        self.metrics.inc("refusals", e.code());
        if !matches!(e, Error::RateLimited { .. }) {
            return;
        }
        let Ok(caller) = self.tokens.lookup(secret) else {
            return;
        };
        let minute = self.now() / 60;
        {
            let mut audited = self
                .ops
                .rate_audited
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if audited.get(&caller.id) == Some(&minute) {
                return;
            }
            audited.insert(caller.id.clone(), minute);
        }
        let mut entry = Self::entry(&caller, AuditKind::Refuse, &[], None);
        entry.codes = vec![e.code().to_owned()];
        entry.detail = serde_json::json!({
            "message": e.to_string(),
            "note": "further rate-limit refusals of this caller in this minute are counted, not audited",
        });
        let mut st = self.state();
        if let Err(err) = self.audit(&mut st, entry) {
            eprintln!("pace serve: audit of a refusal failed: {err}");
        }
    }

    /// Admits the read iff `caller` holds `scope`; a refusal is counted and audited.
    pub fn require_audited(&self, caller: &Caller, scope: Scope) -> Result<()> {
        caller.require(scope).or_else(|e| {
            let mut st = self.state();
            self.refuse(&mut st, caller, None, &e)?;
            Err(e)
        })
    }

    /// Counts a request as in flight; while draining, refuses one that could sign
    /// (`propose`, `confirm`, `halt`, a human's approval) with `SHUTTING_DOWN`.
    pub(crate) fn begin(&self, op: Option<Operation>) -> Result<InFlight<'_>> {
        let signs = !matches!(
            op,
            Some(Operation::Status | Operation::History | Operation::Pending)
        );
        self.ops.in_flight.fetch_add(1, Ordering::SeqCst);
        let guard = InFlight(&self.ops);
        if signs && self.ops.draining.load(Ordering::SeqCst) {
            self.metrics.inc("refusals", Error::ShuttingDown.code());
            return Err(Error::ShuttingDown);
        }
        Ok(guard)
    }

    /// How many requests are being handled.
    pub fn in_flight(&self) -> u64 {
        self.ops.in_flight.load(Ordering::SeqCst)
    }

    /// Whether the service is draining (see [`Self::drain`]).
    pub fn draining(&self) -> bool {
        self.ops.draining.load(Ordering::SeqCst)
    }

    /// Stops taking requests that could sign and waits, at most `grace`, for those in flight
    /// to finish (a signed confirmation is recorded and submitted first). `true` when none is
    /// left.
    pub async fn drain(&self, grace: Duration) -> bool {
        self.ops.draining.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + grace;
        loop {
            if self.in_flight() == 0 {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Serve `/metrics` without a token (`pace serve --metrics-public`): for a scraper on a
    /// trusted network. Off by default: a token with the `read` scope is needed.
    pub fn set_metrics_public(&self, public: bool) {
        self.ops.metrics_public.store(public, Ordering::SeqCst);
    }

    /// Whether `/metrics` is served without a token.
    pub fn metrics_public(&self) -> bool {
        self.ops.metrics_public.load(Ordering::SeqCst)
    }

    /// Readiness: the chain's latest block number, or why the chain cannot be read.
    /// On a node it is read with the service's lock released, so a confirmation waiting for
    /// its receipt does not hold it up.
    pub fn ready(&self) -> Result<u64> {
        let node = self.state().chain.node_arc();
        match node {
            Some(n) => n.latest_block().map(|b| b.number),
            None => self.state().chain.block_number(),
        }
    }

    /// The counters and gauges in the Prometheus text format.
    pub fn metrics_text(&self) -> String {
        let store_us = u64::try_from(self.store.busy().as_micros()).unwrap_or(u64::MAX);
        self.metrics.set("phase_microseconds", "store", store_us);
        let in_flight = self.in_flight();
        self.metrics.render(&[
            (
                "in_flight_requests",
                "Requests being handled now.",
                in_flight,
            ),
            (
                "draining",
                "1 while the service is shutting down.",
                u64::from(self.draining()),
            ),
        ])
    }
}

/// What an instance follows in the store, checked at every heartbeat: the published grants
/// (re-read when another instance publishes new ones: a revocation reaches every instance)
/// and the published tenants (when they are no longer this instance's, it stops deciding).
#[derive(Debug)]
pub(crate) struct Follow {
    pub(crate) tokens: Arc<crate::auth::ApiTokens>,
    pub(crate) grants_version: u64,
    pub(crate) tenants_version: u64,
    pub(crate) stale: Arc<AtomicBool>,
    /// Claims whose handlers ended without recording an answer (the store was unreachable).
    pub(crate) ended: Arc<Mutex<Vec<B256>>>,
}

impl Follow {
    /// Releases the claims whose handlers ended without recording an answer: a re-delivery is
    /// then answered from, or continued on, the proposal it reached.
    fn settle_ended(&self, store: &dyn Store, instance: &Instance) {
        let ended: Vec<B256> =
            std::mem::take(&mut *self.ended.lock().unwrap_or_else(|p| p.into_inner()));
        if !ended.is_empty() && store.release_claims(&instance.id, &ended).is_err() {
            self.ended
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend(ended);
        }
    }

    /// Follows the published grants and tenants.
    fn check(&mut self, store: &dyn Store) {
        if let Ok(Some((version, body))) = store.published("grants")
            && version != self.grants_version
        {
            match crate::auth::ApiTokens::parse(body.as_bytes())
                .and_then(|g| self.tokens.replace(g))
            {
                Ok(()) => {
                    eprintln!("pace serve: grants followed from the store (version {version})");
                    self.grants_version = version;
                }
                Err(e) => eprintln!("pace serve: published grants not followed: {e}"),
            }
        }
        if let Ok(Some((version, _))) = store.published("tenants") {
            let stale = version != self.tenants_version;
            if stale != self.stale.swap(stale, Ordering::SeqCst) && stale {
                eprintln!(
                    "pace serve: the store's tenants (version {version}) are not this instance's \
                     (version {}): it decides nothing until restarted with them",
                    self.tenants_version
                );
            }
        }
    }
}

/// The instance's heartbeat: a thread that renews its leases in the store every third of the
/// lease and gives back what its handlers no longer hold. A process that stops (`kill -9`,
/// `SIGSTOP`, cut off from the store) stops renewing, and its leases lapse: other instances
/// then take its lanes over, and its own late signatures are refused by the fencing token.
#[derive(Debug)]
pub struct Heartbeat {
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Heartbeat {
    /// Starts the heartbeat of `instance` on `store`; `claims` are the idempotency claims its
    /// handlers hold.
    pub(crate) fn spawn(
        store: Arc<dyn Store>,
        instance: Instance,
        lease: LeaseConfig,
        claims: Arc<Mutex<HashSet<B256>>>,
        mut follow: Follow,
    ) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let period = (lease.ttl / 3).max(Duration::from_millis(100));
        let spawned = std::thread::Builder::new()
            .name("pace-heartbeat".to_owned())
            .spawn(move || {
                let mut failing = false;
                loop {
                    let next = Instant::now() + period;
                    while Instant::now() < next {
                        if stopped.load(Ordering::SeqCst) {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    let held: Vec<B256> = claims
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .iter()
                        .copied()
                        .collect();
                    follow.check(&*store);
                    follow.settle_ended(&*store, &instance);
                    match store.heartbeat(&instance, lease, &held) {
                        Ok(()) if failing => {
                            eprintln!("pace serve: the store answers again: leases renewed");
                            failing = false;
                        }
                        Ok(()) => {}
                        Err(e) if !failing => {
                            eprintln!("pace serve: heartbeat: {e}");
                            failing = true;
                        }
                        Err(_) => {}
                    }
                }
            });
        let thread = match spawned {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("pace serve: no heartbeat thread ({e}): leases are renewed only by use");
                None
            }
        };
        Self {
            stop,
            thread: Mutex::new(thread),
        }
    }

    /// Stops renewing, and waits for the thread to end (it lets go of the store).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let thread = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(t) = thread
            && t.thread().id() != std::thread::current().id()
        {
            let _ = t.join();
        }
    }
}
