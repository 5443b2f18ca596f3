//! The SQLite schema, by version, and the migrations between versions.
//!
//! Version 1 held the audit log, proposals, confirmations, idempotency records, reservations
//! and transaction hashes. Version 2 adds what keeps retries from paying twice and tenants
//! apart: client idempotency keys (grant, canonical request hash, the proposal reached,
//! expiry), each transaction's signed bytes and relayer nonce, each proposal's tenant and
//! intent identity, settings (the kill switch) and a ledger of charges (value per grant, gas
//! per tenant). Version 3 is what several instances share on PostgreSQL, kept the same here:
//! one reservation row per (account, lane, sequence) with its digest and the fencing token it
//! was reserved under (earlier rows of a sequence kept in `superseded`), the instance that
//! handles each proposal and holds each claim, instances and their leases (lanes, relayers),
//! request-rate windows, MCP sessions and published configuration. Version 4 keeps the count
//! of each grant's idempotency keys beside them, kept by triggers in the transaction that
//! adds or drops a key, so that the capacity check reads one row instead of counting the keys
//! (linear in the keys held, up to the grant's rate times the retention). An older store is
//! migrated in place, in one transaction, before use; its audit records are untouched, so its
//! hash chain verifies as before.

use crate::{Result, identity::intent_identity, store::Proposal};
use rusqlite::{Connection, params};

/// The schema version this build writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 4;

/// Version 1, as first created.
const V1: &str = "
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

/// From version 1 to 2 (the proposals' new columns are filled in by [`migrate`]).
const V1_TO_V2: &str = "
ALTER TABLE idempotency ADD COLUMN grant_id TEXT;
ALTER TABLE idempotency ADD COLUMN request_hash TEXT;
ALTER TABLE idempotency ADD COLUMN proposal_id TEXT;
ALTER TABLE idempotency ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idempotency_by_grant ON idempotency (grant_id, expires_at);
ALTER TABLE transactions ADD COLUMN raw TEXT;
ALTER TABLE transactions ADD COLUMN sender TEXT;
ALTER TABLE transactions ADD COLUMN nonce INTEGER;
CREATE INDEX transactions_by_proposal ON transactions (proposal_id, id);
ALTER TABLE proposals ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE proposals ADD COLUMN identity TEXT;
CREATE INDEX proposals_by_tenant ON proposals (tenant, created_at);
CREATE INDEX proposals_by_identity ON proposals (tenant, identity, created_at);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ledger (
    proposal_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    who TEXT NOT NULL,
    at INTEGER NOT NULL,
    wei TEXT NOT NULL,
    PRIMARY KEY (proposal_id, kind)
);
CREATE INDEX ledger_by_who ON ledger (kind, who, at);
";

/// From version 2 to 3.
const V2_TO_V3: &str = "
CREATE TABLE reservations_v3 (
    account TEXT NOT NULL,
    lane INTEGER NOT NULL,
    sequence INTEGER NOT NULL,
    proposal_id TEXT NOT NULL,
    state TEXT NOT NULL,
    digest TEXT,
    valid_until INTEGER,
    holder TEXT,
    fence INTEGER NOT NULL DEFAULT 0,
    at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account, lane, sequence)
);
CREATE TABLE superseded (
    id INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    lane INTEGER NOT NULL,
    sequence INTEGER NOT NULL,
    proposal_id TEXT NOT NULL,
    state TEXT NOT NULL,
    digest TEXT,
    valid_until INTEGER,
    by_proposal TEXT NOT NULL,
    at INTEGER NOT NULL
);
INSERT INTO reservations_v3 (account, lane, sequence, proposal_id, state, digest, valid_until)
SELECT account, lane, sequence, json_extract(body, '$.proposal_id'), state,
       json_extract(body, '$.digest'), json_extract(body, '$.valid_until')
FROM reservations r WHERE r.id = (
    SELECT r2.id FROM reservations r2
    WHERE r2.account = r.account AND r2.lane = r.lane AND r2.sequence = r.sequence
    ORDER BY (r2.state <> 'dead') DESC, r2.id DESC LIMIT 1);
INSERT INTO superseded (account, lane, sequence, proposal_id, state, digest, valid_until,
                        by_proposal, at)
SELECT account, lane, sequence, json_extract(body, '$.proposal_id'), state,
       json_extract(body, '$.digest'), json_extract(body, '$.valid_until'), '', 0
FROM reservations r WHERE r.id <> (
    SELECT r2.id FROM reservations r2
    WHERE r2.account = r.account AND r2.lane = r.lane AND r2.sequence = r.sequence
    ORDER BY (r2.state <> 'dead') DESC, r2.id DESC LIMIT 1);
DROP TABLE reservations;
ALTER TABLE reservations_v3 RENAME TO reservations;
CREATE INDEX reservations_by_proposal ON reservations (proposal_id);
ALTER TABLE proposals ADD COLUMN owner TEXT;
ALTER TABLE idempotency ADD COLUMN instance TEXT;
ALTER TABLE idempotency ADD COLUMN claimed_ms INTEGER NOT NULL DEFAULT 0;
CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    relayer TEXT,
    started_ms INTEGER NOT NULL,
    lease_until INTEGER NOT NULL
);
CREATE TABLE lane_leases (
    account TEXT NOT NULL,
    lane INTEGER NOT NULL,
    holder TEXT NOT NULL,
    fence INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    used_ms INTEGER NOT NULL,
    PRIMARY KEY (account, lane)
);
CREATE TABLE relayer_leases (
    address TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    fence INTEGER NOT NULL,
    lease_until INTEGER NOT NULL
);
CREATE TABLE rate_windows (
    grant_id TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (grant_id, window_start)
);
CREATE TABLE mcp_sessions (
    id TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL,
    instance TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
);
CREATE INDEX mcp_sessions_by_grant ON mcp_sessions (grant_id, last_seen);
CREATE TABLE config (
    kind TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    at INTEGER NOT NULL
);
";

/// Version 3 to 4: each grant's count of idempotency keys, kept by triggers (a key whose
/// grant is unknown, from version 1, counts for none).
const V3_TO_V4: &str = "
CREATE TABLE idempotency_held (
    grant_id TEXT PRIMARY KEY NOT NULL,
    held INTEGER NOT NULL
);
INSERT INTO idempotency_held (grant_id, held)
    SELECT grant_id, COUNT(*) FROM idempotency WHERE grant_id IS NOT NULL GROUP BY grant_id;
CREATE TRIGGER idempotency_held_insert AFTER INSERT ON idempotency
WHEN NEW.grant_id IS NOT NULL BEGIN
    INSERT INTO idempotency_held (grant_id, held) VALUES (NEW.grant_id, 1)
        ON CONFLICT (grant_id) DO UPDATE SET held = held + 1;
END;
CREATE TRIGGER idempotency_held_delete AFTER DELETE ON idempotency
WHEN OLD.grant_id IS NOT NULL BEGIN
    UPDATE idempotency_held SET held = held - 1 WHERE grant_id = OLD.grant_id;
END;
CREATE TRIGGER idempotency_held_regrant AFTER UPDATE OF grant_id ON idempotency
WHEN OLD.grant_id IS NOT NEW.grant_id BEGIN
    UPDATE idempotency_held SET held = held - 1 WHERE grant_id = OLD.grant_id;
    INSERT INTO idempotency_held (grant_id, held) SELECT NEW.grant_id, 1
        WHERE NEW.grant_id IS NOT NULL
        ON CONFLICT (grant_id) DO UPDATE SET held = held + 1;
END;
";

/// Brings the store in `conn` to [`SCHEMA_VERSION`]: creates it when empty, migrates an
/// older version, refuses a newer one.
pub(super) fn migrate(conn: &Connection) -> Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    match version {
        0 => {
            conn.execute_batch(&format!(
                "BEGIN; {V1} {V1_TO_V2} {V2_TO_V3} {V3_TO_V4} PRAGMA user_version = {SCHEMA_VERSION}; \
                 COMMIT;"
            ))?;
        }
        1..=3 => {
            conn.execute_batch("BEGIN;")?;
            let out = if version == 1 {
                conn.execute_batch(V1_TO_V2)
                    .map_err(crate::Error::from)
                    .and_then(|()| fill_proposals(conn))
            } else {
                Ok(())
            }
            .and_then(|()| {
                if version <= 2 {
                    conn.execute_batch(V2_TO_V3)?;
                }
                conn.execute_batch(V3_TO_V4).map_err(crate::Error::from)
            });
            if let Err(e) = out {
                let _ = conn.execute_batch("ROLLBACK;");
                return Err(e);
            }
            conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"))?;
        }
        SCHEMA_VERSION => {}
        other => {
            return Err(crate::Error::Store(format!(
                "store schema version {other}; this build reads versions 1 to {SCHEMA_VERSION}"
            )));
        }
    }
    Ok(())
}

/// Fills the identity column of proposals recorded by version 1 (their tenant is the
/// default one: a version-1 service served one account).
fn fill_proposals(conn: &Connection) -> Result<()> {
    let rows: Vec<(String, String)> = {
        let mut stmt = conn.prepare("SELECT id, body FROM proposals")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (id, body) in rows {
        let p: Proposal = serde_json::from_str(&body)?;
        conn.execute(
            "UPDATE proposals SET identity = ?2 WHERE id = ?1",
            params![id, intent_identity(&p.intent).to_string()],
        )?;
    }
    Ok(())
}

/// A version-1 store, as a build of that version created it: for the migration's tests.
#[cfg(test)]
pub(super) fn create_v1(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!("BEGIN; {V1} PRAGMA user_version = 1; COMMIT;"))?;
    Ok(())
}

/// A version-2 store, as a build of that version created it: for the migration's tests.
#[cfg(test)]
pub(super) fn create_v2(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!(
        "BEGIN; {V1} {V1_TO_V2} PRAGMA user_version = 2; COMMIT;"
    ))?;
    Ok(())
}

/// A version-3 store, as a build of that version created it: for the migration's tests.
#[cfg(test)]
pub(super) fn create_v3(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!(
        "BEGIN; {V1} {V1_TO_V2} {V2_TO_V3} PRAGMA user_version = 3; COMMIT;"
    ))?;
    Ok(())
}
