//! The shared store: PostgreSQL, for several instances serving the same accounts.
//!
//! **Isolation.** Every step is one transaction at `READ COMMITTED` whose conflicts are on
//! known keys, each serialised by the key itself: the idempotency key (`INSERT … ON CONFLICT`
//! then `SELECT … FOR UPDATE` of its row), the proposal's state (`UPDATE … WHERE state =
//! expected`: one delivery wins, the other reads the state it lost to), the
//! `(account, lane, sequence)` primary key of a reservation under a per-lane
//! `pg_advisory_xact_lock` (as Web3Signer's slashing protection locks per key), a grant's
//! count of idempotency keys and of MCP sessions under a per-grant one, the lane and
//! relayer leases (`FOR UPDATE` of their rows), and the audit head (`FOR UPDATE` of its one
//! row, taken last in every step so that it is held only while the record is chained). Two
//! instances receiving the same request at the same moment therefore produce one decision and
//! one transaction without `SERIALIZABLE`: under it every step, since every step appends to
//! the audit chain, would conflict with every other and be retried whole, while the keys
//! above already name exactly which writers compete. A deadlock or serialisation failure the
//! server reports anyway is retried (the transaction was rolled back: nothing happened).
//!
//! **Failures.** A connection that cannot be had within the acquire timeout, a lost
//! connection, a server shutting down, a statement past its timeout: the step fails with
//! `STORE_UNAVAILABLE` (HTTP 503 with `Retry-After`) and nothing is decided on what the
//! instance last knew. `idle_in_transaction_session_timeout` ends the transaction of an
//! instance paused inside one, so that a stopped process cannot hold the audit head.
//!
//! **Clock.** Leases are timed by the server's `clock_timestamp()`, never the instances'.
//!
//! **Migrations** are the files of `crates/service/migrations/postgres/`, applied in order
//! under a session advisory lock (instances starting together apply each once), each in a
//! transaction, recorded with its checksum in `schema_migrations`: a migration edited after it
//! was applied, or a store newer than this build, is refused.

use super::{
    Applied, Confirmation, Halt, IdemBegin, IdemClaim, Instance, LeaseConfig, NonceOutcome,
    NonceRequest, Proposal, ProposalState, Reservation, ReservationState, SentTx, SignatureStep,
    Step, Store, StoreKind, StoredResponse,
    steps::{IdemDecision, IdemRow, holder_dead, idem_decide, own_entry},
    url::redact,
};
use crate::{
    Error, Result,
    audit::{AuditEntry, AuditKind, AuditRecord},
    identity::intent_identity,
};
use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use sqlx::{
    Connection as _, PgConnection, Row,
    postgres::{PgConnectOptions, PgPool, PgPoolOptions},
};
use std::{str::FromStr, time::Duration};

/// The migrations, in order: version, name, SQL.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "store",
        include_str!("../../migrations/postgres/0001_store.sql"),
    ),
    (
        2,
        "idempotency_held",
        include_str!("../../migrations/postgres/0002_idempotency_held.sql"),
    ),
];

/// The schema version this build writes: the last migration's.
pub const PG_SCHEMA_VERSION: i64 = 2;

/// The advisory lock migrations run under.
const MIGRATION_LOCK: i64 = 0x5041_4345_4d49_4752; // "PACEMIGR"

/// How a [`PgStore`] connects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgConfig {
    /// The most connections the instance opens.
    pub max_connections: u32,
    /// How long a step waits for a connection before it fails `STORE_UNAVAILABLE`.
    pub acquire_timeout: Duration,
    /// How long one statement may run (`statement_timeout`).
    pub statement_timeout: Duration,
}

impl Default for PgConfig {
    /// 16 connections, 3 s to get one, 10 s per statement.
    fn default() -> Self {
        Self {
            max_connections: 16,
            acquire_timeout: Duration::from_secs(3),
            statement_timeout: Duration::from_secs(10),
        }
    }
}

/// [`Store`] on PostgreSQL.
pub struct PgStore {
    runtime: tokio::runtime::Runtime,
    pool: PgPool,
    url: String,
    config: PgConfig,
    busy_ns: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// A failure inside a step: the driver's (retried when the server asks for it) or the
/// service's.
enum Fail {
    Sql(sqlx::Error),
    Service(Box<Error>),
}

impl From<sqlx::Error> for Fail {
    fn from(e: sqlx::Error) -> Self {
        Self::Sql(e)
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Self::Service(Box::new(e))
    }
}

impl From<serde_json::Error> for Fail {
    fn from(e: serde_json::Error) -> Self {
        Self::Service(Box::new(e.into()))
    }
}

type R<T> = std::result::Result<T, Fail>;

/// A transaction's row: hash, signed bytes, sender, nonce, time.
type TxRow = (String, Option<String>, Option<String>, Option<i64>, i64);

/// The SQLSTATE of a database error.
fn sqlstate(e: &sqlx::Error) -> Option<String> {
    match e {
        sqlx::Error::Database(db) => db.code().map(|c| c.into_owned()),
        _ => None,
    }
}

/// Whether the server rolled the transaction back for a conflict it wants retried.
fn retryable(e: &sqlx::Error) -> bool {
    matches!(sqlstate(e).as_deref(), Some("40001" | "40P01"))
}

/// A driver error as the service's: the server or the network failing is
/// `STORE_UNAVAILABLE`, anything else `STORE`.
fn service_error(e: &sqlx::Error, url: &str) -> Error {
    let unavailable = match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(_) => sqlstate(e).is_some_and(|c| {
            // Connection exceptions, operator intervention (shutdown, cancel, timeouts),
            // insufficient resources, lock timeouts, and what was retried in vain.
            c.starts_with("08")
                || c.starts_with("57")
                || c.starts_with("53")
                || c == "55P03"
                || c == "40001"
                || c == "40P01"
        }),
        _ => false,
    };
    let message = format!("{}: {e}", redact(url));
    if unavailable {
        Error::StoreUnavailable(message)
    } else {
        Error::Store(message)
    }
}

/// A fresh random id (an instance's).
pub(crate) fn fresh_id() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 12];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_err()
    {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes.copy_from_slice(&keccak256(format!("{nanos}/{}", std::process::id()))[..12]);
    }
    format!("i-{}", alloy_primitives::hex::encode(bytes))
}

fn i(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn u(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn hex(h: B256) -> String {
    h.to_string()
}

fn parse_b256(s: &str) -> Result<B256> {
    s.parse()
        .map_err(|e| Error::Store(format!("stored hash {s:?}: {e}")))
}

fn parse_address(s: &str) -> Result<Address> {
    s.parse()
        .map_err(|e| Error::Store(format!("stored address {s:?}: {e}")))
}

/// The advisory-lock key of a lane (its reservations and its lease).
fn lane_key(account: Address, lane: u32) -> i64 {
    let h = keccak256(format!("PACE-RS/lane-lock/v1\n{account}/{lane}"));
    i64::from_be_bytes(h[..8].try_into().expect("8 bytes"))
}

/// The advisory-lock key of a charge's counter.
fn charge_key(kind: &str, who: &str) -> i64 {
    let h = keccak256(format!("PACE-RS/charge-lock/v1\n{kind}/{who}"));
    i64::from_be_bytes(h[..8].try_into().expect("8 bytes"))
}

/// The states in which a proposal may still hold its lane.
const UNSETTLED: &[&str] = &["confirmed", "signed", "submitted", "uncertain"];

/// The server's clock, in milliseconds.
async fn now_ms(c: &mut PgConnection) -> R<i64> {
    Ok(
        sqlx::query_scalar("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")
            .fetch_one(&mut *c)
            .await?,
    )
}

/// Appends `entry` to the chain inside the transaction on `c`.
async fn append(c: &mut PgConnection, at: u64, entry: AuditEntry) -> R<AuditRecord> {
    let (seq, hash): (i64, String) =
        sqlx::query_as("SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE")
            .fetch_one(&mut *c)
            .await?;
    let rec = AuditRecord::chain(u(seq) + 1, at, entry, parse_b256(&hash)?);
    sqlx::query(
        "INSERT INTO audit (seq, version, at, entry, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(i(rec.seq))
    .bind(i32::try_from(rec.version).unwrap_or(i32::MAX))
    .bind(i(rec.at))
    .bind(serde_json::to_string(&rec.entry)?)
    .bind(hex(rec.prev_hash))
    .bind(hex(rec.hash))
    .execute(&mut *c)
    .await?;
    sqlx::query("UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1")
        .bind(i(rec.seq))
        .bind(hex(rec.hash))
        .execute(&mut *c)
        .await?;
    Ok(rec)
}

/// Links the claim on `key` to proposal `id` while `holder` still holds it (`IN_PROGRESS`
/// otherwise: another instance took it over once `holder`'s lease lapsed, and answers it).
async fn link(c: &mut PgConnection, key: B256, holder: &str, id: &str) -> R<()> {
    let n = sqlx::query(
        "UPDATE idempotency SET proposal_id = $2
         WHERE key = $1 AND (instance IS NULL OR instance = $3)",
    )
    .bind(hex(key))
    .bind(id)
    .bind(holder)
    .execute(&mut *c)
    .await?
    .rows_affected();
    if n == 1 {
        Ok(())
    } else {
        Err(Error::InProgress.into())
    }
}

async fn state_of(c: &mut PgConnection, id: &str) -> R<Option<ProposalState>> {
    let s: Option<String> = sqlx::query_scalar("SELECT state FROM proposals WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut *c)
        .await?;
    Ok(s.as_deref().and_then(ProposalState::parse))
}

async fn bodies(
    q: sqlx::query::QueryScalar<'_, sqlx::Postgres, String, sqlx::postgres::PgArguments>,
    c: &mut PgConnection,
) -> R<Vec<Proposal>> {
    let rows = q.fetch_all(&mut *c).await?;
    rows.iter()
        .map(|b| serde_json::from_str(b).map_err(Fail::from))
        .collect()
}

const RESERVATION: &str =
    "account, lane, sequence, proposal_id, state, digest, valid_until, holder, fence";

fn reservation(row: &sqlx::postgres::PgRow) -> R<Reservation> {
    let bad = |what: &str| Fail::from(Error::Store(format!("stored reservation: bad {what}")));
    let state: String = row.try_get(4)?;
    let digest: Option<String> = row.try_get(5)?;
    let valid_until: Option<i64> = row.try_get(6)?;
    let holder: Option<String> = row.try_get(7)?;
    Ok(Reservation {
        account: parse_address(&row.try_get::<String, _>(0)?)?,
        lane: u32::try_from(row.try_get::<i64, _>(1)?).map_err(|_| bad("lane"))?,
        sequence: u(row.try_get(2)?),
        proposal_id: row.try_get(3)?,
        state: ReservationState::parse(&state).ok_or_else(|| bad("state"))?,
        digest: digest.as_deref().map(parse_b256).transpose()?,
        valid_until: valid_until.map(u),
        holder: holder.filter(|h| !h.is_empty()),
        fence: row.try_get(8)?,
    })
}

async fn read_reservation(
    c: &mut PgConnection,
    account: Address,
    lane: u32,
    sequence: u64,
) -> R<Option<Reservation>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {RESERVATION} FROM reservations
         WHERE account = $1 AND lane = $2 AND sequence = $3"
    )))
    .bind(account.to_string())
    .bind(i64::from(lane))
    .bind(i(sequence))
    .fetch_optional(&mut *c)
    .await?;
    row.as_ref().map(reservation).transpose()
}

async fn charged(c: &mut PgConnection, kind: &str, who: &str, since: u64) -> R<U256> {
    let rows: Vec<String> =
        sqlx::query_scalar("SELECT wei FROM ledger WHERE kind = $1 AND who = $2 AND at >= $3")
            .bind(kind)
            .bind(who)
            .bind(i(since))
            .fetch_all(&mut *c)
            .await?;
    let mut sum = U256::ZERO;
    for wei in rows {
        let v = U256::from_str_radix(&wei, 10)
            .map_err(|e| Error::Store(format!("stored charge {wei:?}: {e}")))?;
        sum = sum.saturating_add(v);
    }
    Ok(sum)
}

async fn charge_all(
    c: &mut PgConnection,
    proposal_id: &str,
    at: u64,
    charges: &[super::Charge],
) -> R<()> {
    for ch in charges {
        if let Some((since, limit)) = ch.limit {
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(charge_key(&ch.kind, &ch.who))
                .execute(&mut *c)
                .await?;
            let spent = charged(c, &ch.kind, &ch.who, since).await?;
            if spent.saturating_add(ch.wei) > limit {
                return Err(Error::ChargeOverLimit {
                    kind: ch.kind.clone(),
                    who: ch.who.clone(),
                    spent,
                }
                .into());
            }
        }
        sqlx::query(
            "INSERT INTO ledger (proposal_id, kind, who, at, wei) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (proposal_id, kind) DO UPDATE SET wei = excluded.wei, at = excluded.at",
        )
        .bind(proposal_id)
        .bind(&ch.kind)
        .bind(&ch.who)
        .bind(i(at))
        .bind(ch.wei.to_string())
        .execute(&mut *c)
        .await?;
    }
    Ok(())
}

async fn insert_proposal(
    c: &mut PgConnection,
    p: &Proposal,
    owner: Option<&str>,
    upsert: bool,
) -> R<bool> {
    let sql = if upsert {
        "INSERT INTO proposals (id, caller, tenant, intent_hash, identity, state, created_at,
             owner, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body,
             owner = COALESCE(excluded.owner, proposals.owner)"
    } else {
        "INSERT INTO proposals (id, caller, tenant, intent_hash, identity, state, created_at,
             owner, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO NOTHING"
    };
    let n = sqlx::query(sql)
        .bind(&p.id)
        .bind(&p.caller)
        .bind(&p.tenant)
        .bind(hex(p.intent_hash))
        .bind(hex(intent_identity(&p.intent)))
        .bind(p.state.as_str())
        .bind(i(p.created_at))
        .bind(owner)
        .bind(serde_json::to_string(p)?)
        .execute(&mut *c)
        .await?
        .rows_affected();
    Ok(n == 1)
}

impl PgStore {
    /// Connects to the database at `url` (a password comes from `PGPASSWORD` or the password
    /// file), applies the pending migrations, and checks the schema version.
    pub fn connect(url: &str) -> Result<Self> {
        Self::connect_with(url, PgConfig::default())
    }

    /// [`Self::connect`] with `config`.
    pub fn connect_with(url: &str, config: PgConfig) -> Result<Self> {
        let store = Self::pool(url, config)?;
        store.migrate().map_err(|e| match e {
            Error::StoreUnavailable(m) => Error::Config(format!("cannot reach the store: {m}")),
            e => e,
        })?;
        Ok(store)
    }

    /// Connects to an existing store to read it (`pace audit verify`): nothing is created or
    /// migrated.
    pub fn open_existing(url: &str) -> Result<Self> {
        let store = Self::pool(url, PgConfig::default())?;
        let version = store
            .run(store.with(async |c| {
                let exists: Option<String> =
                    sqlx::query_scalar("SELECT to_regclass('schema_migrations')::text")
                        .fetch_one(&mut *c)
                        .await?;
                if exists.is_none() {
                    return Ok(None);
                }
                Ok(sqlx::query_scalar::<_, Option<i64>>(
                    "SELECT max(version) FROM schema_migrations",
                )
                .fetch_one(&mut *c)
                .await?)
            }))
            .map_err(|e| match e {
                Error::StoreUnavailable(m) => Error::Config(format!("cannot reach the store: {m}")),
                e => e,
            })?;
        match version {
            None => Err(Error::Config(format!(
                "{}: no pace store here (no schema_migrations table)",
                store.url
            ))),
            Some(v) if v > PG_SCHEMA_VERSION => Err(Error::Store(format!(
                "store schema version {v}; this build reads versions 1 to {PG_SCHEMA_VERSION}"
            ))),
            Some(_) => Ok(store),
        }
    }

    /// The pool, connected lazily (the first step connects).
    fn pool(url: &str, config: PgConfig) -> Result<Self> {
        let shown = redact(url);
        let runtime = crate::blocking::runtime("pace-store-pg", 2)
            .map_err(|e| Error::Config(format!("store runtime: {e}")))?;
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| Error::Config(format!("--store {shown}: {e}")))?;
        let statement_ms = config.statement_timeout.as_millis().to_string();
        let options = options.application_name("pace-serve").options([
            ("statement_timeout", statement_ms.as_str()),
            ("lock_timeout", statement_ms.as_str()),
            ("idle_in_transaction_session_timeout", "5000"),
        ]);
        let pool = {
            let _in = runtime.enter();
            PgPoolOptions::new()
                .max_connections(config.max_connections)
                .min_connections(0)
                .acquire_timeout(config.acquire_timeout)
                .idle_timeout(Duration::from_secs(60))
                .connect_lazy_with(options)
        };
        Ok(Self {
            runtime,
            pool,
            url: shown,
            config,
            busy_ns: Default::default(),
        })
    }

    /// Runs `f` on this store's runtime, bounded by the acquire and statement timeouts.
    fn run<T>(&self, f: impl Future<Output = R<T>>) -> Result<T> {
        let since = std::time::Instant::now();
        let out = self.run_untimed(f);
        let ns = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.busy_ns
            .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
        out
    }

    fn run_untimed<T>(&self, f: impl Future<Output = R<T>>) -> Result<T> {
        let bound = self.config.acquire_timeout + self.config.statement_timeout;
        let out = crate::blocking::block_on(&self.runtime, async {
            match tokio::time::timeout(bound, f).await {
                Ok(out) => out,
                Err(_) => Err(Fail::from(Error::StoreUnavailable(format!(
                    "{}: no answer within {bound:?}",
                    self.url
                )))),
            }
        });
        out.map_err(|e| match e {
            Fail::Sql(e) => service_error(&e, &self.url),
            Fail::Service(e) => *e,
        })
    }

    /// Runs `f` in one transaction, committed when it returns `Ok`; retried (a few times)
    /// when the server rolled it back for a deadlock or a serialisation failure.
    async fn transact<T>(&self, f: impl AsyncFn(&mut PgConnection) -> R<T>) -> R<T> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut tx = self.pool.begin().await?;
            let out = match f(&mut tx).await {
                Ok(v) => tx.commit().await.map(|()| v).map_err(Fail::from),
                Err(e) => Err(e),
            };
            match out {
                Err(Fail::Sql(e)) if retryable(&e) && attempt < 4 => continue,
                out => return out,
            }
        }
    }

    /// Runs `f` on a pooled connection, outside a transaction.
    async fn with<T>(&self, f: impl AsyncFnOnce(&mut PgConnection) -> R<T>) -> R<T> {
        let mut c = self.pool.acquire().await?;
        f(&mut c).await
    }

    /// Applies the pending migrations under the migration lock.
    fn migrate(&self) -> Result<()> {
        self.run(async {
            let mut c = self.pool.acquire().await?;
            sqlx::query("SELECT pg_advisory_lock($1)")
                .bind(MIGRATION_LOCK)
                .execute(&mut *c)
                .await?;
            let out = apply_migrations(&mut c).await;
            let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
                .bind(MIGRATION_LOCK)
                .execute(&mut *c)
                .await;
            out?;
            unlocked?;
            Ok(())
        })
    }

    /// The migrations applied, in order: version, name.
    pub fn migrations(&self) -> Result<Vec<(i64, String)>> {
        self.run(self.with(async |c| {
            Ok(
                sqlx::query_as("SELECT version, name FROM schema_migrations ORDER BY version")
                    .fetch_all(&mut *c)
                    .await?,
            )
        }))
    }

    /// Whether the store holds nothing yet (no proposal, no audit record): what `pace store
    /// migrate` copies into.
    pub fn is_empty(&self) -> Result<bool> {
        self.run(self.with(async |c| {
            let n: i64 = sqlx::query_scalar(
                "SELECT (SELECT count(*) FROM proposals) + (SELECT count(*) FROM audit)",
            )
            .fetch_one(&mut *c)
            .await?;
            Ok(n == 0)
        }))
    }

    /// Copies `rows` of the SQLite store into this empty store in one transaction (`pace store
    /// migrate`): the audit records as they are (their hashes unchanged), the head, and every
    /// other table's rows.
    pub fn import(&self, rows: &super::sqlite::Export) -> Result<()> {
        self.run(self.transact(async |c| {
            let empty: i64 = sqlx::query_scalar(
                "SELECT (SELECT count(*) FROM proposals) + (SELECT count(*) FROM audit)",
            )
            .fetch_one(&mut *c)
            .await?;
            if empty != 0 {
                return Err(Error::Config(
                    "the PostgreSQL store is not empty: a store is migrated into an empty one"
                        .into(),
                )
                .into());
            }
            for r in &rows.audit {
                sqlx::query(
                    "INSERT INTO audit (seq, version, at, entry, prev_hash, hash)
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(i(r.seq))
                .bind(i32::try_from(r.version).unwrap_or(i32::MAX))
                .bind(i(r.at))
                .bind(&r.entry)
                .bind(&r.prev_hash)
                .bind(&r.hash)
                .execute(&mut *c)
                .await?;
            }
            if let Some((seq, hash)) = &rows.head {
                sqlx::query("UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1")
                    .bind(i(*seq))
                    .bind(hash)
                    .execute(&mut *c)
                    .await?;
            }
            for (p, owner) in &rows.proposals {
                insert_proposal(c, p, owner.as_deref(), true).await?;
            }
            for (id, body) in &rows.confirmations {
                sqlx::query("INSERT INTO confirmations (proposal_id, body) VALUES ($1, $2)")
                    .bind(id)
                    .bind(body)
                    .execute(&mut *c)
                    .await?;
            }
            for r in &rows.idempotency {
                sqlx::query(
                    "INSERT INTO idempotency (key, at, status, body, grant_id, request_hash,
                         proposal_id, released, expires_at, instance, claimed_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, TRUE, $8, NULL, 0)",
                )
                .bind(&r.key)
                .bind(i(r.at))
                .bind(r.status.map(i32::from))
                .bind(&r.body)
                .bind(&r.grant)
                .bind(&r.request_hash)
                .bind(&r.proposal_id)
                .bind(i(r.expires_at))
                .execute(&mut *c)
                .await?;
            }
            for r in &rows.reservations {
                sqlx::query(
                    "INSERT INTO reservations (account, lane, sequence, proposal_id, state,
                         digest, valid_until, holder, fence, at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, 0, 0)",
                )
                .bind(r.account.to_string())
                .bind(i64::from(r.lane))
                .bind(i(r.sequence))
                .bind(&r.proposal_id)
                .bind(r.state.as_str())
                .bind(r.digest.map(hex))
                .bind(r.valid_until.map(i))
                .execute(&mut *c)
                .await?;
            }
            for (proposal, t) in &rows.transactions {
                sqlx::query(
                    "INSERT INTO transactions (proposal_id, tx_hash, at, raw, sender, nonce)
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(proposal)
                .bind(hex(t.tx_hash))
                .bind(i(t.at))
                .bind(t.raw.as_ref().map(|r| r.to_string()))
                .bind(t.sender.map(|a| a.to_string()))
                .bind(t.nonce.map(i))
                .execute(&mut *c)
                .await?;
            }
            for (k, v) in &rows.settings {
                sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2)")
                    .bind(k)
                    .bind(v)
                    .execute(&mut *c)
                    .await?;
            }
            for (proposal, kind, who, at, wei) in &rows.ledger {
                sqlx::query(
                    "INSERT INTO ledger (proposal_id, kind, who, at, wei)
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(proposal)
                .bind(kind)
                .bind(who)
                .bind(i(*at))
                .bind(wei)
                .execute(&mut *c)
                .await?;
            }
            Ok(())
        }))
    }

    /// Removes every table of the store (tests that start from nothing).
    #[doc(hidden)]
    pub fn drop_everything(&self) -> Result<()> {
        self.run(self.with(async |c| {
            sqlx::raw_sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
                .execute(&mut *c)
                .await?;
            Ok(())
        }))
    }

    /// Runs one SQL statement (tests that tamper with the store).
    #[doc(hidden)]
    pub fn execute(&self, sql: &str) -> Result<u64> {
        let sql = sql.to_owned();
        self.run(self.with(async move |c| {
            Ok(sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut *c)
                .await?
                .rows_affected())
        }))
    }

    /// One number a SQL query returns (tests and checks that read the store).
    #[doc(hidden)]
    pub fn scalar(&self, sql: &str) -> Result<i64> {
        let sql = sql.to_owned();
        self.run(self.with(async move |c| {
            Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_one(&mut *c)
                .await?)
        }))
    }
}

async fn apply_migrations(c: &mut PgConnection) -> R<()> {
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version BIGINT PRIMARY KEY,
             name TEXT NOT NULL,
             checksum TEXT NOT NULL,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         )",
    )
    .execute(&mut *c)
    .await?;
    let applied: Vec<(i64, String)> =
        sqlx::query_as("SELECT version, checksum FROM schema_migrations ORDER BY version")
            .fetch_all(&mut *c)
            .await?;
    if let Some((newest, _)) = applied.last()
        && *newest > PG_SCHEMA_VERSION
    {
        return Err(Error::Store(format!(
            "store schema version {newest}; this build reads versions 1 to {PG_SCHEMA_VERSION}"
        ))
        .into());
    }
    for &(version, name, sql) in MIGRATIONS {
        let checksum = keccak256(sql).to_string();
        match applied.iter().find(|(v, _)| *v == version) {
            Some((_, sum)) if *sum == checksum => continue,
            Some(_) => {
                return Err(Error::Store(format!(
                    "migration {version} ({name}) was applied with other contents than this \
                     build's"
                ))
                .into());
            }
            None => {}
        }
        let mut tx = c.begin().await?;
        sqlx::raw_sql(sql).execute(&mut *tx).await?;
        sqlx::query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)")
            .bind(version)
            .bind(name)
            .bind(checksum)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
    }
    Ok(())
}

impl Store for PgStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Postgres
    }

    fn describe(&self) -> String {
        self.url.clone()
    }

    fn busy(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.busy_ns.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn schema_version(&self) -> Result<u32> {
        self.run(self.with(async |c| {
            let v: Option<i64> = sqlx::query_scalar("SELECT max(version) FROM schema_migrations")
                .fetch_one(&mut *c)
                .await?;
            Ok(u32::try_from(v.unwrap_or(0)).unwrap_or(0))
        }))
    }

    fn append_audit(&self, at: u64, entry: AuditEntry) -> Result<AuditRecord> {
        self.run(self.transact(async |c| append(c, at, entry.clone()).await))
    }

    fn audit_records(&self, from: u64, limit: u64) -> Result<Vec<AuditRecord>> {
        self.run(self.with(async |c| {
            let rows: Vec<(i64, i32, i64, String, String, String)> = sqlx::query_as(
                "SELECT seq, version, at, entry, prev_hash, hash FROM audit
                 WHERE seq >= $1 ORDER BY seq LIMIT $2",
            )
            .bind(i(from))
            .bind(i(limit))
            .fetch_all(&mut *c)
            .await?;
            let mut out = Vec::with_capacity(rows.len());
            for (seq, version, at, entry, prev, hash) in rows {
                out.push(AuditRecord {
                    seq: u(seq),
                    version: u32::try_from(version).unwrap_or(0),
                    at: u(at),
                    entry: serde_json::from_str(&entry).map_err(|e| {
                        Error::Store(format!("audit record {seq} is not a valid entry: {e}"))
                    })?,
                    prev_hash: parse_b256(&prev)?,
                    hash: parse_b256(&hash)?,
                });
            }
            Ok(out)
        }))
    }

    fn audit_head(&self) -> Result<Option<(u64, B256)>> {
        self.run(self.with(async |c| {
            let (seq, hash): (i64, String) =
                sqlx::query_as("SELECT seq, hash FROM audit_head WHERE id = 1")
                    .fetch_one(&mut *c)
                    .await?;
            if seq == 0 {
                return Ok(None);
            }
            Ok(Some((u(seq), parse_b256(&hash)?)))
        }))
    }

    fn proposal(&self, id: &str) -> Result<Option<Proposal>> {
        self.run(self.with(async |c| {
            let body: Option<String> =
                sqlx::query_scalar("SELECT body FROM proposals WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *c)
                    .await?;
            Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
        }))
    }

    fn proposals_by_intent(&self, caller: &str, intent_hash: B256) -> Result<Vec<Proposal>> {
        self.run(self.with(async |c| {
            bodies(
                sqlx::query_scalar(
                    "SELECT body FROM proposals WHERE caller = $1 AND intent_hash = $2
                     ORDER BY created_at, seq",
                )
                .bind(caller)
                .bind(hex(intent_hash)),
                c,
            )
            .await
        }))
    }

    fn proposals(&self, caller: Option<&str>, limit: u64) -> Result<Vec<Proposal>> {
        self.run(self.with(async |c| {
            bodies(
                sqlx::query_scalar(
                    "SELECT body FROM proposals WHERE $1::text IS NULL OR caller = $1
                     ORDER BY created_at DESC, seq DESC LIMIT $2",
                )
                .bind(caller)
                .bind(i(limit)),
                c,
            )
            .await
        }))
    }

    fn proposals_in(&self, state: ProposalState) -> Result<Vec<Proposal>> {
        self.run(self.with(async |c| {
            bodies(
                sqlx::query_scalar(
                    "SELECT body FROM proposals WHERE state = $1 ORDER BY created_at, seq",
                )
                .bind(state.as_str()),
                c,
            )
            .await
        }))
    }

    fn proposals_of(
        &self,
        tenants: &[String],
        caller: Option<&str>,
        state: Option<ProposalState>,
        limit: u64,
    ) -> Result<Vec<Proposal>> {
        self.run(self.with(async |c| {
            bodies(
                sqlx::query_scalar(
                    "SELECT body FROM proposals
                     WHERE tenant = ANY($1) AND ($2::text IS NULL OR caller = $2)
                       AND ($3::text IS NULL OR state = $3)
                     ORDER BY created_at DESC, seq DESC LIMIT $4",
                )
                .bind(tenants.to_vec())
                .bind(caller)
                .bind(state.map(ProposalState::as_str))
                .bind(i(limit)),
                c,
            )
            .await
        }))
    }

    fn proposals_by_identity(
        &self,
        tenant: &str,
        identity: B256,
        since: u64,
    ) -> Result<Vec<Proposal>> {
        self.run(self.with(async |c| {
            bodies(
                sqlx::query_scalar(
                    "SELECT body FROM proposals
                     WHERE tenant = $1 AND identity = $2 AND created_at >= $3
                     ORDER BY created_at, seq",
                )
                .bind(tenant)
                .bind(hex(identity))
                .bind(i(since)),
                c,
            )
            .await
        }))
    }

    fn orphaned(&self, state: ProposalState, instance: &str) -> Result<Vec<Proposal>> {
        self.run(self.with(async |c| {
            let now = now_ms(c).await?;
            bodies(
                sqlx::query_scalar(
                    "SELECT body FROM proposals p WHERE state = $1
                       AND (owner IS NULL OR owner = $2 OR NOT EXISTS (
                            SELECT 1 FROM instances i
                            WHERE i.id = p.owner AND i.lease_until > $3))
                     ORDER BY created_at, seq",
                )
                .bind(state.as_str())
                .bind(instance)
                .bind(now),
                c,
            )
            .await
        }))
    }

    fn confirmation(&self, proposal_id: &str) -> Result<Option<Confirmation>> {
        self.run(self.with(async |c| {
            let body: Option<String> =
                sqlx::query_scalar("SELECT body FROM confirmations WHERE proposal_id = $1")
                    .bind(proposal_id)
                    .fetch_optional(&mut *c)
                    .await?;
            Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
        }))
    }

    fn live_reservation(
        &self,
        account: Address,
        lane: u32,
        sequence: u64,
    ) -> Result<Option<Reservation>> {
        self.run(self.with(async |c| {
            Ok(read_reservation(c, account, lane, sequence)
                .await?
                .filter(|r| r.state != ReservationState::Dead))
        }))
    }

    fn live_reservations(&self) -> Result<Vec<Reservation>> {
        self.run(self.with(async |c| {
            let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
                "SELECT {RESERVATION} FROM reservations WHERE state <> 'dead'
                 ORDER BY account, lane, sequence"
            )))
            .fetch_all(&mut *c)
            .await?;
            rows.iter().map(reservation).collect()
        }))
    }

    fn txs(&self, proposal_id: &str) -> Result<Vec<SentTx>> {
        self.run(self.with(async |c| {
            let rows: Vec<TxRow> = sqlx::query_as(
                "SELECT tx_hash, raw, sender, nonce, at FROM transactions
                     WHERE proposal_id = $1 ORDER BY id",
            )
            .bind(proposal_id)
            .fetch_all(&mut *c)
            .await?;
            let mut out = Vec::with_capacity(rows.len());
            for (hash, raw, sender, nonce, at) in rows {
                out.push(SentTx {
                    tx_hash: parse_b256(&hash)?,
                    raw: raw
                        .map(|r| {
                            r.parse::<Bytes>()
                                .map_err(|e| Error::Store(format!("stored transaction: {e}")))
                        })
                        .transpose()?,
                    sender: sender.as_deref().map(parse_address).transpose()?,
                    nonce: nonce.map(u),
                    at: u(at),
                });
            }
            Ok(out)
        }))
    }

    fn setting(&self, key: &str) -> Result<Option<String>> {
        self.run(self.with(async |c| {
            Ok(
                sqlx::query_scalar("SELECT value FROM settings WHERE key = $1")
                    .bind(key)
                    .fetch_optional(&mut *c)
                    .await?,
            )
        }))
    }

    fn charged_since(&self, kind: &str, who: &str, since: u64) -> Result<U256> {
        self.run(self.with(async |c| charged(c, kind, who, since).await))
    }

    fn apply(&self, step: &Step) -> Result<Applied> {
        self.run(self.transact(async |c| {
            if let Some((p, from)) = &step.proposal {
                let ok = match from {
                    None => insert_proposal(c, p, step.owner.as_deref(), false).await?,
                    Some(from) => {
                        sqlx::query(
                            "UPDATE proposals SET state = $2, body = $3,
                                 owner = COALESCE($4, owner)
                             WHERE id = $1 AND state = $5",
                        )
                        .bind(&p.id)
                        .bind(p.state.as_str())
                        .bind(serde_json::to_string(p)?)
                        .bind(step.owner.as_deref())
                        .bind(from.as_str())
                        .execute(&mut *c)
                        .await?
                        .rows_affected()
                            == 1
                    }
                };
                if !ok {
                    return Ok(Applied::Conflict(state_of(c, &p.id).await?));
                }
            }
            let id = step.proposal.as_ref().map(|(p, _)| p.id.as_str());
            if let Some(conf) = &step.confirmation {
                sqlx::query(
                    "INSERT INTO confirmations (proposal_id, body) VALUES ($1, $2)
                     ON CONFLICT (proposal_id) DO UPDATE SET body = excluded.body",
                )
                .bind(&conf.proposal_id)
                .bind(serde_json::to_string(conf)?)
                .execute(&mut *c)
                .await?;
            }
            if let (Some((key, holder)), Some(id)) = (&step.link, id) {
                link(c, *key, holder, id).await?;
            }
            if let (Some((account, lane, sequence)), Some(id)) = (step.dead_reservation, id) {
                sqlx::query(
                    "UPDATE reservations SET state = 'dead'
                     WHERE account = $1 AND lane = $2 AND sequence = $3 AND proposal_id = $4",
                )
                .bind(account.to_string())
                .bind(i64::from(lane))
                .bind(i(sequence))
                .bind(id)
                .execute(&mut *c)
                .await?;
            }
            if let Some((key, value)) = &step.setting {
                sqlx::query(
                    "INSERT INTO settings (key, value) VALUES ($1, $2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                )
                .bind(key)
                .bind(value)
                .execute(&mut *c)
                .await?;
            }
            if let Some(id) = id {
                if step.uncharge {
                    sqlx::query("DELETE FROM ledger WHERE proposal_id = $1")
                        .bind(id)
                        .execute(&mut *c)
                        .await?;
                }
                charge_all(c, id, step.at, &step.charges).await?;
            }
            for entry in &step.audit {
                append(c, step.at, entry.clone()).await?;
            }
            Ok(Applied::Done)
        }))
    }

    fn put_proposal(&self, p: &Proposal) -> Result<()> {
        self.run(self.with(async |c| insert_proposal(c, p, None, true).await.map(|_| ())))
    }

    fn idempotency_begin(&self, claim: &IdemClaim, instance: &str) -> Result<IdemBegin> {
        self.run(self.transact(async |c| {
            // The grant's claims one at a time: at READ COMMITTED two new keys counted at once
            // would each miss the other's uncommitted row and both fit a last free place.
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(charge_key("idempotency", &claim.grant))
                .execute(&mut *c)
                .await?;
            sqlx::query("DELETE FROM idempotency WHERE grant_id = $1 AND expires_at <= $2")
                .bind(&claim.grant)
                .bind(i(claim.now))
                .execute(&mut *c)
                .await?;
            let now = now_ms(c).await?;
            // The row exists (a new claim, or the one already there), then it is locked: a
            // second delivery on another instance waits here for the first's decision.
            let fresh = sqlx::query(
                "INSERT INTO idempotency (key, at, grant_id, request_hash, expires_at, instance,
                     claimed_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO NOTHING",
            )
            .bind(hex(claim.key))
            .bind(i(claim.now))
            .bind(&claim.grant)
            .bind(hex(claim.request_hash))
            .bind(i(claim.expires_at))
            .bind(instance)
            .bind(now)
            .execute(&mut *c)
            .await?
            .rows_affected()
                == 1;
            if fresh {
                // Claimed: within the grant's capacity (this one counted)? Its expired records
                // were deleted above, so the kept count is the count of its live ones.
                let held: i64 =
                    sqlx::query_scalar("SELECT held FROM idempotency_held WHERE grant_id = $1")
                        .bind(&claim.grant)
                        .fetch_one(&mut *c)
                        .await?;
                if u(held) > claim.capacity {
                    sqlx::query("DELETE FROM idempotency WHERE key = $1")
                        .bind(hex(claim.key))
                        .execute(&mut *c)
                        .await?;
                    return Ok(IdemBegin::Full);
                }
                return Ok(IdemBegin::Fresh);
            }
            let row = sqlx::query(
                "SELECT status, body, request_hash, proposal_id, released, expires_at, instance
                 FROM idempotency WHERE key = $1 FOR UPDATE",
            )
            .bind(hex(claim.key))
            .fetch_one(&mut *c)
            .await?;
            let holder: Option<String> = row.try_get(6)?;
            let gone = match &holder {
                Some(h) if h != instance => {
                    let alive: Option<i32> = sqlx::query_scalar(
                        "SELECT 1 FROM instances WHERE id = $1 AND lease_until > $2",
                    )
                    .bind(h)
                    .bind(now)
                    .fetch_optional(&mut *c)
                    .await?;
                    alive.is_none()
                }
                _ => false,
            };
            let status: Option<i32> = row.try_get(0)?;
            let idem = IdemRow {
                status: status.and_then(|s| u16::try_from(s).ok()),
                body: row.try_get(1)?,
                request_hash: row.try_get(2)?,
                proposal_id: row.try_get(3)?,
                released: row.try_get::<bool, _>(4)? || gone,
                expires_at: u(row.try_get(5)?),
            };
            let claim_it = async |c: &mut PgConnection| -> R<IdemBegin> {
                sqlx::query(
                    "UPDATE idempotency SET at = $2, status = NULL, body = NULL, grant_id = $3,
                         request_hash = $4, proposal_id = NULL, released = FALSE,
                         expires_at = $5, instance = $6, claimed_ms = $7
                     WHERE key = $1",
                )
                .bind(hex(claim.key))
                .bind(i(claim.now))
                .bind(&claim.grant)
                .bind(hex(claim.request_hash))
                .bind(i(claim.expires_at))
                .bind(instance)
                .bind(now)
                .execute(&mut *c)
                .await?;
                Ok(IdemBegin::Fresh)
            };
            match idem_decide(Some(idem), claim) {
                IdemDecision::Answer(a) => Ok(a),
                IdemDecision::Claim => claim_it(c).await,
                IdemDecision::New => {
                    // Expired for this claim's clock but not deleted (another grant's row
                    // under the same key cannot be: keys are scoped to their grant).
                    let held: i64 = sqlx::query_scalar(
                        "SELECT count(*) FROM idempotency
                         WHERE grant_id = $1 AND expires_at > $2 AND key <> $3",
                    )
                    .bind(&claim.grant)
                    .bind(i(claim.now))
                    .bind(hex(claim.key))
                    .fetch_one(&mut *c)
                    .await?;
                    if u(held) >= claim.capacity {
                        Ok(IdemBegin::Full)
                    } else {
                        claim_it(c).await
                    }
                }
            }
        }))
    }

    fn idempotency_take(&self, key: B256, instance: &str) -> Result<bool> {
        self.run(self.with(async |c| {
            let n = sqlx::query(
                "UPDATE idempotency d SET released = FALSE, instance = $2,
                     claimed_ms = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                 WHERE key = $1 AND status IS NULL AND (released OR instance IS NULL OR (
                     instance <> $2 AND NOT EXISTS (SELECT 1 FROM instances i
                         WHERE i.id = d.instance
                           AND i.lease_until > (extract(epoch FROM clock_timestamp()) * 1000)::bigint)))",
            )
            .bind(hex(key))
            .bind(instance)
            .execute(&mut *c)
            .await?
            .rows_affected();
            Ok(n == 1)
        }))
    }

    fn idempotency_finish(
        &self,
        key: B256,
        instance: &str,
        response: &StoredResponse,
    ) -> Result<()> {
        self.run(self.with(async |c| {
            sqlx::query(
                "UPDATE idempotency SET status = $2, body = $3, released = FALSE
                 WHERE key = $1 AND (instance IS NULL OR instance = $4)",
            )
            .bind(hex(key))
            .bind(i32::from(response.status))
            .bind(&response.body)
            .bind(instance)
            .execute(&mut *c)
            .await?;
            Ok(())
        }))
    }

    fn idempotency_abandon(&self, key: B256, instance: &str) -> Result<()> {
        self.run(self.transact(async |c| {
            sqlx::query(
                "DELETE FROM idempotency
                 WHERE key = $1 AND proposal_id IS NULL AND (instance IS NULL OR instance = $2)",
            )
            .bind(hex(key))
            .bind(instance)
            .execute(&mut *c)
            .await?;
            sqlx::query(
                "UPDATE idempotency SET released = TRUE
                 WHERE key = $1 AND status IS NULL AND (instance IS NULL OR instance = $2)",
            )
            .bind(hex(key))
            .bind(instance)
            .execute(&mut *c)
            .await?;
            Ok(())
        }))
    }

    fn idempotency_link(&self, key: B256, instance: &str, proposal_id: &str) -> Result<()> {
        self.run(self.with(async |c| link(c, key, instance, proposal_id).await))
    }

    fn release_in_flight(&self, instance: &str) -> Result<u64> {
        self.run(self.transact(async |c| {
            let now = now_ms(c).await?;
            // Only the claims of instances that are gone: the others' handlers may still run.
            let n = sqlx::query(
                "UPDATE idempotency d SET released = TRUE
                 WHERE status IS NULL AND NOT released AND (instance IS NULL OR (
                     instance <> $1 AND NOT EXISTS (
                         SELECT 1 FROM instances i WHERE i.id = d.instance AND i.lease_until > $2)))",
            )
            .bind(instance)
            .bind(now)
            .execute(&mut *c)
            .await?
            .rows_affected();
            Ok(n)
        }))
    }

    fn release_claims(&self, instance: &str, keys: &[B256]) -> Result<()> {
        let keys: Vec<String> = keys.iter().map(|k| hex(*k)).collect();
        self.run(self.with(async |c| {
            sqlx::query(
                "UPDATE idempotency SET released = TRUE
                 WHERE instance = $1 AND status IS NULL AND key = ANY($2)",
            )
            .bind(instance)
            .bind(&keys)
            .execute(&mut *c)
            .await?;
            Ok(())
        }))
    }

    fn reserve_nonce(&self, q: &NonceRequest<'_>) -> Result<NonceOutcome> {
        self.run(self.transact(async |c| {
            let now = now_ms(c).await?;
            let until = now.saturating_add(q.lease.ttl_ms());
            let account = q.account.to_string();
            let mut out = NonceOutcome::default();
            for &(lane, next) in q.lanes {
                let lane_i = i64::from(lane);
                sqlx::query("SELECT pg_advisory_xact_lock($1)")
                    .bind(lane_key(q.account, lane))
                    .execute(&mut *c)
                    .await?;
                let lease: Option<(String, i64, i64)> = sqlx::query_as(
                    "SELECT holder, fence, lease_until FROM lane_leases
                     WHERE account = $1 AND lane = $2 FOR UPDATE",
                )
                .bind(&account)
                .bind(lane_i)
                .fetch_optional(&mut *c)
                .await?;
                let fence = match lease {
                    None => {
                        sqlx::query(
                            "INSERT INTO lane_leases (account, lane, holder, fence, lease_until,
                                 used_ms) VALUES ($1, $2, $3, 1, $4, $5)",
                        )
                        .bind(&account)
                        .bind(lane_i)
                        .bind(q.instance)
                        .bind(until)
                        .bind(now)
                        .execute(&mut *c)
                        .await?;
                        1
                    }
                    Some((holder, fence, _)) if holder == q.instance => {
                        sqlx::query(
                            "UPDATE lane_leases SET lease_until = $3, used_ms = $4
                             WHERE account = $1 AND lane = $2",
                        )
                        .bind(&account)
                        .bind(lane_i)
                        .bind(until)
                        .bind(now)
                        .execute(&mut *c)
                        .await?;
                        fence
                    }
                    Some((holder, _, lease_until)) if !holder.is_empty() && lease_until > now => {
                        continue;
                    }
                    Some((holder, fence, _)) => {
                        let fence = fence + 1;
                        sqlx::query(
                            "UPDATE lane_leases SET holder = $3, fence = $4, lease_until = $5,
                                 used_ms = $6 WHERE account = $1 AND lane = $2",
                        )
                        .bind(&account)
                        .bind(lane_i)
                        .bind(q.instance)
                        .bind(fence)
                        .bind(until)
                        .bind(now)
                        .execute(&mut *c)
                        .await?;
                        if !holder.is_empty() {
                            let entry = own_entry(
                                AuditKind::Lease,
                                None,
                                "LANE_TAKEN_OVER",
                                serde_json::json!({
                                    "account": q.account, "lane": lane, "from": holder,
                                    "to": q.instance, "fence": fence,
                                }),
                            );
                            append(c, q.at, entry).await?;
                            let pending: Vec<String> = sqlx::query_scalar(
                                "SELECT p.id FROM reservations r JOIN proposals p
                                   ON p.id = r.proposal_id
                                 WHERE r.account = $1 AND r.lane = $2 AND r.state = 'signed'
                                   AND p.state = ANY($3)",
                            )
                            .bind(&account)
                            .bind(lane_i)
                            .bind(UNSETTLED)
                            .fetch_all(&mut *c)
                            .await?;
                            if !pending.is_empty() {
                                out.reconcile.extend(pending);
                                continue;
                            }
                        }
                        fence
                    }
                };
                let held = read_reservation(c, q.account, lane, next).await?;
                if let Some(held) = &held {
                    if !holder_dead(held, q.chain_time) {
                        continue;
                    }
                    if held.state == ReservationState::Signed {
                        let settled = state_of(c, &held.proposal_id)
                            .await?
                            .is_none_or(|s| !s.is_unreconciled() && s != ProposalState::Confirmed);
                        if !settled {
                            out.reconcile.push(held.proposal_id.clone());
                            continue;
                        }
                        let entry = own_entry(
                            AuditKind::Reconcile,
                            Some(&held.proposal_id),
                            "SUPERSEDED",
                            serde_json::json!({
                                "account": q.account, "lane": lane, "sequence": next,
                                "digest": held.digest, "valid_until": held.valid_until,
                                "chain_time": q.chain_time, "by": q.proposal_id,
                            }),
                        );
                        append(c, q.at, entry).await?;
                    }
                    sqlx::query(
                        "INSERT INTO superseded (account, lane, sequence, proposal_id, state,
                             digest, valid_until, by_proposal, at)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    )
                    .bind(&account)
                    .bind(lane_i)
                    .bind(i(next))
                    .bind(&held.proposal_id)
                    .bind(held.state.as_str())
                    .bind(held.digest.map(hex))
                    .bind(held.valid_until.map(i))
                    .bind(q.proposal_id)
                    .bind(i(q.at))
                    .execute(&mut *c)
                    .await?;
                }
                sqlx::query(
                    "INSERT INTO reservations (account, lane, sequence, proposal_id, state, digest,
                         valid_until, holder, fence, at)
                     VALUES ($1, $2, $3, $4, 'reserved', NULL, NULL, $5, $6, $7)
                     ON CONFLICT (account, lane, sequence) DO UPDATE SET
                         proposal_id = excluded.proposal_id, state = 'reserved', digest = NULL,
                         valid_until = NULL, holder = excluded.holder, fence = excluded.fence,
                         at = excluded.at",
                )
                .bind(&account)
                .bind(lane_i)
                .bind(i(next))
                .bind(q.proposal_id)
                .bind(q.instance)
                .bind(fence)
                .bind(i(q.at))
                .execute(&mut *c)
                .await?;
                out.reserved = Some(Reservation {
                    account: q.account,
                    lane,
                    sequence: next,
                    proposal_id: q.proposal_id.to_owned(),
                    digest: None,
                    valid_until: None,
                    state: ReservationState::Reserved,
                    holder: Some(q.instance.to_owned()),
                    fence,
                });
                return Ok(out);
            }
            Ok(out)
        }))
    }

    fn release_nonce(&self, r: &Reservation) -> Result<()> {
        self.run(self.with(async |c| {
            sqlx::query(
                "UPDATE reservations SET state = 'dead'
                 WHERE account = $1 AND lane = $2 AND sequence = $3 AND proposal_id = $4
                   AND state = 'reserved'",
            )
            .bind(r.account.to_string())
            .bind(i64::from(r.lane))
            .bind(i(r.sequence))
            .bind(&r.proposal_id)
            .execute(&mut *c)
            .await?;
            Ok(())
        }))
    }

    fn retire_reservations(&self) -> Result<u64> {
        self.run(self.with(async |c| {
            Ok(
                sqlx::query("UPDATE reservations SET state = 'dead' WHERE state <> 'dead'")
                    .execute(&mut *c)
                    .await?
                    .rows_affected(),
            )
        }))
    }

    fn record_signature(&self, s: &SignatureStep<'_>) -> Result<()> {
        self.run(self.transact(async |c| {
            let r = s.reservation;
            let p = s.proposal;
            let account = r.account.to_string();
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(lane_key(r.account, r.lane))
                .execute(&mut *c)
                .await?;
            let halt: Option<String> =
                sqlx::query_scalar("SELECT value FROM settings WHERE key = 'halt' FOR SHARE")
                    .fetch_optional(&mut *c)
                    .await?;
            if let Some(json) = halt {
                let halt: Halt = serde_json::from_str(&json)?;
                if halt.halted {
                    return Err(Error::Halted(halt.reason).into());
                }
            }
            let lease: Option<(String, i64)> = sqlx::query_as(
                "SELECT holder, fence FROM lane_leases WHERE account = $1 AND lane = $2 FOR UPDATE",
            )
            .bind(&account)
            .bind(i64::from(r.lane))
            .fetch_optional(&mut *c)
            .await?;
            if lease.as_ref() != Some(&(s.instance.to_owned(), r.fence)) {
                return Err(Error::Fenced(format!(
                    "lane {} of {} is no longer this instance's under fencing token {}",
                    r.lane, r.account, r.fence
                ))
                .into());
            }
            let now = now_ms(c).await?;
            sqlx::query(
                "UPDATE lane_leases SET lease_until = $3, used_ms = $4
                 WHERE account = $1 AND lane = $2",
            )
            .bind(&account)
            .bind(i64::from(r.lane))
            .bind(now.saturating_add(s.lease.ttl_ms()))
            .bind(now)
            .execute(&mut *c)
            .await?;
            let digest = r
                .digest
                .ok_or_else(|| Error::Store("no digest to record".into()))?;
            match read_reservation(c, r.account, r.lane, r.sequence).await? {
                Some(h) if h.state == ReservationState::Signed && h.digest == Some(digest) => {
                    if state_of(c, &p.id).await? == Some(ProposalState::Signed) {
                        return Ok(());
                    }
                }
                Some(h)
                    if h.state == ReservationState::Reserved
                        && h.proposal_id == p.id
                        && h.fence == r.fence => {}
                _ => {
                    return Err(Error::SequenceTaken {
                        lane: r.lane,
                        sequence: r.sequence,
                    }
                    .into());
                }
            }
            sqlx::query(
                "UPDATE reservations SET state = 'signed', digest = $4, valid_until = $5
                 WHERE account = $1 AND lane = $2 AND sequence = $3",
            )
            .bind(&account)
            .bind(i64::from(r.lane))
            .bind(i(r.sequence))
            .bind(hex(digest))
            .bind(r.valid_until.map(i))
            .execute(&mut *c)
            .await?;
            charge_all(c, &p.id, s.at, &s.charges).await?;
            let n = sqlx::query(
                "UPDATE proposals SET state = $2, body = $3 WHERE id = $1 AND state = 'confirmed'",
            )
            .bind(&p.id)
            .bind(p.state.as_str())
            .bind(serde_json::to_string(p)?)
            .execute(&mut *c)
            .await?
            .rows_affected();
            if n != 1 {
                let state = state_of(c, &p.id).await?;
                return Err(Error::NotConfirmable {
                    id: p.id.clone(),
                    state: state.map_or("unknown", |s| s.as_str()).to_owned(),
                }
                .into());
            }
            append(c, s.at, s.audit.clone()).await?;
            Ok(())
        }))
    }

    fn record_tx(&self, proposal_id: &str, t: &SentTx, instance: Option<&Instance>) -> Result<()> {
        self.run(self.transact(async |c| {
            if let Some(me) = instance {
                if let Some(sender) = t.sender {
                    let lease: Option<(String, i64)> = sqlx::query_as(
                        "SELECT holder, fence FROM relayer_leases WHERE address = $1 FOR SHARE",
                    )
                    .bind(sender.to_string())
                    .fetch_optional(&mut *c)
                    .await?;
                    if lease != Some((me.id.clone(), me.relayer_fence)) {
                        return Err(Error::Fenced(format!(
                            "relayer {sender} is no longer this instance's: nothing was sent"
                        ))
                        .into());
                    }
                }
                let state: Option<String> =
                    sqlx::query_scalar("SELECT state FROM proposals WHERE id = $1 FOR SHARE")
                        .bind(proposal_id)
                        .fetch_optional(&mut *c)
                        .await?;
                match state.as_deref().and_then(ProposalState::parse) {
                    Some(ProposalState::Submitted | ProposalState::Uncertain) => {}
                    state => {
                        return Err(Error::NotConfirmable {
                            id: proposal_id.to_owned(),
                            state: state.map_or("unknown", |s| s.as_str()).to_owned(),
                        }
                        .into());
                    }
                }
            }
            sqlx::query(
                // Once: a retry after a commit whose answer was lost records nothing more.
                "INSERT INTO transactions (proposal_id, tx_hash, at, raw, sender, nonce)
                 SELECT $1, $2, $3, $4, $5, $6
                 WHERE NOT EXISTS
                     (SELECT 1 FROM transactions WHERE proposal_id = $1 AND tx_hash = $2)",
            )
            .bind(proposal_id)
            .bind(hex(t.tx_hash))
            .bind(i(t.at))
            .bind(t.raw.as_ref().map(|r| r.to_string()))
            .bind(t.sender.map(|a| a.to_string()))
            .bind(t.nonce.map(i))
            .execute(&mut *c)
            .await?;
            Ok(())
        }))
    }

    fn count_request(&self, grant: &str, window: u64, limit: u32) -> Result<bool> {
        self.run(self.with(async |c| {
            // Counted only below the limit: the row comes back iff it was.
            let counted: Option<i32> = sqlx::query_scalar(
                "INSERT INTO rate_windows (grant_id, window_start, count) VALUES ($1, $2, 1)
                 ON CONFLICT (grant_id, window_start) DO UPDATE
                     SET count = rate_windows.count + 1 WHERE rate_windows.count < $3
                 RETURNING count",
            )
            .bind(grant)
            .bind(i(window))
            .bind(i64::from(limit))
            .fetch_optional(&mut *c)
            .await?;
            // The first request of a window clears the grant's old windows.
            if counted == Some(1) {
                sqlx::query("DELETE FROM rate_windows WHERE grant_id = $1 AND window_start < $2")
                    .bind(grant)
                    .bind(i(window.saturating_sub(120)))
                    .execute(&mut *c)
                    .await?;
            }
            Ok(counted.is_some() && limit > 0)
        }))
    }

    fn register_instance(
        &self,
        name: &str,
        relayer: Option<Address>,
        lease: LeaseConfig,
    ) -> Result<Instance> {
        let id = fresh_id();
        self.run(self.transact(async |c| {
            let now = now_ms(c).await?;
            let until = now.saturating_add(lease.ttl_ms());
            sqlx::query(
                "INSERT INTO instances (id, name, relayer, started_ms, lease_until)
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&id)
            .bind(name)
            .bind(relayer.map(|r| r.to_string()))
            .bind(now)
            .bind(until)
            .execute(&mut *c)
            .await?;
            let mut relayer_fence = 0;
            if let Some(address) = relayer {
                let held: Option<(String, i64, i64)> = sqlx::query_as(
                    "SELECT holder, fence, lease_until FROM relayer_leases WHERE address = $1
                     FOR UPDATE",
                )
                .bind(address.to_string())
                .fetch_optional(&mut *c)
                .await?;
                if let Some((holder, _, until)) = &held
                    && !holder.is_empty()
                    && *until > now
                {
                    let name: Option<String> =
                        sqlx::query_scalar("SELECT name FROM instances WHERE id = $1")
                            .bind(holder)
                            .fetch_optional(&mut *c)
                            .await?;
                    return Err(Error::RelayerInUse {
                        relayer: address,
                        holder: name.unwrap_or_else(|| holder.clone()),
                        for_ms: u(*until - now),
                    }
                    .into());
                }
                relayer_fence = held.map_or(0, |(_, f, _)| f) + 1;
                sqlx::query(
                    "INSERT INTO relayer_leases (address, holder, fence, lease_until)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (address) DO UPDATE SET holder = excluded.holder,
                         fence = excluded.fence, lease_until = excluded.lease_until",
                )
                .bind(address.to_string())
                .bind(&id)
                .bind(relayer_fence)
                .bind(until)
                .execute(&mut *c)
                .await?;
            }
            Ok(Instance {
                id: id.clone(),
                name: name.to_owned(),
                relayer,
                relayer_fence,
            })
        }))
    }

    fn heartbeat(&self, me: &Instance, lease: LeaseConfig, in_flight: &[B256]) -> Result<()> {
        let held: Vec<String> = in_flight.iter().map(|k| hex(*k)).collect();
        self.run(self.transact(async |c| {
            let now = now_ms(c).await?;
            let until = now.saturating_add(lease.ttl_ms());
            sqlx::query("UPDATE instances SET lease_until = $2 WHERE id = $1")
                .bind(&me.id)
                .bind(until)
                .execute(&mut *c)
                .await?;
            if let Some(address) = me.relayer {
                let n = sqlx::query(
                    "UPDATE relayer_leases SET lease_until = $4
                     WHERE address = $1 AND holder = $2 AND fence = $3",
                )
                .bind(address.to_string())
                .bind(&me.id)
                .bind(me.relayer_fence)
                .bind(until)
                .execute(&mut *c)
                .await?
                .rows_affected();
                if n != 1 {
                    return Err(Error::Fenced(format!(
                        "relayer {address} was taken over by another instance"
                    ))
                    .into());
                }
            }
            sqlx::query("UPDATE lane_leases SET lease_until = $2 WHERE holder = $1")
                .bind(&me.id)
                .bind(until)
                .execute(&mut *c)
                .await?;
            sqlx::query(
                "UPDATE lane_leases l SET holder = '', lease_until = 0
                 WHERE holder = $1 AND used_ms < $2 AND NOT EXISTS (
                     SELECT 1 FROM reservations r JOIN proposals p ON p.id = r.proposal_id
                     WHERE r.account = l.account AND r.lane = l.lane AND r.state <> 'dead'
                       AND p.state = ANY($3))",
            )
            .bind(&me.id)
            .bind(now.saturating_sub(lease.idle_ms()))
            .bind(UNSETTLED)
            .execute(&mut *c)
            .await?;
            sqlx::query(
                "UPDATE idempotency SET released = TRUE
                 WHERE instance = $1 AND status IS NULL AND NOT released AND claimed_ms < $2
                   AND NOT (key = ANY($3))",
            )
            .bind(&me.id)
            .bind(now.saturating_sub(super::sqlite::CLAIM_GRACE_MS))
            .bind(&held)
            .execute(&mut *c)
            .await?;
            Ok(())
        }))
    }

    fn retire_instance(&self, me: &Instance) -> Result<()> {
        self.run(self.transact(async |c| {
            sqlx::query("UPDATE lane_leases SET holder = '', lease_until = 0 WHERE holder = $1")
                .bind(&me.id)
                .execute(&mut *c)
                .await?;
            sqlx::query("UPDATE relayer_leases SET holder = '', lease_until = 0 WHERE holder = $1")
                .bind(&me.id)
                .execute(&mut *c)
                .await?;
            sqlx::query("UPDATE instances SET lease_until = 0 WHERE id = $1")
                .bind(&me.id)
                .execute(&mut *c)
                .await?;
            Ok(())
        }))
    }

    fn open_session(
        &self,
        id: &str,
        grant: &str,
        instance: &str,
        now: u64,
        cap: u32,
        idle_secs: u64,
    ) -> Result<bool> {
        self.run(self.transact(async |c| {
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(charge_key("mcp-sessions", grant))
                .execute(&mut *c)
                .await?;
            sqlx::query("DELETE FROM mcp_sessions WHERE grant_id = $1 AND last_seen < $2")
                .bind(grant)
                .bind(i(now.saturating_sub(idle_secs)))
                .execute(&mut *c)
                .await?;
            let held: i64 =
                sqlx::query_scalar("SELECT count(*) FROM mcp_sessions WHERE grant_id = $1")
                    .bind(grant)
                    .fetch_one(&mut *c)
                    .await?;
            if held >= i64::from(cap) {
                return Ok(false);
            }
            sqlx::query(
                "INSERT INTO mcp_sessions (id, grant_id, instance, created_at, last_seen)
                 VALUES ($1, $2, $3, $4, $4)
                 ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen",
            )
            .bind(id)
            .bind(grant)
            .bind(instance)
            .bind(i(now))
            .execute(&mut *c)
            .await?;
            Ok(true)
        }))
    }

    fn touch_session(&self, id: &str, now: u64, idle_secs: u64) -> Result<bool> {
        self.run(self.with(async |c| {
            let n = sqlx::query(
                "UPDATE mcp_sessions SET last_seen = $2 WHERE id = $1 AND last_seen >= $3",
            )
            .bind(id)
            .bind(i(now))
            .bind(i(now.saturating_sub(idle_secs)))
            .execute(&mut *c)
            .await?
            .rows_affected();
            if n == 0 {
                sqlx::query("DELETE FROM mcp_sessions WHERE id = $1")
                    .bind(id)
                    .execute(&mut *c)
                    .await?;
            }
            Ok(n == 1)
        }))
    }

    fn close_session(&self, id: &str) -> Result<()> {
        self.run(self.with(async |c| {
            sqlx::query("DELETE FROM mcp_sessions WHERE id = $1")
                .bind(id)
                .execute(&mut *c)
                .await?;
            Ok(())
        }))
    }

    fn publish(&self, kind: &str, body: &str, at: u64) -> Result<u64> {
        self.run(self.transact(async |c| {
            let current: Option<(i64, String)> =
                sqlx::query_as("SELECT version, body FROM config WHERE kind = $1 FOR UPDATE")
                    .bind(kind)
                    .fetch_optional(&mut *c)
                    .await?;
            match current {
                Some((version, same)) if same == body => Ok(u(version)),
                current => {
                    let version = current.map_or(1, |(v, _)| v + 1);
                    sqlx::query(
                        "INSERT INTO config (kind, version, body, at) VALUES ($1, $2, $3, $4)
                         ON CONFLICT (kind) DO UPDATE SET version = excluded.version,
                             body = excluded.body, at = excluded.at",
                    )
                    .bind(kind)
                    .bind(version)
                    .bind(body)
                    .bind(i(at))
                    .execute(&mut *c)
                    .await?;
                    Ok(u(version))
                }
            }
        }))
    }

    fn published(&self, kind: &str) -> Result<Option<(u64, String)>> {
        self.run(self.with(async |c| {
            let row: Option<(i64, String)> =
                sqlx::query_as("SELECT version, body FROM config WHERE kind = $1")
                    .bind(kind)
                    .fetch_optional(&mut *c)
                    .await?;
            Ok(row.map(|(v, b)| (u(v), b)))
        }))
    }
}
