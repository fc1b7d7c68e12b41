-- Transfers per (chain, wallet), all tokens together: the `total` of a wallet's first transfers
-- page with no token filter. It is the sum of the wallet's balances.transfer_count rows, kept by the
-- projector in the same transaction as those rows (a transfer counts once for its sender and once
-- for its receiver, once in all for a transfer to oneself). Summing the per-token rows instead cost
-- an index-only scan of one entry per token the wallet ever moved, each with a visibility-map check
-- on a scattered heap page: about 1 ms for a wallet with 2,000 tokens, and the busiest wallets are
-- the ones asked for most.
CREATE TABLE IF NOT EXISTS wallet_transfer_counts (
  chain_id bigint NOT NULL,
  wallet bytea NOT NULL,
  transfers bigint NOT NULL,
  PRIMARY KEY (chain_id, wallet)
);

-- From the per-token counts already stored (nothing to do on a new database). A writer of
-- balances waits for this snapshot, so no transfer is counted twice or missed; the values are
-- absolute, so running it again gives the same result.
LOCK TABLE balances IN SHARE MODE;
INSERT INTO wallet_transfer_counts AS w (chain_id, wallet, transfers)
SELECT chain_id, owner_address, sum(transfer_count)
  FROM balances
 GROUP BY chain_id, owner_address
ON CONFLICT (chain_id, wallet) DO UPDATE SET transfers = EXCLUDED.transfers
 WHERE w.transfers <> EXCLUDED.transfers;

ANALYZE wallet_transfer_counts;
