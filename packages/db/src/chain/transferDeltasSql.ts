// How transfer rows move balances, transfer counts and total supply, as SQL over a set of
// transfer rows (the rows a statement inserted or deleted): one spelling for projecting a block
// and for reversing it.

const ZERO = `'\\x0000000000000000000000000000000000000000'::bytea`;

/**
 * Per (chain, token, owner): the balance delta and the transfer count of `rows`. Each party counts
 * once (a transfer to oneself: once, balance unchanged); the zero address (mints, burns) counts
 * but its balance stays 0.
 */
export const ownerDeltasSql = (rows: string): string => `
    SELECT chain_id, token_address, owner, sum(delta) AS delta, count(*) AS transfers FROM (
      SELECT chain_id, token_address, from_address AS owner,
             CASE WHEN from_address = ${ZERO} OR from_address = to_address THEN 0 ELSE -value END AS delta FROM ${rows}
      UNION ALL
      SELECT chain_id, token_address, to_address, CASE WHEN to_address = ${ZERO} THEN 0 ELSE value END
        FROM ${rows} WHERE to_address <> from_address
    ) x GROUP BY chain_id, token_address, owner`;

/**
 * Adds (`+`, projecting) or takes back (`-`, reversing) the total-supply change of `rows`: per
 * (chain, token), mints minus burns in blocks after the token's metadata read; tokens whose
 * supply is unknown are left alone. An UPDATE for a WITH list.
 */
export const applySupplyDeltasSql = (rows: string, sign: '+' | '-'): string => `
  UPDATE tokens t SET total_supply = t.total_supply ${sign} d.delta
  FROM (
    SELECT i.chain_id, i.token_address,
      sum(CASE WHEN i.from_address = ${ZERO} THEN i.value ELSE 0 END)
        - sum(CASE WHEN i.to_address = ${ZERO} THEN i.value ELSE 0 END) AS delta
    FROM ${rows} i JOIN tokens k ON k.chain_id = i.chain_id AND k.address = i.token_address
    WHERE i.block_number > k.read_at_block AND (i.from_address = ${ZERO} OR i.to_address = ${ZERO})
    GROUP BY i.chain_id, i.token_address
  ) d
  WHERE t.chain_id = d.chain_id AND t.address = d.token_address AND t.total_supply IS NOT NULL
  RETURNING 1`;

/**
 * Adds (`+`, projecting) or takes back (`-`, reversing) per-(token, owner) transfer counts in the
 * per-wallet totals (wallet_transfer_counts): `deltas` names a relation with `chain_id`, the owner
 * in `ownerColumn` and its count in `transfers` (as ownerDeltasSql gives them). A statement, or a
 * WITH item.
 */
export const applyWalletCountsSql = (deltas: string, ownerColumn: string, sign: '+' | '-'): string => `
  INSERT INTO wallet_transfer_counts AS w (chain_id, wallet, transfers)
  SELECT chain_id, ${ownerColumn}, ${sign}sum(transfers) FROM ${deltas} GROUP BY chain_id, ${ownerColumn}
  ON CONFLICT (chain_id, wallet) DO UPDATE SET transfers = w.transfers + EXCLUDED.transfers`;
