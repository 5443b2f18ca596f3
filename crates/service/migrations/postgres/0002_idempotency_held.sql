-- A grant's idempotency records, counted as they are written: the capacity check of a new key
-- reads one row instead of counting the grant's keys (up to its rate times the retention).
-- Kept by statement triggers over the rows each statement inserted or deleted (and by a row
-- trigger for the rare update that moves a record to another grant), in the writer's own
-- transaction, so the count commits or rolls back with the records.
CREATE TABLE idempotency_held (
    grant_id TEXT PRIMARY KEY,
    held BIGINT NOT NULL CHECK (held >= 0)
);

INSERT INTO idempotency_held (grant_id, held)
SELECT grant_id, count(*) FROM idempotency GROUP BY grant_id;

CREATE FUNCTION idempotency_held_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO idempotency_held (grant_id, held)
    SELECT grant_id, count(*) FROM added GROUP BY grant_id
    ON CONFLICT (grant_id) DO UPDATE SET held = idempotency_held.held + EXCLUDED.held;
    RETURN NULL;
END $$;

CREATE FUNCTION idempotency_held_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE idempotency_held h SET held = h.held - r.n
    FROM (SELECT grant_id, count(*) AS n FROM removed GROUP BY grant_id) r
    WHERE h.grant_id = r.grant_id;
    RETURN NULL;
END $$;

CREATE FUNCTION idempotency_held_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE idempotency_held SET held = held - 1 WHERE grant_id = OLD.grant_id;
    INSERT INTO idempotency_held (grant_id, held) VALUES (NEW.grant_id, 1)
    ON CONFLICT (grant_id) DO UPDATE SET held = idempotency_held.held + 1;
    RETURN NULL;
END $$;

CREATE TRIGGER idempotency_held_on_insert AFTER INSERT ON idempotency
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT
    EXECUTE FUNCTION idempotency_held_added();

CREATE TRIGGER idempotency_held_on_delete AFTER DELETE ON idempotency
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
    EXECUTE FUNCTION idempotency_held_removed();

CREATE TRIGGER idempotency_held_on_move AFTER UPDATE OF grant_id ON idempotency
    FOR EACH ROW WHEN (OLD.grant_id IS DISTINCT FROM NEW.grant_id)
    EXECUTE FUNCTION idempotency_held_moved();
