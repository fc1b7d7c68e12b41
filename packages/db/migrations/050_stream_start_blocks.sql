-- Per chain, the last block the follower had published when the stream was created (or when
-- the chain was added to it): the matcher delivers only later blocks. A new stream is thus not
-- flooded with history, and the rule does not depend on a chain's clock agreeing with ours.
-- A chain absent from the map (no follower has run for it yet) delivers every block.
ALTER TABLE streams ADD COLUMN IF NOT EXISTS start_blocks jsonb NOT NULL DEFAULT '{}'::jsonb;
