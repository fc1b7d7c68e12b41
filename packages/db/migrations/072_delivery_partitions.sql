-- Deliveries and their attempts are kept for a time the operator sets (the webhook-sender's
-- DELIVERY_RETENTION_DAYS, FAILED_DELIVERY_RETENTION_DAYS), and old ones go away a day at a time:
-- both tables are partitioned by day, and a day whose time is up is dropped whole (no DELETE
-- that bloats the tables), its rows still pending, held or failed first moved to the default
-- partition (`deliveries_kept`, `delivery_attempts_kept`) with their attempts.
--
-- The partition key is the block's own time (`block_time`, its header's timestamp), not the
-- time the row was written. A block hash fixes its timestamp, so every insert of one (stream,
-- chain, block hash, kind) lands in the same partition, and the unique index (which must hold
-- the partition key) still finds the row a replayed or re-published block event made, on
-- whichever day the replay comes. Once a day's partition is gone its range belongs to the
-- default partition: the rows kept from it are there, and so is any insert for one of its
-- blocks, where the same unique index finds them.
--
-- Rows of the old tables are copied (their block time read from the body they sent), the old
-- tables dropped. Stop the stream-matcher, the webhook-sender and the gateway before applying
-- this migration: their previous versions cannot write the new tables (README, Operations).

-- Moves the old tables out of the way (once; a second run finds `deliveries` partitioned).
DO $$
DECLARE
  r record;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('deliveries')) IS DISTINCT FROM 'r' THEN
    RETURN;
  END IF;
  ALTER TABLE deliveries RENAME TO deliveries_unpartitioned;
  ALTER TABLE delivery_attempts RENAME TO delivery_attempts_unpartitioned;
  FOR r IN
    SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid IN ('deliveries_unpartitioned'::regclass, 'delivery_attempts_unpartitioned'::regclass)
  LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname, left('unpartitioned_' || r.relname, 63));
  END LOOP;
END $$;

CREATE TABLE IF NOT EXISTS deliveries (
  id             uuid        NOT NULL,
  stream_id      uuid        NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
  chain_id       bigint      NOT NULL,
  block_number   bigint      NOT NULL,
  block_hash     bytea       NOT NULL,
  -- The block's timestamp: the partition key (see above).
  block_time     timestamptz NOT NULL,
  confirmed      boolean     NOT NULL,
  removal        boolean     NOT NULL DEFAULT false,
  -- The exact body bytes sent (retries differ only in "retries").
  body           text        NOT NULL,
  status         text        NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'held', 'delivered', 'failed')),
  attempts       integer     NOT NULL DEFAULT 0,
  last_error     text,
  logs_count     integer     NOT NULL DEFAULT 0,
  txs_count      integer     NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL DEFAULT now(),
  delivered_at   timestamptz,
  job_id         text,
  job_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, block_time)
) PARTITION BY RANGE (block_time);
CREATE TABLE IF NOT EXISTS deliveries_kept PARTITION OF deliveries DEFAULT;
-- One delivery per (stream, chain, block, kind): a replayed block event inserts nothing twice.
CREATE UNIQUE INDEX IF NOT EXISTS deliveries_one_per_block
  ON deliveries (stream_id, chain_id, block_hash, confirmed, removal, block_time);
CREATE INDEX IF NOT EXISTS deliveries_by_stream ON deliveries (stream_id, created_at DESC, id);
CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries (stream_id) WHERE status IN ('pending', 'held');
CREATE INDEX IF NOT EXISTS deliveries_failed ON deliveries (stream_id) WHERE status = 'failed';
-- The relay's scan: pending rows in id order, a page at a time.
CREATE INDEX IF NOT EXISTS deliveries_pending_jobs ON deliveries (id) INCLUDE (job_id, job_at) WHERE status = 'pending';
-- The oldest pending delivery (status command, sender gauge): the first entry of each partition.
CREATE INDEX IF NOT EXISTS deliveries_oldest_pending ON deliveries (created_at) WHERE status = 'pending';
-- The default partition alone: which days it holds (a day's partition cannot be made while it
-- holds rows of that day), and which of its rows have expired.
CREATE INDEX IF NOT EXISTS deliveries_kept_by_block_time ON deliveries_kept (block_time);
CREATE INDEX IF NOT EXISTS deliveries_kept_delivered_expiry
  ON deliveries_kept ((greatest(block_time, created_at))) WHERE status = 'delivered';
CREATE INDEX IF NOT EXISTS deliveries_kept_unsettled_expiry
  ON deliveries_kept ((greatest(block_time, created_at))) WHERE status IN ('held', 'failed');

-- Attempts live in the partition of their delivery's day and go with it. No foreign key to
-- deliveries: detaching a referenced partition makes PostgreSQL look for referencing rows across
-- every partition of attempts under an exclusive lock. A delivery deleted row by row (its stream
-- deleted, a kept row expired) deletes its attempts (trigger below); a day dropped drops both.
CREATE TABLE IF NOT EXISTS delivery_attempts (
  delivery_id  uuid        NOT NULL,
  block_time   timestamptz NOT NULL,
  stream_id    uuid        NOT NULL,
  attempt      integer     NOT NULL,
  status_code  integer,
  latency_ms   integer     NOT NULL,
  error        text,
  at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (delivery_id, block_time, attempt)
) PARTITION BY RANGE (block_time);
CREATE TABLE IF NOT EXISTS delivery_attempts_kept PARTITION OF delivery_attempts DEFAULT;
CREATE INDEX IF NOT EXISTS delivery_attempts_kept_by_block_time ON delivery_attempts_kept (block_time);

CREATE OR REPLACE FUNCTION delete_delivery_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM delivery_attempts WHERE delivery_id = OLD.id AND block_time = OLD.block_time;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS deliveries_delete_attempts ON deliveries;
CREATE TRIGGER deliveries_delete_attempts AFTER DELETE ON deliveries
  FOR EACH ROW EXECUTE FUNCTION delete_delivery_attempts();

-- The partitions of one UTC day (`deliveries_pYYYYMMDD`, `delivery_attempts_pYYYYMMDD`), made
-- as plain tables and attached: ATTACH takes a lock that lets reads and writes go on, where
-- CREATE TABLE ... PARTITION OF blocks them. Answers 'exists', 'created', or 'blocked' when the
-- default partition holds rows of that day (blocks timestamped ahead of the clock): the day is
-- then left to the default partition.
CREATE OR REPLACE FUNCTION create_delivery_partition(day date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  from_t timestamptz := day::timestamp AT TIME ZONE 'UTC';
  to_t   timestamptz := (day + 1)::timestamp AT TIME ZONE 'UTC';
  suffix text := to_char(day, 'YYYYMMDD');
  bounds text := format('FOR VALUES FROM (%L) TO (%L)',
                        to_char(day, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(day + 1, 'YYYY-MM-DD') || ' 00:00:00+00');
BEGIN
  IF to_regclass('deliveries_p' || suffix) IS NOT NULL THEN
    RETURN 'exists';
  END IF;
  IF EXISTS (SELECT 1 FROM deliveries_kept WHERE block_time >= from_t AND block_time < to_t)
     OR EXISTS (SELECT 1 FROM delivery_attempts_kept WHERE block_time >= from_t AND block_time < to_t) THEN
    RETURN 'blocked';
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', 'deliveries_p' || suffix);
  EXECUTE format('ALTER TABLE deliveries ATTACH PARTITION %I %s', 'deliveries_p' || suffix, bounds);
  EXECUTE format('CREATE TABLE %I (LIKE delivery_attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
                 'delivery_attempts_p' || suffix);
  EXECUTE format('ALTER TABLE delivery_attempts ATTACH PARTITION %I %s', 'delivery_attempts_p' || suffix, bounds);
  RETURN 'created';
END $$;

-- How far back the history reaches: delivered webhooks of blocks timestamped before this may
-- have been removed (null: nothing removed yet). Moved forward by each removal.
CREATE TABLE IF NOT EXISTS delivery_retention (
  id             boolean PRIMARY KEY DEFAULT true CHECK (id),
  retained_since timestamptz
);
INSERT INTO delivery_retention (id, retained_since) VALUES (true, NULL) ON CONFLICT (id) DO NOTHING;

-- Today and the next days, before the webhook-sender's maintenance takes over making them ahead.
SELECT create_delivery_partition((now() AT TIME ZONE 'UTC')::date + ahead) FROM generate_series(0, 3) AS ahead;

-- The old rows: a partition for each day of the last month that has some (older rows go to the
-- default partition, where the maintenance expires them), then the copy and the old tables gone.
DO $$
DECLARE
  oldest timestamptz;
BEGIN
  IF to_regclass('deliveries_unpartitioned') IS NULL THEN
    RETURN;
  END IF;
  SELECT min(created_at) INTO oldest FROM deliveries_unpartitioned;
  IF oldest IS NOT NULL THEN
    PERFORM create_delivery_partition(d::date)
       FROM generate_series((greatest(oldest, now() - interval '31 days') AT TIME ZONE 'UTC')::date - 1,
                            (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d;
  END IF;
  INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, block_time, confirmed, removal, body,
                          status, attempts, last_error, logs_count, txs_count, created_at, delivered_at, job_id, job_at)
  SELECT id, stream_id, chain_id, block_number, block_hash,
         coalesce((SELECT to_timestamp(t::numeric) FROM (SELECT body::jsonb #>> '{block,timestamp}' AS t) b
                    WHERE t ~ '^[0-9]{1,12}$'), created_at),
         confirmed, removal, body, status, attempts, last_error, logs_count, txs_count, created_at, delivered_at,
         job_id, job_at
    FROM deliveries_unpartitioned;
  INSERT INTO delivery_attempts (delivery_id, block_time, stream_id, attempt, status_code, latency_ms, error, at)
  SELECT a.delivery_id, d.block_time, d.stream_id, a.attempt, a.status_code, a.latency_ms, a.error, a.at
    FROM delivery_attempts_unpartitioned a JOIN deliveries d ON d.id = a.delivery_id;
  DROP TABLE delivery_attempts_unpartitioned;
  DROP TABLE deliveries_unpartitioned;
END $$;
