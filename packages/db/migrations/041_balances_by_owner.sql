-- A wallet's transfer total (GET /{address}/erc20/transfers, `total`): one index-only range scan
-- over the wallet's tokens, SUM(transfer_count), optionally restricted to some tokens.
-- On a large live table, build it beforehand outside a transaction with
--   CREATE INDEX CONCURRENTLY balances_by_owner ON balances (...same definition...);
-- this file then finds it and does nothing (the migration runner wraps each file in a transaction,
-- where CONCURRENTLY is not allowed).
SET LOCAL maintenance_work_mem = '512MB';
CREATE INDEX IF NOT EXISTS balances_by_owner ON balances (chain_id, owner_address, token_address)
  INCLUDE (transfer_count);
