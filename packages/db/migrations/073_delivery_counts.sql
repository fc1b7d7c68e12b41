-- Counters of the deliveries, so that /stats, the /history total, `x-queue-size`, the status
-- command and `admin streams list` cost the same whatever the history's size, and go on counting
-- what retention removed.
--
-- Per stream and day (the UTC day of the block's time, the partition's day):
--   kept, pending, held, failed: the rows there are now, by status (kept: all of them);
--   delivered, logs, txs: deliveries delivered (with their logs and transactions), as /stats
--     counts them: a replay takes one back until it is delivered again; a removal keeps them;
--   failed_attempts: attempts that were not a 2xx (/stats' totalWebhooksFailed).
-- Day -infinity holds what days whose partition was dropped had delivered.
--
-- Writers never update a counter: statement triggers append one delta row per stream and day
-- that a statement changed (no row lock shared by concurrent deliveries, no deadlock), and the
-- webhook-sender's maintenance folds the deltas into delivery_counts every second or so. A
-- reader sums both, in one snapshot: exact at every moment.
CREATE TABLE IF NOT EXISTS delivery_counts (
  stream_id       uuid   NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
  day             date   NOT NULL,
  kept            bigint NOT NULL DEFAULT 0,
  pending         bigint NOT NULL DEFAULT 0,
  held            bigint NOT NULL DEFAULT 0,
  failed          bigint NOT NULL DEFAULT 0,
  delivered       bigint NOT NULL DEFAULT 0,
  logs            bigint NOT NULL DEFAULT 0,
  txs             bigint NOT NULL DEFAULT 0,
  failed_attempts bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (stream_id, day)
);

-- No foreign key: an append costs no lock on the stream; deltas of a deleted stream are dropped
-- when folded, and readers skip them.
CREATE TABLE IF NOT EXISTS delivery_count_deltas (
  stream_id       uuid   NOT NULL,
  day             date   NOT NULL,
  kept            bigint NOT NULL DEFAULT 0,
  pending         bigint NOT NULL DEFAULT 0,
  held            bigint NOT NULL DEFAULT 0,
  failed          bigint NOT NULL DEFAULT 0,
  delivered       bigint NOT NULL DEFAULT 0,
  logs            bigint NOT NULL DEFAULT 0,
  txs             bigint NOT NULL DEFAULT 0,
  failed_attempts bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS delivery_count_deltas_by_stream ON delivery_count_deltas (stream_id);

-- The retention's own moves (rows kept from a dropped day, re-inserted into the default
-- partition) set tributary.moving_deliveries for their transaction: they count those rows themselves.
CREATE OR REPLACE FUNCTION count_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('tributary.moving_deliveries', true) = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO delivery_count_deltas (stream_id, day, kept, pending, held, failed, delivered, logs, txs)
  SELECT stream_id, (block_time AT TIME ZONE 'UTC')::date, count(*),
         count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'held'),
         count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE status = 'delivered'),
         coalesce(sum(logs_count) FILTER (WHERE status = 'delivered'), 0),
         coalesce(sum(txs_count) FILTER (WHERE status = 'delivered'), 0)
    FROM inserted GROUP BY 1, 2;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION count_updated_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_count_deltas (stream_id, day, pending, held, failed, delivered, logs, txs)
  SELECT n.stream_id, (n.block_time AT TIME ZONE 'UTC')::date,
         sum((n.status = 'pending')::int - (o.status = 'pending')::int),
         sum((n.status = 'held')::int - (o.status = 'held')::int),
         sum((n.status = 'failed')::int - (o.status = 'failed')::int),
         sum((n.status = 'delivered')::int - (o.status = 'delivered')::int),
         sum(CASE WHEN n.status = 'delivered' THEN n.logs_count ELSE 0 END
             - CASE WHEN o.status = 'delivered' THEN o.logs_count ELSE 0 END),
         sum(CASE WHEN n.status = 'delivered' THEN n.txs_count ELSE 0 END
             - CASE WHEN o.status = 'delivered' THEN o.txs_count ELSE 0 END)
    FROM old_rows o JOIN new_rows n ON n.id = o.id AND n.block_time = o.block_time
   WHERE n.status IS DISTINCT FROM o.status
   GROUP BY 1, 2;
  RETURN NULL;
END $$;

-- A row deleted (kept rows expiring; a stream deleted) leaves the current counts; what was
-- delivered stays delivered.
CREATE OR REPLACE FUNCTION count_deleted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_count_deltas (stream_id, day, kept, pending, held, failed)
  SELECT stream_id, (block_time AT TIME ZONE 'UTC')::date, -count(*),
         -count(*) FILTER (WHERE status = 'pending'), -count(*) FILTER (WHERE status = 'held'),
         -count(*) FILTER (WHERE status = 'failed')
    FROM deleted GROUP BY 1, 2;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION count_inserted_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('tributary.moving_deliveries', true) = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO delivery_count_deltas (stream_id, day, failed_attempts)
  SELECT stream_id, (block_time AT TIME ZONE 'UTC')::date, count(*)
    FROM inserted WHERE status_code IS NULL OR status_code NOT BETWEEN 200 AND 299
   GROUP BY 1, 2;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS deliveries_count_insert ON deliveries;
CREATE TRIGGER deliveries_count_insert AFTER INSERT ON deliveries
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_deliveries();
DROP TRIGGER IF EXISTS deliveries_count_update ON deliveries;
CREATE TRIGGER deliveries_count_update AFTER UPDATE ON deliveries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_updated_deliveries();
DROP TRIGGER IF EXISTS deliveries_count_delete ON deliveries;
CREATE TRIGGER deliveries_count_delete AFTER DELETE ON deliveries
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_deliveries();
DROP TRIGGER IF EXISTS delivery_attempts_count_insert ON delivery_attempts;
CREATE TRIGGER delivery_attempts_count_insert AFTER INSERT ON delivery_attempts
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_attempts();

-- The rows already there (a deployment upgrading), counted once: the triggers above hold their
-- locks until this transaction ends, so no write falls between this count and the triggers.
INSERT INTO delivery_count_deltas (stream_id, day, kept, pending, held, failed, delivered, logs, txs)
SELECT stream_id, (block_time AT TIME ZONE 'UTC')::date, count(*),
       count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'held'),
       count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE status = 'delivered'),
       coalesce(sum(logs_count) FILTER (WHERE status = 'delivered'), 0),
       coalesce(sum(txs_count) FILTER (WHERE status = 'delivered'), 0)
  FROM deliveries
 WHERE NOT EXISTS (SELECT 1 FROM delivery_counts) AND NOT EXISTS (SELECT 1 FROM delivery_count_deltas)
 GROUP BY 1, 2;
INSERT INTO delivery_count_deltas (stream_id, day, failed_attempts)
SELECT stream_id, (block_time AT TIME ZONE 'UTC')::date, count(*)
  FROM delivery_attempts
 WHERE (status_code IS NULL OR status_code NOT BETWEEN 200 AND 299)
   AND NOT EXISTS (SELECT 1 FROM delivery_counts)
   AND NOT EXISTS (SELECT 1 FROM delivery_count_deltas WHERE failed_attempts <> 0)
 GROUP BY 1, 2;
