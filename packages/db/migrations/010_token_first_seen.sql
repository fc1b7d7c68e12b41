-- The block in which the follower first saw a token: when a reorg removes that block, the token's
-- metadata (read at the orphaned branch) is forgotten and read again on the new branch.
ALTER TABLE tokens ADD COLUMN IF NOT EXISTS first_seen_hash bytea;
CREATE INDEX IF NOT EXISTS tokens_first_seen ON tokens (chain_id, first_seen_hash);
