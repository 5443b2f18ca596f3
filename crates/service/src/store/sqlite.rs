//! The embedded store: SQLite, one file in WAL mode (or in memory).

use super::{
    Confirmation, IdemBegin, IdemClaim, Proposal, ProposalState, Reservation, SentTx, Store,
    StoredResponse,
};
use crate::{
    Error, Result,
    audit::{AUDIT_VERSION, AuditEntry, AuditRecord},
    identity::intent_identity,
};
use alloy_primitives::{Address, B256, Bytes, U256};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;

mod schema;

pub use schema::SCHEMA_VERSION;

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
        schema::migrate(&conn)?;
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
            "INSERT INTO proposals (id, caller, intent_hash, state, created_at, body, tenant, identity)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body",
            params![
                p.id,
                p.caller,
                hex(p.intent_hash),
                p.state.as_str(),
                p.created_at,
                serde_json::to_string(p)?,
                p.tenant,
                hex(intent_identity(&p.intent))
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

    fn proposals_of(
        &self,
        tenants: &[String],
        caller: Option<&str>,
        state: Option<ProposalState>,
        limit: u64,
    ) -> Result<Vec<Proposal>> {
        let tenants = serde_json::to_string(tenants)?;
        let mut stmt = self.conn.prepare(
            "SELECT body FROM proposals
             WHERE tenant IN (SELECT value FROM json_each(?1))
               AND (?2 IS NULL OR caller = ?2) AND (?3 IS NULL OR state = ?3)
             ORDER BY created_at DESC, rowid DESC LIMIT ?4",
        )?;
        let rows = stmt.query_map(
            params![tenants, caller, state.map(ProposalState::as_str), limit],
            |r| r.get(0),
        )?;
        rows.map(|b: rusqlite::Result<String>| proposal_row(&b?))
            .collect()
    }

    fn proposals_by_identity(
        &self,
        tenant: &str,
        identity: B256,
        since: u64,
    ) -> Result<Vec<Proposal>> {
        let mut stmt = self.conn.prepare(
            "SELECT body FROM proposals WHERE tenant = ?1 AND identity = ?2 AND created_at >= ?3
             ORDER BY created_at",
        )?;
        let rows = stmt.query_map(params![tenant, hex(identity), since], |r| r.get(0))?;
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

    fn idempotency_begin(&mut self, c: &IdemClaim) -> Result<IdemBegin> {
        let tx = self.conn.transaction()?;
        // Expired keys of this grant go first: an unexpired key is never evicted.
        tx.execute(
            "DELETE FROM idempotency WHERE grant_id = ?1 AND expires_at <= ?2",
            params![c.grant, c.now],
        )?;
        type Row = (
            Option<u16>,
            Option<String>,
            Option<String>,
            Option<String>,
            bool,
            u64,
        );
        let row: Option<Row> = tx
            .query_row(
                "SELECT status, body, request_hash, proposal_id, released, expires_at
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
                    ))
                },
            )
            .optional()?;
        let claim = |tx: &rusqlite::Transaction<'_>| -> Result<()> {
            tx.execute(
                "INSERT INTO idempotency (key, at, status, body, grant_id, request_hash,
                     proposal_id, released, expires_at)
                 VALUES (?1, ?2, NULL, NULL, ?3, ?4, NULL, 0, ?5)
                 ON CONFLICT (key) DO UPDATE SET at = excluded.at, status = NULL, body = NULL,
                     grant_id = excluded.grant_id, request_hash = excluded.request_hash,
                     proposal_id = NULL, released = 0, expires_at = excluded.expires_at",
                params![
                    hex(c.key),
                    c.now,
                    c.grant,
                    hex(c.request_hash),
                    c.expires_at
                ],
            )?;
            Ok(())
        };
        let out = match row {
            Some((status, body, request_hash, proposal, released, expires_at))
                if expires_at > c.now =>
            {
                if request_hash.as_deref() != Some(hex(c.request_hash).as_str()) {
                    IdemBegin::Reused
                } else {
                    match (status, body, proposal, released) {
                        (Some(status), Some(body), _, _) => {
                            IdemBegin::Replay(StoredResponse { status, body })
                        }
                        (_, _, Some(p), true) => IdemBegin::Recover(p),
                        (_, _, None, true) => {
                            claim(&tx)?;
                            IdemBegin::Fresh
                        }
                        _ => IdemBegin::InFlight,
                    }
                }
            }
            _ => {
                let held: u64 = tx.query_row(
                    "SELECT COUNT(*) FROM idempotency WHERE grant_id = ?1 AND expires_at > ?2",
                    params![c.grant, c.now],
                    |r| r.get(0),
                )?;
                if held >= c.capacity {
                    IdemBegin::Full
                } else {
                    claim(&tx)?;
                    IdemBegin::Fresh
                }
            }
        };
        tx.commit()?;
        Ok(out)
    }

    fn idempotency_finish(&mut self, key: B256, response: &StoredResponse) -> Result<()> {
        self.conn.execute(
            "UPDATE idempotency SET status = ?2, body = ?3, released = 0 WHERE key = ?1",
            params![hex(key), response.status, response.body],
        )?;
        Ok(())
    }

    fn idempotency_abandon(&mut self, key: B256) -> Result<()> {
        self.conn
            .execute("DELETE FROM idempotency WHERE key = ?1", [hex(key)])?;
        Ok(())
    }

    fn idempotency_link(&mut self, key: B256, proposal_id: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE idempotency SET proposal_id = ?2 WHERE key = ?1",
            params![hex(key), proposal_id],
        )?;
        Ok(())
    }

    fn release_in_flight(&mut self) -> Result<u64> {
        // Claims of version 1 (no request hash) cannot be matched again: dropped.
        let dropped = self.conn.execute(
            "DELETE FROM idempotency WHERE status IS NULL AND request_hash IS NULL",
            [],
        )?;
        let released = self.conn.execute(
            "UPDATE idempotency SET released = 1 WHERE status IS NULL AND released = 0",
            [],
        )?;
        Ok((dropped + released) as u64)
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

    fn add_tx(&mut self, proposal_id: &str, t: &SentTx) -> Result<()> {
        self.conn.execute(
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
    }

    fn txs(&self, proposal_id: &str) -> Result<Vec<SentTx>> {
        let mut stmt = self.conn.prepare(
            "SELECT tx_hash, raw, sender, nonce, at FROM transactions WHERE proposal_id = ?1
             ORDER BY id",
        )?;
        type Row = (String, Option<String>, Option<String>, Option<u64>, u64);
        let rows = stmt.query_map([proposal_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        rows.map(|row: rusqlite::Result<Row>| {
            let (hash, raw, sender, nonce, at) = row?;
            let bad = |what: &str, e: String| Error::Store(format!("stored {what}: {e}"));
            Ok(SentTx {
                tx_hash: parse_b256(&hash)?,
                raw: raw
                    .map(|r| {
                        r.parse::<Bytes>()
                            .map_err(|e| bad("transaction", e.to_string()))
                    })
                    .transpose()?,
                sender: sender
                    .map(|a| {
                        a.parse::<Address>()
                            .map_err(|e| bad("sender", e.to_string()))
                    })
                    .transpose()?,
                nonce,
                at,
            })
        })
        .collect()
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

    fn setting(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?)
    }

    fn set_setting(&mut self, key: &str, value: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    fn charge(
        &mut self,
        proposal_id: &str,
        kind: &str,
        who: &str,
        at: u64,
        wei: U256,
    ) -> Result<()> {
        self.conn.execute(
            "INSERT INTO ledger (proposal_id, kind, who, at, wei) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (proposal_id, kind) DO UPDATE SET wei = excluded.wei",
            params![proposal_id, kind, who, at, wei.to_string()],
        )?;
        Ok(())
    }

    fn charged_since(&self, kind: &str, who: &str, since: u64) -> Result<U256> {
        let mut stmt = self
            .conn
            .prepare("SELECT wei FROM ledger WHERE kind = ?1 AND who = ?2 AND at >= ?3")?;
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
}

#[cfg(test)]
mod tests;
