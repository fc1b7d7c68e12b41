-- Per-stream backfills (POST /streams/evm/{id}/backfill): the owner of a stream asks for the
-- webhooks a block range would have sent it. A stream-matcher instance works through the range a
-- chunk at a time, the chunk's delivery rows and the row's progress committed in one transaction,
-- so a restart anywhere resumes at next_block with nothing sent twice or skipped.
--
-- The stream's config and addresses are copied when the request is made: the range is evaluated
-- as the stream was then, whatever changes after. A dry run evaluates the range and counts, and
-- stores no delivery.
CREATE TABLE IF NOT EXISTS stream_backfills (
  id                 bigserial   PRIMARY KEY,
  stream_id          uuid        NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
  account_id         uuid        NOT NULL,
  chain_id           bigint      NOT NULL,
  from_block         bigint      NOT NULL,
  to_block           bigint      NOT NULL CHECK (to_block >= from_block),
  -- The first block not yet evaluated.
  next_block         bigint      NOT NULL,
  dry_run            boolean     NOT NULL DEFAULT false,
  config             jsonb       NOT NULL,
  addresses          bytea[]     NOT NULL,
  status             text        NOT NULL DEFAULT 'running'
                     CHECK (status IN ('running', 'done', 'cancelled', 'failed')),
  -- Blocks evaluated, by where they came from: the query tables, or the chain's node.
  blocks_from_tables bigint      NOT NULL DEFAULT 0,
  blocks_from_node   bigint      NOT NULL DEFAULT 0,
  -- Blocks with a match, and webhooks stored (or, in a dry run, that would be).
  matched_blocks     bigint      NOT NULL DEFAULT 0,
  webhooks           bigint      NOT NULL DEFAULT 0,
  error              text,
  -- Why it is not moving (the next block is not final yet, the stream is paused, ...); null while it moves.
  waiting            text,
  -- The matcher instance working on it, until lease_until (another one takes over after).
  lease_owner        text,
  lease_until        timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz
);
-- The workers' pick: the running backfill that moved least recently (each takes turns).
CREATE INDEX IF NOT EXISTS stream_backfills_running ON stream_backfills (updated_at) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS stream_backfills_by_stream ON stream_backfills (stream_id, id DESC);
CREATE INDEX IF NOT EXISTS stream_backfills_by_account ON stream_backfills (account_id) WHERE status = 'running';

-- A backfill's webhook of a block is a delivery of its own beside the live one of the same block
-- (0: live). The one-per-block key holds it, so a chunk evaluated again stores nothing twice.
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS backfill_id bigint NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX IF NOT EXISTS deliveries_one_per_block_and_backfill
  ON deliveries (stream_id, chain_id, block_hash, confirmed, removal, backfill_id, block_time);
DROP INDEX IF EXISTS deliveries_one_per_block;
-- A backfill's webhooks by status (its progress in GET .../backfill/{id}); live rows are not in it.
CREATE INDEX IF NOT EXISTS deliveries_by_backfill ON deliveries (backfill_id, status) WHERE backfill_id <> 0;
