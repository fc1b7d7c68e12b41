/**
 * SQL for the number of a wallet's transfers matching `conds` (each ` AND ...`, on transfers'
 * columns): sender side + receiver side - transfers to oneself (counted on both sides). Each term
 * is an index-only range count: transfers_by_from / transfers_by_to (or their _token forms when
 * `conds` names the token), transfers_self for the last term. The self term bounds the wallet
 * with >= and <= rather than =: with "=", PostgreSQL folds `from_address = to_address` into an
 * equivalence class and no longer proves the partial index predicate, falling back to a
 * heap-filtered scan of every receiver-side row. `chain` and `wallet` are placeholders.
 */
export function walletCountSql(chain: string, wallet: string, conds: string): string {
  return `((SELECT count(*) FROM transfers WHERE chain_id = ${chain} AND from_address = ${wallet}${conds})
     + (SELECT count(*) FROM transfers WHERE chain_id = ${chain} AND to_address = ${wallet}${conds})
     - (SELECT count(*) FROM transfers
         WHERE chain_id = ${chain} AND from_address = to_address
           AND from_address >= ${wallet} AND from_address <= ${wallet}${conds}))`;
}
