-- The store of `pace serve` on PostgreSQL, shared by every instance that serves the same
-- accounts. Times are unix seconds (as the service counts them) except the leases', which are
-- milliseconds of the database's own clock, so that instances whose clocks disagree still
-- agree on who holds a lease.

-- The hash-chained audit log and its head (one row, locked by every append: one chain however
-- many instances write).
CREATE TABLE audit (
    seq BIGINT PRIMARY KEY,
    version INTEGER NOT NULL,
    at BIGINT NOT NULL,
    entry TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL
);
INSERT INTO audit_head (id, seq, hash)
VALUES (1, 0, '0x0000000000000000000000000000000000000000000000000000000000000000');

-- Proposals and their state machine; `owner` is the instance that last took one to confirm.
CREATE TABLE proposals (
    id TEXT PRIMARY KEY,
    caller TEXT NOT NULL,
    tenant TEXT NOT NULL,
    intent_hash TEXT NOT NULL,
    identity TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    owner TEXT,
    body TEXT NOT NULL,
    seq BIGSERIAL
);
CREATE INDEX proposals_by_intent ON proposals (caller, intent_hash);
CREATE INDEX proposals_by_state ON proposals (state);
CREATE INDEX proposals_by_tenant ON proposals (tenant, created_at);
CREATE INDEX proposals_by_identity ON proposals (tenant, identity, created_at);

CREATE TABLE confirmations (
    proposal_id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);

-- Idempotency records: the claim of the instance handling a request, then its answer.
CREATE TABLE idempotency (
    key TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    status INTEGER,
    body TEXT,
    grant_id TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    proposal_id TEXT,
    released BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at BIGINT NOT NULL,
    instance TEXT,
    claimed_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX idempotency_by_grant ON idempotency (grant_id, expires_at);
CREATE INDEX idempotency_by_instance ON idempotency (instance) WHERE status IS NULL;

-- One row per (account, lane, sequence): the slashing-protection backstop. A sequence holds
-- one digest; its earlier holders, once the chain showed them dead, are kept in `superseded`.
CREATE TABLE reservations (
    account TEXT NOT NULL,
    lane BIGINT NOT NULL,
    sequence BIGINT NOT NULL,
    proposal_id TEXT NOT NULL,
    state TEXT NOT NULL,
    digest TEXT,
    valid_until BIGINT,
    holder TEXT,
    fence BIGINT NOT NULL DEFAULT 0,
    at BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (account, lane, sequence)
);
CREATE INDEX reservations_by_proposal ON reservations (proposal_id);
CREATE TABLE superseded (
    id BIGSERIAL PRIMARY KEY,
    account TEXT NOT NULL,
    lane BIGINT NOT NULL,
    sequence BIGINT NOT NULL,
    proposal_id TEXT NOT NULL,
    state TEXT NOT NULL,
    digest TEXT,
    valid_until BIGINT,
    by_proposal TEXT NOT NULL,
    at BIGINT NOT NULL
);

-- Every transaction sent for a PDR, recorded before its broadcast.
CREATE TABLE transactions (
    id BIGSERIAL PRIMARY KEY,
    proposal_id TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    at BIGINT NOT NULL,
    raw TEXT,
    sender TEXT,
    nonce BIGINT
);
CREATE INDEX transactions_by_proposal ON transactions (proposal_id, id);

CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- What approval thresholds (value per grant) and gas budgets (gas per tenant) count.
CREATE TABLE ledger (
    proposal_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    who TEXT NOT NULL,
    at BIGINT NOT NULL,
    wei TEXT NOT NULL,
    PRIMARY KEY (proposal_id, kind)
);
CREATE INDEX ledger_by_who ON ledger (kind, who, at);

-- Instances and their leases (milliseconds of the database's clock).
CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    relayer TEXT,
    started_ms BIGINT NOT NULL,
    lease_until BIGINT NOT NULL
);
CREATE TABLE lane_leases (
    account TEXT NOT NULL,
    lane BIGINT NOT NULL,
    holder TEXT NOT NULL,
    fence BIGINT NOT NULL,
    lease_until BIGINT NOT NULL,
    used_ms BIGINT NOT NULL,
    PRIMARY KEY (account, lane)
);
CREATE TABLE relayer_leases (
    address TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    fence BIGINT NOT NULL,
    lease_until BIGINT NOT NULL
);

-- Request counts per grant and minute: one rate however many instances serve the grant.
CREATE TABLE rate_windows (
    grant_id TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (grant_id, window_start)
);

CREATE TABLE mcp_sessions (
    id TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL,
    instance TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_seen BIGINT NOT NULL
);
CREATE INDEX mcp_sessions_by_grant ON mcp_sessions (grant_id, last_seen);

-- Published configuration: the grants and the tenants every instance follows.
CREATE TABLE config (
    kind TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    body TEXT NOT NULL,
    at BIGINT NOT NULL
);
