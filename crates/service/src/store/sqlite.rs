//! The embedded store: SQLite, one file in WAL mode (or in memory).

use super::{Confirmation, IdemBegin, Proposal, ProposalState, Reservation, Store, StoredResponse};
use crate::{
    Error, Result,
    audit::{AUDIT_VERSION, AuditEntry, AuditRecord},
};
use alloy_primitives::{Address, B256};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;

/// The schema version (`PRAGMA user_version`). Opening a store of another version fails.
pub const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY,
    version INTEGER NOT NULL,
    at INTEGER NOT NULL,
    entry TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
CREATE TABLE proposals (
    id TEXT PRIMARY KEY,
    caller TEXT NOT NULL,
    intent_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX proposals_by_intent ON proposals (caller, intent_hash);
CREATE INDEX proposals_by_state ON proposals (state);
CREATE TABLE confirmations (proposal_id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE idempotency (
    key TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    status INTEGER,
    body TEXT
);
CREATE TABLE reservations (
    id INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    lane INTEGER NOT NULL,
    sequence INTEGER NOT NULL,
    state TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE UNIQUE INDEX live_reservation ON reservations (account, lane, sequence) WHERE state <> 'dead';
CREATE TABLE transactions (
    id INTEGER PRIMARY KEY,
    proposal_id TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    at INTEGER NOT NULL
);
";

/// [`Store`] on SQLite.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
}

impl SqliteStore {
    /// Opens (creating if needed) the store in the file at `path`, in WAL mode.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open(path)?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Store(format!(
                "{}: cannot switch to WAL (journal mode {mode})",
                path.display()
            )));
        }
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000;")?;
        Self::init(conn)
    }

    /// A store in memory (lost on exit).
    pub fn in_memory() -> Result<Self> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Self> {
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        match version {
            0 => {
                conn.execute_batch(&format!(
                    "BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
                ))?;
            }
            SCHEMA_VERSION => {}
            other => {
                return Err(Error::Store(format!(
                    "store schema version {other}; this build reads version {SCHEMA_VERSION}"
                )));
            }
        }
        Ok(Self { conn })
    }

    /// The connection, for tests that tamper with the file.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

fn hex(h: B256) -> String {
    h.to_string()
}

fn parse_b256(s: &str) -> Result<B256> {
    s.parse()
        .map_err(|e| Error::Store(format!("stored hash {s:?}: {e}")))
}

fn proposal_row(body: &str) -> Result<Proposal> {
    Ok(serde_json::from_str(body)?)
}

impl Store for SqliteStore {
    fn append_audit(&mut self, at: u64, entry: AuditEntry) -> Result<AuditRecord> {
        let tx = self.conn.transaction()?;
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
        tx.commit()?;
        debug_assert_eq!(rec.version, AUDIT_VERSION);
        Ok(rec)
    }

    fn audit_records(&self, from: u64, limit: u64) -> Result<Vec<AuditRecord>> {
        let mut stmt = self.conn.prepare(
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
            .conn
            .query_row("SELECT seq, hash FROM audit_head WHERE id = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        head.map(|(seq, h)| Ok((seq, parse_b256(&h)?))).transpose()
    }

    fn put_proposal(&mut self, p: &Proposal) -> Result<()> {
        self.conn.execute(
            "INSERT INTO proposals (id, caller, intent_hash, state, created_at, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body",
            params![
                p.id,
                p.caller,
                hex(p.intent_hash),
                p.state.as_str(),
                p.created_at,
                serde_json::to_string(p)?
            ],
        )?;
        Ok(())
    }

    fn proposal(&self, id: &str) -> Result<Option<Proposal>> {
        let body: Option<String> = self
            .conn
            .query_row("SELECT body FROM proposals WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        body.as_deref().map(proposal_row).transpose()
    }

    fn proposals_by_intent(&self, caller: &str, intent_hash: B256) -> Result<Vec<Proposal>> {
        let mut stmt = self.conn.prepare(
            "SELECT body FROM proposals WHERE caller = ?1 AND intent_hash = ?2 ORDER BY created_at",
        )?;
        let rows = stmt.query_map(params![caller, hex(intent_hash)], |r| r.get(0))?;
        rows.map(|b: rusqlite::Result<String>| proposal_row(&b?))
            .collect()
    }

    fn proposals(&self, caller: Option<&str>, limit: u64) -> Result<Vec<Proposal>> {
        let mut stmt = self.conn.prepare(
            "SELECT body FROM proposals WHERE ?1 IS NULL OR caller = ?1
             ORDER BY created_at DESC, rowid DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![caller, limit], |r| r.get(0))?;
        rows.map(|b: rusqlite::Result<String>| proposal_row(&b?))
            .collect()
    }

    fn proposals_in(&self, state: ProposalState) -> Result<Vec<Proposal>> {
        let mut stmt = self
            .conn
            .prepare("SELECT body FROM proposals WHERE state = ?1 ORDER BY created_at")?;
        let rows = stmt.query_map([state.as_str()], |r| r.get(0))?;
        rows.map(|b: rusqlite::Result<String>| proposal_row(&b?))
            .collect()
    }

    fn record_confirmation(&mut self, c: &Confirmation) -> Result<()> {
        self.conn.execute(
            "INSERT INTO confirmations (proposal_id, body) VALUES (?1, ?2)
             ON CONFLICT (proposal_id) DO UPDATE SET body = excluded.body",
            params![c.proposal_id, serde_json::to_string(c)?],
        )?;
        Ok(())
    }

    fn confirmation(&self, proposal_id: &str) -> Result<Option<Confirmation>> {
        let body: Option<String> = self
            .conn
            .query_row(
                "SELECT body FROM confirmations WHERE proposal_id = ?1",
                [proposal_id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
    }

    fn idempotency_begin(&mut self, key: B256, now: u64, window: u64) -> Result<IdemBegin> {
        let tx = self.conn.transaction()?;
        let row: Option<(u64, Option<u16>, Option<String>)> = tx
            .query_row(
                "SELECT at, status, body FROM idempotency WHERE key = ?1",
                [hex(key)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let out = match row {
            Some((at, status, body)) if now.saturating_sub(at) < window => match (status, body) {
                (Some(status), Some(body)) => IdemBegin::Replay(StoredResponse { status, body }),
                _ => IdemBegin::InFlight,
            },
            _ => {
                tx.execute(
                    "INSERT INTO idempotency (key, at, status, body) VALUES (?1, ?2, NULL, NULL)
                     ON CONFLICT (key) DO UPDATE SET at = excluded.at, status = NULL, body = NULL",
                    params![hex(key), now],
                )?;
                IdemBegin::Fresh
            }
        };
        tx.commit()?;
        Ok(out)
    }

    fn idempotency_finish(&mut self, key: B256, response: &StoredResponse) -> Result<()> {
        self.conn.execute(
            "UPDATE idempotency SET status = ?2, body = ?3 WHERE key = ?1",
            params![hex(key), response.status, response.body],
        )?;
        Ok(())
    }

    fn release_in_flight(&mut self) -> Result<u64> {
        let n = self
            .conn
            .execute("DELETE FROM idempotency WHERE status IS NULL", [])?;
        Ok(n as u64)
    }

    fn live_reservation(
        &self,
        account: Address,
        lane: u32,
        sequence: u64,
    ) -> Result<Option<Reservation>> {
        let body: Option<String> = self
            .conn
            .query_row(
                "SELECT body FROM reservations
                 WHERE account = ?1 AND lane = ?2 AND sequence = ?3 AND state <> 'dead'",
                params![account.to_string(), lane, sequence],
                |r| r.get(0),
            )
            .optional()?;
        Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
    }

    fn reserve(&mut self, r: &Reservation) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO reservations (account, lane, sequence, state, body)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    r.account.to_string(),
                    r.lane,
                    r.sequence,
                    r.state.as_str(),
                    serde_json::to_string(r)?
                ],
            )
            .map_err(|e| {
                Error::Store(format!(
                    "sequence {} of lane {} is already reserved: {e}",
                    r.sequence, r.lane
                ))
            })?;
        Ok(())
    }

    fn live_reservations(&self) -> Result<Vec<Reservation>> {
        let mut stmt = self
            .conn
            .prepare("SELECT body FROM reservations WHERE state <> 'dead' ORDER BY id")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.map(|b| Ok(serde_json::from_str(&b?)?)).collect()
    }

    fn update_reservation(&mut self, r: &Reservation) -> Result<()> {
        let n = self.conn.execute(
            "UPDATE reservations SET state = ?4, body = ?5
             WHERE account = ?1 AND lane = ?2 AND sequence = ?3 AND state <> 'dead'",
            params![
                r.account.to_string(),
                r.lane,
                r.sequence,
                r.state.as_str(),
                serde_json::to_string(r)?
            ],
        )?;
        if n != 1 {
            return Err(Error::Store(format!(
                "no live reservation of sequence {} on lane {}",
                r.sequence, r.lane
            )));
        }
        Ok(())
    }

    fn add_tx_hash(&mut self, proposal_id: &str, tx_hash: B256, at: u64) -> Result<()> {
        self.conn.execute(
            "INSERT INTO transactions (proposal_id, tx_hash, at) VALUES (?1, ?2, ?3)",
            params![proposal_id, hex(tx_hash), at],
        )?;
        Ok(())
    }

    fn tx_hashes(&self, proposal_id: &str) -> Result<Vec<B256>> {
        let mut stmt = self
            .conn
            .prepare("SELECT tx_hash FROM transactions WHERE proposal_id = ?1 ORDER BY id")?;
        let rows = stmt.query_map([proposal_id], |r| r.get::<_, String>(0))?;
        rows.map(|h| parse_b256(&h?)).collect()
    }

    fn last_tx(&self, proposal_id: &str) -> Result<Option<(B256, u64)>> {
        let row: Option<(String, u64)> = self
            .conn
            .query_row(
                "SELECT tx_hash, at FROM transactions WHERE proposal_id = ?1
                 ORDER BY id DESC LIMIT 1",
                [proposal_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        row.map(|(h, at)| Ok((parse_b256(&h)?, at))).transpose()
    }
}

#[cfg(test)]
mod tests;
