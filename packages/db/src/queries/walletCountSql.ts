/**
 * SQL for the number of a wallet's transfers matching `conds` (each ` AND ...`, on transfers'
 * `pos` and `token_id`): sender side + receiver side - transfers to oneself (counted on both
 * sides). Each term is an index-only range count: transfers_by_from / transfers_by_to (or their
 * _token forms when `conds` names the token), transfers_self for the last term. The self term
 * bounds the wallet with >= and <= rather than =: with "=", PostgreSQL folds `from_id = to_id`
 * into an equivalence class and no longer proves the partial index predicate, falling back to a
 * heap-filtered scan of every receiver-side row. `walletId` is an SQL expression (addressIdSql).
 */
export function walletCountSql(walletId: string, conds: string): string {
  return `((SELECT count(*) FROM transfers WHERE from_id = ${walletId}${conds})
     + (SELECT count(*) FROM transfers WHERE to_id = ${walletId}${conds})
     - (SELECT count(*) FROM transfers
         WHERE from_id = to_id AND from_id >= ${walletId} AND from_id <= ${walletId}${conds}))`;
}
