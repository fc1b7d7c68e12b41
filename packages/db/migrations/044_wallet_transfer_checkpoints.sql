-- Range totals of GET /{address}/erc20/transfers with from_block / to_block (or dates): the number
-- of a wallet's transfers before a block, kept at evenly spaced blocks of final history (at or
-- below the pinned head minus the chain's confirmation depth). A total over [from, to] is then
-- two stored numbers plus two short index counts, instead of a count over the whole range (a busy
-- wallet has hundreds of thousands of transfers in a few months).
-- Rows are written by the gateway the first time a checkpoint is asked for (an exact count, in
-- one snapshot) and never change while the history below them stays the same: the projector
-- deletes a chain's checkpoints above any block whose transfers it inserts or removes.
CREATE TABLE IF NOT EXISTS wallet_transfer_checkpoints (
  chain_id bigint NOT NULL,
  wallet bytea NOT NULL,
  -- Transfers of the wallet (as sender or receiver; to oneself once) in blocks below this one.
  before_block bigint NOT NULL,
  transfers bigint NOT NULL,
  PRIMARY KEY (chain_id, wallet, before_block)
);
-- The projector's invalidation: checkpoints of a chain above a block.
CREATE INDEX IF NOT EXISTS wallet_transfer_checkpoints_by_block
  ON wallet_transfer_checkpoints (chain_id, before_block);
