/**
 * A data-modifying WITH item deleting the wallet_transfer_checkpoints that a write to some blocks
 * makes stale. A checkpoint holds a wallet's transfers below its block, so inserting or removing
 * transfers of block n changes every checkpoint of that chain above n. `rows` names a relation of
 * the statement with a `chain_id` column and the block number in `blockColumn`. Checkpoints sit
 * in final history and new blocks come above them, so this deletes nothing but after a reorg
 * deeper than the confirmation depth or a backfill of older blocks. A checkpoint being computed
 * at that moment is ordered against the write by markHistoryChanged, which the writer calls first.
 */
export function forgetCheckpointsSql(rows: string, blockColumn: string): string {
  return `DELETE FROM wallet_transfer_checkpoints c
    USING (SELECT chain_id, min(${blockColumn}) AS n FROM ${rows} GROUP BY chain_id) w
    WHERE c.chain_id = w.chain_id AND c.before_block > w.n`;
}
