//! The SQLite schema, by version, and the migrations between versions.
//!
//! Version 1 held the audit log, proposals, confirmations, idempotency records, reservations
//! and transaction hashes. Version 2 adds what keeps retries from paying twice and tenants
//! apart: client idempotency keys (grant, canonical request hash, the proposal reached,
//! expiry), each transaction's signed bytes and relayer nonce, each proposal's tenant and
//! intent identity, settings (the kill switch) and a ledger of charges (value per grant, gas
//! per tenant). A version-1 store is migrated in place, in one transaction, before use; its
//! audit records are untouched, so its hash chain verifies as before.

use crate::{Result, identity::intent_identity, store::Proposal};
use rusqlite::{Connection, params};

/// The schema version this build writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 2;

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

/// Brings the store in `conn` to [`SCHEMA_VERSION`]: creates it when empty, migrates an
/// older version, refuses a newer one.
pub(super) fn migrate(conn: &Connection) -> Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    match version {
        0 => {
            conn.execute_batch(&format!(
                "BEGIN; {V1} {V1_TO_V2} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))?;
        }
        1 => {
            conn.execute_batch("BEGIN;")?;
            let out = conn
                .execute_batch(V1_TO_V2)
                .map_err(crate::Error::from)
                .and_then(|()| fill_proposals(conn));
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
