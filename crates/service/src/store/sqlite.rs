//! The embedded store: SQLite, one file in WAL mode (or in memory), for one instance.
//!
//! One process at a time: the file is locked (`flock`) while a store holds it open, so a
//! second `pace serve` on the same file is refused at start instead of colliding with the
//! first on its lanes and its relayer's nonces (several instances share a PostgreSQL store).
//! Every write step is one `BEGIN IMMEDIATE` transaction.

use super::{
    Applied, Confirmation, IdemBegin, IdemClaim, Instance, LeaseConfig, NonceOutcome, NonceRequest,
    Proposal, ProposalState, Reservation, ReservationState, SentTx, SignatureStep, Step, Store,
    StoreKind, StoredResponse,
    steps::{IdemDecision, IdemRow, holder_dead, host_ms, idem_decide, own_entry},
};
use crate::{
    Error, Result,
    audit::{AUDIT_VERSION, AuditEntry, AuditKind, AuditRecord},
    identity::intent_identity,
};
use alloy_primitives::{Address, B256, Bytes, U256};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use std::{
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard},
};

mod schema;

pub use schema::SCHEMA_VERSION;

/// [`Store`] on SQLite.
#[derive(Debug)]
pub struct SqliteStore {
    // Declared before `lock`: the connection closes before the file lock is given up.
    conn: Mutex<Connection>,
    path: Option<PathBuf>,
    _lock: Option<std::fs::File>,
    busy_ns: std::sync::atomic::AtomicU64,
}

/// The connection, held: the time it is held counts as the store's.
pub struct Held<'a> {
    conn: MutexGuard<'a, Connection>,
    since: std::time::Instant,
    busy_ns: &'a std::sync::atomic::AtomicU64,
}

impl std::ops::Deref for Held<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let ns = u64::try_from(self.since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.busy_ns
            .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the store in the file at `path`, in WAL mode, and locks it
    /// for this process.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open(path)?;
        let lock = std::fs::File::open(path)
            .map_err(|e| Error::Store(format!("{}: {e}", path.display())))?;
        lock.try_lock().map_err(|_| {
            Error::Config(format!(
                "{}: another pace serve holds this store; a SQLite store serves one instance \
                 (several instances share a PostgreSQL store: --store postgres://…)",
                path.display()
            ))
        })?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Store(format!(
                "{}: cannot switch to WAL (journal mode {mode})",
                path.display()
            )));
        }
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000;")?;
        Self::init(conn, Some(path.to_owned()), Some(lock))
    }

    /// Opens the store at `path` to read it (`pace audit verify`), beside the instance that may
    /// be running on it: not locked, not migrated.
    pub fn open_read_only(path: &Path) -> Result<Self> {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        conn.execute_batch("PRAGMA busy_timeout=5000;")?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(Error::Store(format!(
                "store schema version {version}; this build reads versions 1 to {SCHEMA_VERSION}"
            )));
        }
        Ok(Self {
            conn: Mutex::new(conn),
            path: Some(path.to_owned()),
            _lock: None,
            busy_ns: Default::default(),
        })
    }

    /// A store in memory (lost on exit).
    pub fn in_memory() -> Result<Self> {
        // On SQLite's `memdb` file system (private: the name has no leading slash), not as a
        // `:memory:` database: there, every B-tree rebalance moves a page through the locking
        // page's number, so each commit scans the whole page cache, a cost that grows with the
        // store. The rollback journal is kept in memory too.
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE
            | rusqlite::OpenFlags::SQLITE_OPEN_CREATE
            | rusqlite::OpenFlags::SQLITE_OPEN_URI
            | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags("file:pace-store?vfs=memdb", flags)?;
        let mode: String = conn.query_row("PRAGMA journal_mode=MEMORY", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("memory") {
            return Err(Error::Store(format!(
                "an in-memory store cannot keep its journal in memory (journal mode {mode})"
            )));
        }
        Self::init(conn, None, None)
    }

    fn init(conn: Connection, path: Option<PathBuf>, lock: Option<std::fs::File>) -> Result<Self> {
        schema::migrate(&conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
            path,
            _lock: lock,
            busy_ns: Default::default(),
        })
    }

    /// The connection (for tests that tamper with the file, too).
    pub fn connection(&self) -> Held<'_> {
        let since = std::time::Instant::now();
        Held {
            conn: self.conn.lock().unwrap_or_else(|p| p.into_inner()),
            since,
            busy_ns: &self.busy_ns,
        }
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction, committed when it returns `Ok`.
    fn write<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.connection();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }
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

fn proposal_row(body: &str) -> Result<Proposal> {
    Ok(serde_json::from_str(body)?)
}

fn bodies(conn: &Connection, sql: &str, args: impl rusqlite::Params) -> Result<Vec<Proposal>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map(args, |r| r.get::<_, String>(0))?;
    rows.map(|b| proposal_row(&b?)).collect()
}

/// The columns of a reservation row, in [`reservation`]'s order.
const RESERVATION: &str =
    "account, lane, sequence, proposal_id, state, digest, valid_until, holder, fence";

fn reservation(r: &rusqlite::Row<'_>) -> rusqlite::Result<[Option<String>; 9]> {
    let text = |i: usize| -> rusqlite::Result<Option<String>> {
        Ok(match r.get_ref(i)? {
            rusqlite::types::ValueRef::Null => None,
            rusqlite::types::ValueRef::Integer(n) => Some(n.to_string()),
            rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
            other => Some(format!("{other:?}")),
        })
    };
    Ok([
        text(0)?,
        text(1)?,
        text(2)?,
        text(3)?,
        text(4)?,
        text(5)?,
        text(6)?,
        text(7)?,
        text(8)?,
    ])
}

fn parse_reservation(cols: [Option<String>; 9]) -> Result<Reservation> {
    let bad = |what: &str| Error::Store(format!("stored reservation: bad {what}"));
    let [
        account,
        lane,
        sequence,
        proposal_id,
        state,
        digest,
        valid_until,
        holder,
        fence,
    ] = cols;
    let num = |v: Option<String>, what: &str| -> Result<u64> {
        v.and_then(|v| v.parse().ok()).ok_or_else(|| bad(what))
    };
    Ok(Reservation {
        account: parse_address(&account.ok_or_else(|| bad("account"))?)?,
        lane: u32::try_from(num(lane, "lane")?).map_err(|_| bad("lane"))?,
        sequence: num(sequence, "sequence")?,
        proposal_id: proposal_id.ok_or_else(|| bad("proposal"))?,
        state: state
            .as_deref()
            .and_then(ReservationState::parse)
            .ok_or_else(|| bad("state"))?,
        digest: digest.as_deref().map(parse_b256).transpose()?,
        valid_until: valid_until
            .map(|v| v.parse().map_err(|_| bad("window")))
            .transpose()?,
        holder: holder.filter(|h| !h.is_empty()),
        fence: fence.and_then(|f| f.parse().ok()).unwrap_or(0),
    })
}

fn read_reservation(
    conn: &Connection,
    account: Address,
    lane: u32,
    sequence: u64,
) -> Result<Option<Reservation>> {
    let row = conn
        .query_row(
            &format!(
                "SELECT {RESERVATION} FROM reservations
                 WHERE account = ?1 AND lane = ?2 AND sequence = ?3"
            ),
            params![account.to_string(), lane, sequence],
            reservation,
        )
        .optional()?;
    row.map(parse_reservation).transpose()
}

/// Appends `entry` to the chain inside `tx`.
fn append(tx: &Transaction<'_>, at: u64, entry: AuditEntry) -> Result<AuditRecord> {
    let head: Option<(u64, String)> = tx
        .query_row("SELECT seq, hash FROM audit_head WHERE id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let (seq, prev) = match head {
        Some((seq, hash)) => (seq + 1, parse_b256(&hash)?),
        None => (1, B256::ZERO),
    };
    let rec = AuditRecord::chain(seq, at, entry, prev);
    tx.execute(
        "INSERT INTO audit (seq, version, at, entry, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            rec.seq,
            rec.version,
            rec.at,
            serde_json::to_string(&rec.entry)?,
            hex(rec.prev_hash),
            hex(rec.hash)
        ],
    )?;
    tx.execute(
        "INSERT INTO audit_head (id, seq, hash) VALUES (1, ?1, ?2)
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
        params![rec.seq, hex(rec.hash)],
    )?;
    debug_assert_eq!(rec.version, AUDIT_VERSION);
    Ok(rec)
}

/// Links the claim on `key` to proposal `id` while `holder` still holds it (`IN_PROGRESS`
/// otherwise: another instance took it over and answers it).
fn link(tx: &Connection, key: B256, holder: &str, id: &str) -> Result<()> {
    let n = tx.execute(
        "UPDATE idempotency SET proposal_id = ?2
         WHERE key = ?1 AND (instance IS NULL OR instance = ?3)",
        params![hex(key), id, holder],
    )?;
    if n == 1 {
        Ok(())
    } else {
        Err(Error::InProgress)
    }
}

fn state_of(tx: &Connection, id: &str) -> Result<Option<ProposalState>> {
    let state: Option<String> = tx
        .query_row("SELECT state FROM proposals WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(state.as_deref().and_then(ProposalState::parse))
}

fn write_proposal(tx: &Connection, p: &Proposal, owner: Option<&str>) -> Result<usize> {
    Ok(tx.execute(
        "INSERT INTO proposals (id, caller, intent_hash, state, created_at, body, tenant, identity,
                                owner)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body,
             owner = COALESCE(excluded.owner, proposals.owner)",
        params![
            p.id,
            p.caller,
            hex(p.intent_hash),
            p.state.as_str(),
            p.created_at,
            serde_json::to_string(p)?,
            p.tenant,
            hex(intent_identity(&p.intent)),
            owner
        ],
    )?)
}

fn charged(tx: &Connection, kind: &str, who: &str, since: u64) -> Result<U256> {
    let mut stmt =
        tx.prepare("SELECT wei FROM ledger WHERE kind = ?1 AND who = ?2 AND at >= ?3")?;
    let rows = stmt.query_map(params![kind, who, since], |r| r.get::<_, String>(0))?;
    let mut sum = U256::ZERO;
    for wei in rows {
        let wei = wei?;
        let v = U256::from_str_radix(&wei, 10)
            .map_err(|e| Error::Store(format!("stored charge {wei:?}: {e}")))?;
        sum = sum.saturating_add(v);
    }
    Ok(sum)
}

/// Records the charges of `proposal_id` at `at`, each within its limit.
fn charge_all(
    tx: &Connection,
    proposal_id: &str,
    at: u64,
    charges: &[super::Charge],
) -> Result<()> {
    for c in charges {
        if let Some((since, limit)) = c.limit {
            let spent = charged(tx, &c.kind, &c.who, since)?;
            if spent.saturating_add(c.wei) > limit {
                return Err(Error::ChargeOverLimit {
                    kind: c.kind.clone(),
                    who: c.who.clone(),
                    spent,
                });
            }
        }
        tx.execute(
            "INSERT INTO ledger (proposal_id, kind, who, at, wei) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (proposal_id, kind) DO UPDATE SET wei = excluded.wei, at = excluded.at",
            params![proposal_id, c.kind, c.who, at, c.wei.to_string()],
        )?;
    }
    Ok(())
}

/// Whether instance `id` holds an unexpired lease.
fn alive(tx: &Connection, id: &str, now_ms: i64) -> Result<bool> {
    Ok(tx
        .query_row(
            "SELECT 1 FROM instances WHERE id = ?1 AND lease_until > ?2",
            params![id, now_ms],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// The states in which a proposal may still hold its lane (a PDR may land, or be signed).
const UNSETTLED: &str = "('confirmed', 'signed', 'submitted', 'uncertain')";

impl Store for SqliteStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Sqlite
    }

    fn describe(&self) -> String {
        match &self.path {
            Some(p) => format!("sqlite:{}", p.display()),
            None => "sqlite::memory:".to_owned(),
        }
    }

    fn busy(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.busy_ns.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn schema_version(&self) -> Result<u32> {
        let v: i64 = self
            .connection()
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        Ok(u32::try_from(v).unwrap_or(0))
    }

    fn append_audit(&self, at: u64, entry: AuditEntry) -> Result<AuditRecord> {
        self.write(|tx| append(tx, at, entry))
    }

    fn audit_records(&self, from: u64, limit: u64) -> Result<Vec<AuditRecord>> {
        let conn = self.connection();
        let mut stmt = conn.prepare(
            "SELECT seq, version, at, entry, prev_hash, hash FROM audit WHERE seq >= ?1 ORDER BY seq LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![from, limit], |r| {
            Ok((
                r.get::<_, u64>(0)?,
                r.get::<_, u32>(1)?,
                r.get::<_, u64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, version, at, entry, prev, hash) = row?;
            out.push(AuditRecord {
                seq,
                version,
                at,
                entry: serde_json::from_str(&entry).map_err(|e| {
                    Error::Store(format!("audit record {seq} is not a valid entry: {e}"))
                })?,
                prev_hash: parse_b256(&prev)?,
                hash: parse_b256(&hash)?,
            });
        }
        Ok(out)
    }

    fn audit_head(&self) -> Result<Option<(u64, B256)>> {
        let head: Option<(u64, String)> = self
            .connection()
            .query_row("SELECT seq, hash FROM audit_head WHERE id = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        head.map(|(seq, h)| Ok((seq, parse_b256(&h)?))).transpose()
    }

    fn proposal(&self, id: &str) -> Result<Option<Proposal>> {
        let body: Option<String> = self
            .connection()
            .query_row("SELECT body FROM proposals WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        body.as_deref().map(proposal_row).transpose()
    }

    fn proposals_by_intent(&self, caller: &str, intent_hash: B256) -> Result<Vec<Proposal>> {
        bodies(
            &self.connection(),
            "SELECT body FROM proposals WHERE caller = ?1 AND intent_hash = ?2 ORDER BY created_at",
            params![caller, hex(intent_hash)],
        )
    }

    fn proposals(&self, caller: Option<&str>, limit: u64) -> Result<Vec<Proposal>> {
        bodies(
            &self.connection(),
            "SELECT body FROM proposals WHERE ?1 IS NULL OR caller = ?1
             ORDER BY created_at DESC, rowid DESC LIMIT ?2",
            params![caller, limit],
        )
    }

    fn proposals_of(
        &self,
        tenants: &[String],
        caller: Option<&str>,
        state: Option<ProposalState>,
        limit: u64,
    ) -> Result<Vec<Proposal>> {
        let tenants = serde_json::to_string(tenants)?;
        bodies(
            &self.connection(),
            "SELECT body FROM proposals
             WHERE tenant IN (SELECT value FROM json_each(?1))
               AND (?2 IS NULL OR caller = ?2) AND (?3 IS NULL OR state = ?3)
             ORDER BY created_at DESC, rowid DESC LIMIT ?4",
            params![tenants, caller, state.map(ProposalState::as_str), limit],
        )
    }

    fn proposals_by_identity(
        &self,
        tenant: &str,
        identity: B256,
        since: u64,
    ) -> Result<Vec<Proposal>> {
        bodies(
            &self.connection(),
            "SELECT body FROM proposals WHERE tenant = ?1 AND identity = ?2 AND created_at >= ?3
             ORDER BY created_at",
            params![tenant, hex(identity), since],
        )
    }

    fn proposals_in(&self, state: ProposalState) -> Result<Vec<Proposal>> {
        bodies(
            &self.connection(),
            "SELECT body FROM proposals WHERE state = ?1 ORDER BY created_at",
            [state.as_str()],
        )
    }

    fn orphaned(&self, state: ProposalState, instance: &str) -> Result<Vec<Proposal>> {
        bodies(
            &self.connection(),
            "SELECT body FROM proposals p WHERE state = ?1
               AND (owner IS NULL OR owner = ?2 OR NOT EXISTS (
                    SELECT 1 FROM instances i WHERE i.id = p.owner AND i.lease_until > ?3))
             ORDER BY created_at",
            params![state.as_str(), instance, host_ms()],
        )
    }

    fn confirmation(&self, proposal_id: &str) -> Result<Option<Confirmation>> {
        let body: Option<String> = self
            .connection()
            .query_row(
                "SELECT body FROM confirmations WHERE proposal_id = ?1",
                [proposal_id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
    }

    fn live_reservation(
        &self,
        account: Address,
        lane: u32,
        sequence: u64,
    ) -> Result<Option<Reservation>> {
        Ok(
            read_reservation(&self.connection(), account, lane, sequence)?
                .filter(|r| r.state != ReservationState::Dead),
        )
    }

    fn live_reservations(&self) -> Result<Vec<Reservation>> {
        let conn = self.connection();
        let mut stmt = conn.prepare(&format!(
            "SELECT {RESERVATION} FROM reservations WHERE state <> 'dead'
             ORDER BY account, lane, sequence"
        ))?;
        let rows = stmt.query_map([], reservation)?;
        rows.map(|r| parse_reservation(r?)).collect()
    }

    fn txs(&self, proposal_id: &str) -> Result<Vec<SentTx>> {
        let conn = self.connection();
        let mut stmt = conn.prepare(
            "SELECT tx_hash, raw, sender, nonce, at FROM transactions WHERE proposal_id = ?1
             ORDER BY id",
        )?;
        type Row = (String, Option<String>, Option<String>, Option<u64>, u64);
        let rows = stmt.query_map([proposal_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        rows.map(|row: rusqlite::Result<Row>| {
            let (hash, raw, sender, nonce, at) = row?;
            Ok(SentTx {
                tx_hash: parse_b256(&hash)?,
                raw: raw
                    .map(|r| {
                        r.parse::<Bytes>()
                            .map_err(|e| Error::Store(format!("stored transaction: {e}")))
                    })
                    .transpose()?,
                sender: sender.as_deref().map(parse_address).transpose()?,
                nonce,
                at,
            })
        })
        .collect()
    }

    fn setting(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .connection()
            .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?)
    }

    fn charged_since(&self, kind: &str, who: &str, since: u64) -> Result<U256> {
        charged(&self.connection(), kind, who, since)
    }

    fn apply(&self, step: &Step) -> Result<Applied> {
        self.write(|tx| {
            if let Some((p, from)) = &step.proposal {
                let ok = match from {
                    None => {
                        tx.execute(
                            "INSERT INTO proposals (id, caller, intent_hash, state, created_at,
                                 body, tenant, identity, owner)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                             ON CONFLICT (id) DO NOTHING",
                            params![
                                p.id,
                                p.caller,
                                hex(p.intent_hash),
                                p.state.as_str(),
                                p.created_at,
                                serde_json::to_string(p)?,
                                p.tenant,
                                hex(intent_identity(&p.intent)),
                                step.owner
                            ],
                        )? == 1
                    }
                    Some(from) => {
                        tx.execute(
                            "UPDATE proposals SET state = ?2, body = ?3,
                                 owner = COALESCE(?4, owner)
                             WHERE id = ?1 AND state = ?5",
                            params![
                                p.id,
                                p.state.as_str(),
                                serde_json::to_string(p)?,
                                step.owner,
                                from.as_str()
                            ],
                        )? == 1
                    }
                };
                if !ok {
                    return Ok(Applied::Conflict(state_of(tx, &p.id)?));
                }
            }
            let id = step.proposal.as_ref().map(|(p, _)| p.id.as_str());
            if let Some(c) = &step.confirmation {
                tx.execute(
                    "INSERT INTO confirmations (proposal_id, body) VALUES (?1, ?2)
                     ON CONFLICT (proposal_id) DO UPDATE SET body = excluded.body",
                    params![c.proposal_id, serde_json::to_string(c)?],
                )?;
            }
            if let (Some((key, holder)), Some(id)) = (&step.link, id) {
                link(tx, *key, holder, id)?;
            }
            if let (Some((account, lane, sequence)), Some(id)) = (step.dead_reservation, id) {
                tx.execute(
                    "UPDATE reservations SET state = 'dead'
                     WHERE account = ?1 AND lane = ?2 AND sequence = ?3 AND proposal_id = ?4",
                    params![account.to_string(), lane, sequence, id],
                )?;
            }
            if let Some((key, value)) = &step.setting {
                tx.execute(
                    "INSERT INTO settings (key, value) VALUES (?1, ?2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    params![key, value],
                )?;
            }
            if let Some(id) = id {
                if step.uncharge {
                    tx.execute("DELETE FROM ledger WHERE proposal_id = ?1", [id])?;
                }
                charge_all(tx, id, step.at, &step.charges)?;
            }
            for entry in &step.audit {
                append(tx, step.at, entry.clone())?;
            }
            Ok(Applied::Done)
        })
    }

    fn put_proposal(&self, p: &Proposal) -> Result<()> {
        write_proposal(&self.connection(), p, None).map(|_| ())
    }

    fn idempotency_begin(&self, c: &IdemClaim, instance: &str) -> Result<IdemBegin> {
        self.write(|tx| {
            // Expired keys of this grant go first: an unexpired key is never evicted.
            tx.execute(
                "DELETE FROM idempotency WHERE grant_id = ?1 AND expires_at <= ?2",
                params![c.grant, c.now],
            )?;
            let now_ms = host_ms();
            type Row = (
                Option<u16>,
                Option<String>,
                Option<String>,
                Option<String>,
                bool,
                u64,
                Option<String>,
            );
            let row: Option<Row> = tx
                .query_row(
                    "SELECT status, body, request_hash, proposal_id, released, expires_at, instance
                     FROM idempotency WHERE key = ?1",
                    [hex(c.key)],
                    |r| {
                        Ok((
                            r.get(0)?,
                            r.get(1)?,
                            r.get(2)?,
                            r.get(3)?,
                            r.get(4)?,
                            r.get(5)?,
                            r.get(6)?,
                        ))
                    },
                )
                .optional()?;
            let row = match row {
                Some((status, body, request_hash, proposal_id, released, expires_at, holder)) => {
                    let gone = match &holder {
                        Some(h) if h != instance => !alive(tx, h, now_ms)?,
                        _ => false,
                    };
                    Some(IdemRow {
                        status,
                        body,
                        request_hash,
                        proposal_id,
                        released: released || gone,
                        expires_at,
                    })
                }
                None => None,
            };
            let claim = |tx: &Transaction<'_>| -> Result<IdemBegin> {
                tx.execute(
                    "INSERT INTO idempotency (key, at, status, body, grant_id, request_hash,
                         proposal_id, released, expires_at, instance, claimed_ms)
                     VALUES (?1, ?2, NULL, NULL, ?3, ?4, NULL, 0, ?5, ?6, ?7)
                     ON CONFLICT (key) DO UPDATE SET at = excluded.at, status = NULL, body = NULL,
                         grant_id = excluded.grant_id, request_hash = excluded.request_hash,
                         proposal_id = NULL, released = 0, expires_at = excluded.expires_at,
                         instance = excluded.instance, claimed_ms = excluded.claimed_ms",
                    params![
                        hex(c.key),
                        c.now,
                        c.grant,
                        hex(c.request_hash),
                        c.expires_at,
                        instance,
                        now_ms
                    ],
                )?;
                Ok(IdemBegin::Fresh)
            };
            match idem_decide(row, c) {
                IdemDecision::Answer(a) => Ok(a),
                IdemDecision::Claim => claim(tx),
                IdemDecision::New => {
                    // The grant's keys, every one unexpired: its expired ones went first.
                    let held: u64 = tx
                        .query_row(
                            "SELECT held FROM idempotency_held WHERE grant_id = ?1",
                            [&c.grant],
                            |r| r.get(0),
                        )
                        .optional()?
                        .unwrap_or(0);
                    if held >= c.capacity {
                        Ok(IdemBegin::Full)
                    } else {
                        claim(tx)
                    }
                }
            }
        })
    }

    fn idempotency_take(&self, key: B256, instance: &str) -> Result<bool> {
        let n = self.connection().execute(
            "UPDATE idempotency SET released = 0, instance = ?2, claimed_ms = ?3
             WHERE key = ?1 AND status IS NULL AND (released = 1 OR instance IS NULL OR (
                 instance <> ?2 AND NOT EXISTS (SELECT 1 FROM instances i
                     WHERE i.id = idempotency.instance AND i.lease_until > ?3)))",
            params![hex(key), instance, host_ms()],
        )?;
        Ok(n == 1)
    }

    fn idempotency_finish(
        &self,
        key: B256,
        instance: &str,
        response: &StoredResponse,
    ) -> Result<()> {
        self.connection().execute(
            "UPDATE idempotency SET status = ?2, body = ?3, released = 0
             WHERE key = ?1 AND (instance IS NULL OR instance = ?4)",
            params![hex(key), response.status, response.body, instance],
        )?;
        Ok(())
    }

    fn idempotency_abandon(&self, key: B256, instance: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "DELETE FROM idempotency
                 WHERE key = ?1 AND proposal_id IS NULL AND (instance IS NULL OR instance = ?2)",
                params![hex(key), instance],
            )?;
            tx.execute(
                "UPDATE idempotency SET released = 1
                 WHERE key = ?1 AND status IS NULL AND (instance IS NULL OR instance = ?2)",
                params![hex(key), instance],
            )?;
            Ok(())
        })
    }

    fn idempotency_link(&self, key: B256, instance: &str, proposal_id: &str) -> Result<()> {
        link(&self.connection(), key, instance, proposal_id)
    }

    fn release_in_flight(&self, instance: &str) -> Result<u64> {
        self.write(|tx| {
            // Claims of version 1 (no request hash) cannot be matched again: dropped.
            let dropped = tx.execute(
                "DELETE FROM idempotency WHERE status IS NULL AND request_hash IS NULL",
                [],
            )?;
            // One instance per file: every claim of another one is its dead predecessor's.
            let released = tx.execute(
                "UPDATE idempotency SET released = 1
                 WHERE status IS NULL AND released = 0 AND (instance IS NULL OR instance <> ?1)",
                [instance],
            )?;
            Ok((dropped + released) as u64)
        })
    }

    fn release_claims(&self, instance: &str, keys: &[B256]) -> Result<()> {
        let keys: Vec<String> = keys.iter().map(|k| hex(*k)).collect();
        self.connection().execute(
            "UPDATE idempotency SET released = 1
             WHERE instance = ?1 AND status IS NULL AND key IN (SELECT value FROM json_each(?2))",
            params![instance, serde_json::to_string(&keys)?],
        )?;
        Ok(())
    }

    fn reserve_nonce(&self, q: &NonceRequest<'_>) -> Result<NonceOutcome> {
        self.write(|tx| {
            let now_ms = host_ms();
            let until = now_ms.saturating_add(q.lease.ttl_ms());
            let account = q.account.to_string();
            let mut out = NonceOutcome::default();
            for &(lane, next) in q.lanes {
                let lease: Option<(String, i64, i64)> = tx
                    .query_row(
                        "SELECT holder, fence, lease_until FROM lane_leases
                         WHERE account = ?1 AND lane = ?2",
                        params![account, lane],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .optional()?;
                let fence = match lease {
                    None => {
                        tx.execute(
                            "INSERT INTO lane_leases (account, lane, holder, fence, lease_until,
                                 used_ms) VALUES (?1, ?2, ?3, 1, ?4, ?5)",
                            params![account, lane, q.instance, until, now_ms],
                        )?;
                        1
                    }
                    Some((holder, fence, _)) if holder == q.instance => {
                        tx.execute(
                            "UPDATE lane_leases SET lease_until = ?3, used_ms = ?4
                             WHERE account = ?1 AND lane = ?2",
                            params![account, lane, until, now_ms],
                        )?;
                        fence
                    }
                    Some((holder, _, lease_until))
                        if !holder.is_empty() && lease_until > now_ms =>
                    {
                        continue;
                    }
                    Some((holder, fence, _)) => {
                        let fence = fence + 1;
                        tx.execute(
                            "UPDATE lane_leases SET holder = ?3, fence = ?4, lease_until = ?5,
                                 used_ms = ?6 WHERE account = ?1 AND lane = ?2",
                            params![account, lane, q.instance, fence, until, now_ms],
                        )?;
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
                            append(tx, q.at, entry)?;
                            let mut stmt = tx.prepare(&format!(
                                "SELECT p.id FROM reservations r JOIN proposals p
                                   ON p.id = r.proposal_id
                                 WHERE r.account = ?1 AND r.lane = ?2 AND r.state = 'signed'
                                   AND p.state IN {UNSETTLED}"
                            ))?;
                            let pending = stmt
                                .query_map(params![account, lane], |r| r.get::<_, String>(0))?
                                .collect::<rusqlite::Result<Vec<_>>>()?;
                            if !pending.is_empty() {
                                out.reconcile.extend(pending);
                                continue;
                            }
                        }
                        fence
                    }
                };
                let held = read_reservation(tx, q.account, lane, next)?;
                if let Some(held) = &held {
                    if !holder_dead(held, q.chain_time) {
                        continue;
                    }
                    if held.state == ReservationState::Signed {
                        // Dead by the chain: superseded once its proposal is settled
                        // (reconciled: expired, or reverted); reconciled first otherwise.
                        let settled = state_of(tx, &held.proposal_id)?
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
                        append(tx, q.at, entry)?;
                    }
                    tx.execute(
                        "INSERT INTO superseded (account, lane, sequence, proposal_id, state,
                             digest, valid_until, by_proposal, at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                        params![
                            account,
                            lane,
                            next,
                            held.proposal_id,
                            held.state.as_str(),
                            held.digest.map(hex),
                            held.valid_until,
                            q.proposal_id,
                            q.at
                        ],
                    )?;
                }
                tx.execute(
                    "INSERT INTO reservations (account, lane, sequence, proposal_id, state, digest,
                         valid_until, holder, fence, at)
                     VALUES (?1, ?2, ?3, ?4, 'reserved', NULL, NULL, ?5, ?6, ?7)
                     ON CONFLICT (account, lane, sequence) DO UPDATE SET
                         proposal_id = excluded.proposal_id, state = 'reserved', digest = NULL,
                         valid_until = NULL, holder = excluded.holder, fence = excluded.fence,
                         at = excluded.at",
                    params![account, lane, next, q.proposal_id, q.instance, fence, q.at],
                )?;
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
        })
    }

    fn release_nonce(&self, r: &Reservation) -> Result<()> {
        self.connection().execute(
            "UPDATE reservations SET state = 'dead'
             WHERE account = ?1 AND lane = ?2 AND sequence = ?3 AND proposal_id = ?4
               AND state = 'reserved'",
            params![r.account.to_string(), r.lane, r.sequence, r.proposal_id],
        )?;
        Ok(())
    }

    fn retire_reservations(&self) -> Result<u64> {
        let n = self.connection().execute(
            "UPDATE reservations SET state = 'dead' WHERE state <> 'dead'",
            [],
        )?;
        Ok(n as u64)
    }

    fn record_signature(&self, s: &SignatureStep<'_>) -> Result<()> {
        self.write(|tx| {
            let r = s.reservation;
            let p = s.proposal;
            let account = r.account.to_string();
            if let Some(json) = tx
                .query_row("SELECT value FROM settings WHERE key = 'halt'", [], |row| {
                    row.get::<_, String>(0)
                })
                .optional()?
            {
                let halt: super::Halt = serde_json::from_str(&json)?;
                if halt.halted {
                    return Err(Error::Halted(halt.reason));
                }
            }
            let lease: Option<(String, i64)> = tx
                .query_row(
                    "SELECT holder, fence FROM lane_leases WHERE account = ?1 AND lane = ?2",
                    params![account, r.lane],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            if lease.as_ref() != Some(&(s.instance.to_owned(), r.fence)) {
                return Err(Error::Fenced(format!(
                    "lane {} of {} is no longer this instance's under fencing token {}",
                    r.lane, r.account, r.fence
                )));
            }
            let now_ms = host_ms();
            tx.execute(
                "UPDATE lane_leases SET lease_until = ?3, used_ms = ?4
                 WHERE account = ?1 AND lane = ?2",
                params![
                    account,
                    r.lane,
                    now_ms.saturating_add(s.lease.ttl_ms()),
                    now_ms
                ],
            )?;
            let held = read_reservation(tx, r.account, r.lane, r.sequence)?;
            let digest = r
                .digest
                .ok_or_else(|| Error::Store("no digest to record".into()))?;
            match held {
                Some(h) if h.state == ReservationState::Signed && h.digest == Some(digest) => {
                    // The same digest again: already recorded.
                    if state_of(tx, &p.id)? == Some(ProposalState::Signed) {
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
                    });
                }
            }
            tx.execute(
                "UPDATE reservations SET state = 'signed', digest = ?4, valid_until = ?5
                 WHERE account = ?1 AND lane = ?2 AND sequence = ?3",
                params![account, r.lane, r.sequence, hex(digest), r.valid_until],
            )?;
            charge_all(tx, &p.id, s.at, &s.charges)?;
            let n = tx.execute(
                "UPDATE proposals SET state = ?2, body = ?3 WHERE id = ?1 AND state = 'confirmed'",
                params![p.id, p.state.as_str(), serde_json::to_string(p)?],
            )?;
            if n != 1 {
                return Err(Error::NotConfirmable {
                    id: p.id.clone(),
                    state: state_of(tx, &p.id)?
                        .map_or("unknown", |s| s.as_str())
                        .to_owned(),
                });
            }
            append(tx, s.at, s.audit.clone())?;
            Ok(())
        })
    }

    fn record_tx(&self, proposal_id: &str, t: &SentTx, instance: Option<&Instance>) -> Result<()> {
        self.write(|tx| {
            if let Some(me) = instance {
                if let Some(sender) = t.sender {
                    let lease: Option<(String, i64)> = tx
                        .query_row(
                            "SELECT holder, fence FROM relayer_leases WHERE address = ?1",
                            [sender.to_string()],
                            |r| Ok((r.get(0)?, r.get(1)?)),
                        )
                        .optional()?;
                    if lease != Some((me.id.clone(), me.relayer_fence)) {
                        return Err(Error::Fenced(format!(
                            "relayer {sender} is no longer this instance's: nothing was sent"
                        )));
                    }
                }
                match state_of(tx, proposal_id)? {
                    Some(ProposalState::Submitted | ProposalState::Uncertain) => {}
                    state => {
                        return Err(Error::NotConfirmable {
                            id: proposal_id.to_owned(),
                            state: state.map_or("unknown", |s| s.as_str()).to_owned(),
                        });
                    }
                }
            }
            tx.execute(
                "INSERT INTO transactions (proposal_id, tx_hash, at, raw, sender, nonce)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    proposal_id,
                    hex(t.tx_hash),
                    t.at,
                    t.raw.as_ref().map(|r| r.to_string()),
                    t.sender.map(|a| a.to_string()),
                    t.nonce
                ],
            )?;
            Ok(())
        })
    }

    fn count_request(&self, grant: &str, window: u64, limit: u32) -> Result<bool> {
        self.write(|tx| {
            tx.execute(
                "DELETE FROM rate_windows WHERE grant_id = ?1 AND window_start < ?2",
                params![grant, window.saturating_sub(120)],
            )?;
            let n: u32 = tx
                .query_row(
                    "SELECT count FROM rate_windows WHERE grant_id = ?1 AND window_start = ?2",
                    params![grant, window],
                    |r| r.get(0),
                )
                .optional()?
                .unwrap_or(0);
            if n >= limit {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO rate_windows (grant_id, window_start, count) VALUES (?1, ?2, 1)
                 ON CONFLICT (grant_id, window_start) DO UPDATE SET count = count + 1",
                params![grant, window],
            )?;
            Ok(true)
        })
    }

    fn register_instance(
        &self,
        name: &str,
        relayer: Option<Address>,
        lease: LeaseConfig,
    ) -> Result<Instance> {
        let id = super::postgres::fresh_id();
        self.write(|tx| {
            let now_ms = host_ms();
            let until = now_ms.saturating_add(lease.ttl_ms());
            // The file is this process's: every other instance recorded in it is gone, and
            // its leases with it.
            tx.execute("UPDATE instances SET lease_until = 0", [])?;
            tx.execute("UPDATE lane_leases SET holder = '', lease_until = 0", [])?;
            tx.execute("UPDATE relayer_leases SET holder = '', lease_until = 0", [])?;
            tx.execute(
                "INSERT INTO instances (id, name, relayer, started_ms, lease_until)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, name, relayer.map(|r| r.to_string()), now_ms, until],
            )?;
            let mut relayer_fence = 0;
            if let Some(address) = relayer {
                relayer_fence = tx
                    .query_row(
                        "SELECT fence FROM relayer_leases WHERE address = ?1",
                        [address.to_string()],
                        |r| r.get::<_, i64>(0),
                    )
                    .optional()?
                    .unwrap_or(0)
                    + 1;
                tx.execute(
                    "INSERT INTO relayer_leases (address, holder, fence, lease_until)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (address) DO UPDATE SET holder = excluded.holder,
                         fence = excluded.fence, lease_until = excluded.lease_until",
                    params![address.to_string(), id, relayer_fence, until],
                )?;
            }
            Ok(Instance {
                id: id.clone(),
                name: name.to_owned(),
                relayer,
                relayer_fence,
            })
        })
    }

    fn heartbeat(&self, me: &Instance, lease: LeaseConfig, in_flight: &[B256]) -> Result<()> {
        self.write(|tx| {
            let now_ms = host_ms();
            let until = now_ms.saturating_add(lease.ttl_ms());
            tx.execute(
                "UPDATE instances SET lease_until = ?2 WHERE id = ?1",
                params![me.id, until],
            )?;
            if let Some(address) = me.relayer {
                let n = tx.execute(
                    "UPDATE relayer_leases SET lease_until = ?4
                     WHERE address = ?1 AND holder = ?2 AND fence = ?3",
                    params![address.to_string(), me.id, me.relayer_fence, until],
                )?;
                if n != 1 {
                    return Err(Error::Fenced(format!(
                        "relayer {address} was taken over by another instance"
                    )));
                }
            }
            tx.execute(
                "UPDATE lane_leases SET lease_until = ?2 WHERE holder = ?1",
                params![me.id, until],
            )?;
            tx.execute(
                &format!(
                    "UPDATE lane_leases SET holder = '', lease_until = 0
                     WHERE holder = ?1 AND used_ms < ?2 AND NOT EXISTS (
                         SELECT 1 FROM reservations r JOIN proposals p ON p.id = r.proposal_id
                         WHERE r.account = lane_leases.account AND r.lane = lane_leases.lane
                           AND r.state <> 'dead' AND p.state IN {UNSETTLED})"
                ),
                params![me.id, now_ms.saturating_sub(lease.idle_ms())],
            )?;
            release_stale_claims(tx, &me.id, in_flight, now_ms)?;
            Ok(())
        })
    }

    fn retire_instance(&self, me: &Instance) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE lane_leases SET holder = '', lease_until = 0 WHERE holder = ?1",
                [&me.id],
            )?;
            tx.execute(
                "UPDATE relayer_leases SET holder = '', lease_until = 0 WHERE holder = ?1",
                [&me.id],
            )?;
            tx.execute(
                "UPDATE instances SET lease_until = 0 WHERE id = ?1",
                [&me.id],
            )?;
            Ok(())
        })
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
        self.write(|tx| {
            tx.execute(
                "DELETE FROM mcp_sessions WHERE last_seen < ?1",
                [now.saturating_sub(idle_secs)],
            )?;
            let held: u32 = tx.query_row(
                "SELECT COUNT(*) FROM mcp_sessions WHERE grant_id = ?1",
                [grant],
                |r| r.get(0),
            )?;
            if held >= cap {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO mcp_sessions (id, grant_id, instance, created_at, last_seen)
                 VALUES (?1, ?2, ?3, ?4, ?4)
                 ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen",
                params![id, grant, instance, now],
            )?;
            Ok(true)
        })
    }

    fn touch_session(&self, id: &str, now: u64, idle_secs: u64) -> Result<bool> {
        self.write(|tx| {
            let n = tx.execute(
                "UPDATE mcp_sessions SET last_seen = ?2 WHERE id = ?1 AND last_seen >= ?3",
                params![id, now, now.saturating_sub(idle_secs)],
            )?;
            if n == 0 {
                tx.execute("DELETE FROM mcp_sessions WHERE id = ?1", [id])?;
            }
            Ok(n == 1)
        })
    }

    fn close_session(&self, id: &str) -> Result<()> {
        self.connection()
            .execute("DELETE FROM mcp_sessions WHERE id = ?1", [id])?;
        Ok(())
    }

    fn publish(&self, kind: &str, body: &str, at: u64) -> Result<u64> {
        self.write(|tx| {
            let current: Option<(u64, String)> = tx
                .query_row(
                    "SELECT version, body FROM config WHERE kind = ?1",
                    [kind],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            match current {
                Some((version, same)) if same == body => Ok(version),
                current => {
                    let version = current.map_or(1, |(v, _)| v + 1);
                    tx.execute(
                        "INSERT INTO config (kind, version, body, at) VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (kind) DO UPDATE SET version = excluded.version,
                             body = excluded.body, at = excluded.at",
                        params![kind, version, body, at],
                    )?;
                    Ok(version)
                }
            }
        })
    }

    fn published(&self, kind: &str) -> Result<Option<(u64, String)>> {
        Ok(self
            .connection()
            .query_row(
                "SELECT version, body FROM config WHERE kind = ?1",
                [kind],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }
}

/// An audit record's row as stored: copied byte for byte, so its hash is unchanged.
#[derive(Clone, Debug)]
pub struct AuditRow {
    /// Its sequence.
    pub seq: u64,
    /// Its format version.
    pub version: u32,
    /// Unix time.
    pub at: u64,
    /// The entry's JSON, as stored.
    pub entry: String,
    /// The previous record's hash.
    pub prev_hash: String,
    /// Its hash.
    pub hash: String,
}

/// An idempotency record as `pace store migrate` copies it.
#[derive(Clone, Debug)]
pub struct IdemExport {
    /// The key.
    pub key: String,
    /// Unix time of the claim.
    pub at: u64,
    /// The recorded status.
    pub status: Option<u16>,
    /// The recorded body.
    pub body: Option<String>,
    /// The grant.
    pub grant: String,
    /// The request's hash.
    pub request_hash: String,
    /// The proposal reached.
    pub proposal_id: Option<String>,
    /// Until when it is kept.
    pub expires_at: u64,
}

/// Everything a SQLite store holds that `pace store migrate` copies into PostgreSQL (the
/// instances, their leases, rate windows and MCP sessions are the running processes' and are
/// not copied).
#[derive(Clone, Debug, Default)]
pub struct Export {
    /// The audit records, in order.
    pub audit: Vec<AuditRow>,
    /// The audit head.
    pub head: Option<(u64, String)>,
    /// The proposals and their owners.
    pub proposals: Vec<(Proposal, Option<String>)>,
    /// The confirmations: proposal, JSON.
    pub confirmations: Vec<(String, String)>,
    /// The idempotency records (claims still in flight are imported released).
    pub idempotency: Vec<IdemExport>,
    /// The reservations.
    pub reservations: Vec<Reservation>,
    /// The transactions: proposal, transaction.
    pub transactions: Vec<(String, SentTx)>,
    /// The settings.
    pub settings: Vec<(String, String)>,
    /// The ledger: proposal, kind, who, at, wei.
    pub ledger: Vec<(String, String, String, u64, String)>,
}

impl SqliteStore {
    /// Every row `pace store migrate` copies.
    pub fn export(&self) -> Result<Export> {
        let conn = self.connection();
        let mut out = Export::default();
        {
            let mut stmt = conn.prepare(
                "SELECT seq, version, at, entry, prev_hash, hash FROM audit ORDER BY seq",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(AuditRow {
                    seq: r.get(0)?,
                    version: r.get(1)?,
                    at: r.get(2)?,
                    entry: r.get(3)?,
                    prev_hash: r.get(4)?,
                    hash: r.get(5)?,
                })
            })?;
            out.audit = rows.collect::<rusqlite::Result<_>>()?;
        }
        out.head = conn
            .query_row("SELECT seq, hash FROM audit_head WHERE id = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        {
            let mut stmt = conn.prepare("SELECT body, owner FROM proposals ORDER BY rowid")?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
            })?;
            for row in rows {
                let (body, owner) = row?;
                out.proposals.push((proposal_row(&body)?, owner));
            }
        }
        {
            let mut stmt = conn.prepare("SELECT proposal_id, body FROM confirmations")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            out.confirmations = rows.collect::<rusqlite::Result<_>>()?;
        }
        {
            let mut stmt = conn.prepare(
                "SELECT key, at, status, body, grant_id, request_hash, proposal_id, expires_at
                 FROM idempotency WHERE request_hash IS NOT NULL AND grant_id IS NOT NULL",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(IdemExport {
                    key: r.get(0)?,
                    at: r.get(1)?,
                    status: r.get(2)?,
                    body: r.get(3)?,
                    grant: r.get(4)?,
                    request_hash: r.get(5)?,
                    proposal_id: r.get(6)?,
                    expires_at: r.get(7)?,
                })
            })?;
            out.idempotency = rows.collect::<rusqlite::Result<_>>()?;
        }
        {
            let mut stmt = conn.prepare(&format!(
                "SELECT {RESERVATION} FROM reservations ORDER BY account, lane, sequence"
            ))?;
            let rows = stmt.query_map([], reservation)?;
            for row in rows {
                out.reservations.push(parse_reservation(row?)?);
            }
        }
        {
            let mut stmt = conn.prepare("SELECT DISTINCT proposal_id FROM transactions")?;
            let ids = stmt
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            drop(stmt);
            drop(conn);
            for id in ids {
                for t in self.txs(&id)? {
                    out.transactions.push((id.clone(), t));
                }
            }
        }
        let conn = self.connection();
        {
            let mut stmt = conn.prepare("SELECT key, value FROM settings")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            out.settings = rows.collect::<rusqlite::Result<_>>()?;
        }
        {
            let mut stmt = conn.prepare("SELECT proposal_id, kind, who, at, wei FROM ledger")?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            out.ledger = rows.collect::<rusqlite::Result<_>>()?;
        }
        Ok(out)
    }
}

/// How long a claim must have been held before a heartbeat may release it as no handler's: a
/// claim taken after the heartbeat read its instance's live claims is younger than this.
pub(crate) const CLAIM_GRACE_MS: i64 = 30_000;

/// Releases the claims of instance `id` that no handler holds (not in `in_flight`) and that
/// were taken more than [`CLAIM_GRACE_MS`] ago: their handler ended without recording an
/// answer (the store was unreachable when it tried).
fn release_stale_claims(
    tx: &Transaction<'_>,
    id: &str,
    in_flight: &[B256],
    now_ms: i64,
) -> Result<()> {
    let held: Vec<String> = in_flight.iter().map(|k| hex(*k)).collect();
    tx.execute(
        "UPDATE idempotency SET released = 1
         WHERE instance = ?1 AND status IS NULL AND released = 0 AND claimed_ms < ?2
           AND key NOT IN (SELECT value FROM json_each(?3))",
        params![
            id,
            now_ms.saturating_sub(CLAIM_GRACE_MS),
            serde_json::to_string(&held)?
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests;
