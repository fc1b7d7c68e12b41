-- `removed` events carry the orphaned block's header, timestamp included, even after a restart.
ALTER TABLE follower_blocks ADD COLUMN IF NOT EXISTS timestamp bigint NOT NULL DEFAULT 0;
