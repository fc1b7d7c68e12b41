/**
 * SQL for a wallet's number of transfers in all stored history, as the projector keeps it in the
 * same transaction as the transfers (so, read in one snapshot with them, it is exactly their
 * number): one row of wallet_transfer_counts for all tokens, or the sum of the wallet's
 * balances.transfer_count rows of the given tokens (`tokens`: a placeholder for a bytea[]; one
 * index probe per token). `chain`, `wallet` and `tokens` are placeholders.
 */
export function walletTotalSql(chain: string, wallet: string, tokens?: string): string {
  return tokens === undefined
    ? `coalesce((SELECT transfers FROM wallet_transfer_counts WHERE chain_id = ${chain} AND wallet = ${wallet}), 0)`
    : `(SELECT coalesce(sum(transfer_count), 0) FROM balances
         WHERE chain_id = ${chain} AND owner_address = ${wallet} AND token_address = ANY(${tokens}::bytea[]))`;
}
