-- The unsettled deliveries (pending, held, failed) in a small table of their own, the way a queue
-- is kept apart from its archive. Until now the relay, the oldest-pending gauge and the day's
-- move found them through partial indexes of `deliveries` whose predicates name `status`; every
-- delivery left those indexes a dead entry when it was delivered, and the day's partition is
-- vacuumed only when its dead rows reach a fifth of its size (3.4 M entries at 200/s), so the
-- relay's 2-second pass grew from 3 to 15 ms within an hour. Naming `status` in an index also
-- kept every status change from being a HOT update: each delivered webhook wrote a second entry
-- into every index of its partition.
--
-- Now `deliveries` stays the archive: no index of a day's partition names a column that a
-- delivery's outcome changes (status, attempts, last_error, delivered_at, job_id, job_at), and
-- its partitions leave room on each page (fillfactor) for that update to stay on the page. The
-- queue holds a row for each delivery not yet delivered, kept by statement triggers on
-- `deliveries` in the writer's own transaction, so no writer can forget it; it stays as small as
-- the backlog, and autovacuum cleans it after a few thousand changes, not after a fifth of a day.

CREATE TABLE IF NOT EXISTS delivery_queue (
  id         uuid        PRIMARY KEY,
  block_time timestamptz NOT NULL,
  stream_id  uuid        NOT NULL,
  status     text        NOT NULL CHECK (status IN ('pending', 'held', 'failed')),
  created_at timestamptz NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 2000);
-- The relay walks the pending ones in id order (the primary key); the gauge wants the oldest.
CREATE INDEX IF NOT EXISTS delivery_queue_oldest_pending ON delivery_queue (created_at) WHERE status = 'pending';
-- A stream's held ones (re-activation), and a day's (the partition's drop moves them).
CREATE INDEX IF NOT EXISTS delivery_queue_by_stream ON delivery_queue (stream_id, status);
CREATE INDEX IF NOT EXISTS delivery_queue_by_block_time ON delivery_queue (block_time);

CREATE OR REPLACE FUNCTION queue_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A row moved to the default partition (a day dropped) is already queued: same id, same time.
  INSERT INTO delivery_queue (id, block_time, stream_id, status, created_at)
  SELECT id, block_time, stream_id, status, created_at FROM inserted WHERE status <> 'delivered'
  ON CONFLICT (id) DO UPDATE SET status = excluded.status, block_time = excluded.block_time;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION queue_updated_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM delivery_queue q USING new_rows n
   WHERE q.id = n.id AND n.status = 'delivered';
  INSERT INTO delivery_queue (id, block_time, stream_id, status, created_at)
  SELECT n.id, n.block_time, n.stream_id, n.status, n.created_at
    FROM old_rows o JOIN new_rows n ON n.id = o.id AND n.block_time = o.block_time
   WHERE n.status <> 'delivered' AND n.status IS DISTINCT FROM o.status
  ON CONFLICT (id) DO UPDATE SET status = excluded.status;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION queue_deleted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM delivery_queue q USING deleted d WHERE q.id = d.id AND d.status <> 'delivered';
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS deliveries_queue_insert ON deliveries;
CREATE TRIGGER deliveries_queue_insert AFTER INSERT ON deliveries
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION queue_inserted_deliveries();
DROP TRIGGER IF EXISTS deliveries_queue_update ON deliveries;
CREATE TRIGGER deliveries_queue_update AFTER UPDATE ON deliveries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_updated_deliveries();
DROP TRIGGER IF EXISTS deliveries_queue_delete ON deliveries;
CREATE TRIGGER deliveries_queue_delete AFTER DELETE ON deliveries
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION queue_deleted_deliveries();

-- The rows already there (a deployment upgrading), once: the triggers above hold their locks until
-- this transaction ends, so no write falls between this copy and the triggers.
INSERT INTO delivery_queue (id, block_time, stream_id, status, created_at)
SELECT id, block_time, stream_id, status, created_at FROM deliveries WHERE status <> 'delivered'
ON CONFLICT (id) DO NOTHING;

-- The indexes that named `status`, gone; a backfill's webhooks are found by its id alone.
DROP INDEX IF EXISTS deliveries_pending;
DROP INDEX IF EXISTS deliveries_failed;
DROP INDEX IF EXISTS deliveries_pending_jobs;
DROP INDEX IF EXISTS deliveries_oldest_pending;
DROP INDEX IF EXISTS deliveries_by_backfill;
CREATE INDEX IF NOT EXISTS deliveries_by_backfill_id ON deliveries (backfill_id) WHERE backfill_id <> 0;

-- Room on each page of a day's partition for its rows' outcome updates to stay HOT. The sender
-- records a batch of deliveries in one statement, and a batch is mostly one block's webhooks,
-- written side by side: within that statement nothing on the page can be pruned yet, so the page
-- must have room for a new version of each of its rows (fillfactor 50). So that the room is that
-- of a small row, the body goes to TOAST (compressed) whenever the row would pass 128 bytes
-- (toast_tuple_target), where an outcome's update does not copy it: a soak's 15 KB bodies,
-- compressed to 1.4 KB, kept inline at fillfactor 50 made the partition 1.6 times as large as
-- before; out of line the day costs what it did, and every update is HOT. The pages of the rows
-- already there keep what they have; new rows get the room.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'deliveries'::regclass AND c.relname ~ '^deliveries_p[0-9]{8}$'
  LOOP
    EXECUTE format('ALTER TABLE %I SET (fillfactor = 50, toast_tuple_target = 128)', r.relname);
  END LOOP;
END $$;

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
  EXECUTE format('CREATE TABLE %I (LIKE deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS) WITH (fillfactor = 50, toast_tuple_target = 128)',
                 'deliveries_p' || suffix);
  EXECUTE format('ALTER TABLE deliveries ATTACH PARTITION %I %s', 'deliveries_p' || suffix, bounds);
  EXECUTE format('CREATE TABLE %I (LIKE delivery_attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
                 'delivery_attempts_p' || suffix);
  EXECUTE format('ALTER TABLE delivery_attempts ATTACH PARTITION %I %s', 'delivery_attempts_p' || suffix, bounds);
  RETURN 'created';
END $$;
