-- A per-chain version of its transfer history below the newest transfer block. The projector bumps it
-- (in its own transaction, before changing any row) when it changes the transfers of such blocks: a
-- reorg, or older blocks projected late; never for new blocks above the head. Its row lock orders those
-- writes against the gateway's computation of wallet_transfer_checkpoints: a checkpoint computed from
-- a snapshot older than the write is not stored, and one being stored commits before the write's
-- statements read the checkpoints they forget.
CREATE TABLE IF NOT EXISTS chain_history_versions (
  chain_id bigint PRIMARY KEY,
  version bigint NOT NULL
);
