-- The genesis block hash of the chain the checkpoint belongs to: a node that serves another chain
-- (a devnet restarted from genesis, another network behind RPC_URL) is recognised at start instead of
-- being read as a reorg. NULL for checkpoints stored before it was recorded.
ALTER TABLE follower_checkpoints ADD COLUMN IF NOT EXISTS genesis_hash bytea;
