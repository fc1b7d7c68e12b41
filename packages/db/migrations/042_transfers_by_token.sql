-- Wallet transfers of given tokens (contract_addresses), both sides, newest first: the page is a
-- range scan per (side, token) and a block-bounded count is index-only, instead of filtering the
-- token row by row from the heap over every transfer of the wallet.
-- On a large live table, build them beforehand outside a transaction with
--   CREATE INDEX CONCURRENTLY transfers_by_from_token ON transfers (...same definition...);
-- (and the same for transfers_by_to_token); this file then finds them and does nothing (the
-- migration runner wraps each file in a transaction, where CONCURRENTLY is not allowed).
SET LOCAL maintenance_work_mem = '512MB';
CREATE INDEX IF NOT EXISTS transfers_by_from_token
  ON transfers (chain_id, from_address, token_address, block_number DESC, log_index DESC);
CREATE INDEX IF NOT EXISTS transfers_by_to_token
  ON transfers (chain_id, to_address, token_address, block_number DESC, log_index DESC);
