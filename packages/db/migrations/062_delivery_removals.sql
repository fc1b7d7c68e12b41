-- A removal notice: a delivery that tells a stream's receiver that unconfirmed data it was sent
-- for a block is retracted (a reorg orphaned the block before it was confirmed). Streams opt in
-- with `notifyRemovals`. A block has at most one of each kind per stream: its unconfirmed
-- webhook, its confirmed one and its removal notice, so the uniqueness that makes a replayed
-- block event insert nothing twice now includes the kind.
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS removal boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX IF NOT EXISTS deliveries_one_per_block
  ON deliveries (stream_id, chain_id, block_hash, confirmed, removal);
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_stream_id_chain_id_block_hash_confirmed_key;
