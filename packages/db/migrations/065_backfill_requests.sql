-- An operator's request that the pipeline process a block range again (`pnpm admin backfill`):
-- the chain's follower re-publishes the range from the node, a chunk per step once at the head,
-- and moves next_block on after Kafka acknowledged each chunk (a crash repeats at most one chunk:
-- consumers are idempotent). Done when next_block passes to_block.
CREATE TABLE IF NOT EXISTS backfill_requests (
  id           bigserial   PRIMARY KEY,
  chain_id     bigint      NOT NULL,
  from_block   bigint      NOT NULL CHECK (from_block >= 0),
  to_block     bigint      NOT NULL CHECK (to_block >= from_block),
  next_block   bigint      NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX IF NOT EXISTS backfill_requests_open ON backfill_requests (chain_id, id) WHERE finished_at IS NULL;
