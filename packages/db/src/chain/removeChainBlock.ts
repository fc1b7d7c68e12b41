import { hexToBytes } from '../bytes.ts';
import { blockEndPosSql, blockStartPosSql } from '../queries/keyset.ts';
import type { PoolClient } from 'pg';
import type { RemovedBlock } from './chainRows.ts';
import { forgetCheckpointsSql } from './forgetCheckpointsSql.ts';
import { markHistoryChanged } from './markHistoryChanged.ts';
import { applySupplyDeltasSql, applyWalletCountsSql, ownerDeltasSql } from './transferDeltasSql.ts';

// Block $2's rows of transfers or logs: a range of their primary key (chain_id, pos).
const BLOCK_ROWS = `pos >= ${blockStartPosSql('$2')} AND pos < ${blockEndPosSql('$2')}`;

// Reverses exactly the balance, transfer-count (per token and per wallet) and supply deltas of the
// transfer rows this statement deleted, and forgets the wallet-transfer checkpoints above them:
// removing a block twice, or one that was never projected, changes nothing.
// Counted as projectChainSegment counts them: each party once, the zero address without balance.
const DELETE_TRANSFERS = `
WITH del AS (
  DELETE FROM transfers WHERE chain_id = $1 AND ${BLOCK_ROWS} AND block_hash = $3
  RETURNING chain_id, block_number, token_address, from_address, to_address, value
), d AS (${ownerDeltasSql('del')}
), bal AS (
  UPDATE balances bl SET balance = bl.balance - d.delta, transfer_count = bl.transfer_count - d.transfers
  FROM d
  WHERE bl.chain_id = d.chain_id AND bl.token_address = d.token_address AND bl.owner_address = d.owner
  RETURNING 1
), cnt AS (${applyWalletCountsSql('d', 'owner', '-')}
), sup AS (${applySupplyDeltasSql('del', '-')}
), stale AS (
  ${forgetCheckpointsSql('del', 'block_number')}
)
SELECT (SELECT count(*) FROM del)::int AS transfers`;

/** Deletes an orphaned block's rows (inside the caller's transaction) and reverses its balance and supply deltas. */
export async function removeChainBlock(
  client: PoolClient,
  block: RemovedBlock,
): Promise<{ blocks: number; logs: number; transfers: number }> {
  const hash = hexToBytes(block.hash);
  const params = [block.chainId, block.number, hash];
  await markHistoryChanged(client, new Map([[block.chainId, block.number]]));
  const transfers =
    (await client.query<{ transfers: number }>(DELETE_TRANSFERS, params)).rows[0]?.transfers ?? 0;
  const logs = await client.query(
    `DELETE FROM logs WHERE chain_id = $1 AND ${BLOCK_ROWS} AND block_hash = $3`,
    params,
  );
  await client.query('DELETE FROM tokens WHERE chain_id = $1 AND first_seen_hash = $2', [
    block.chainId,
    hash,
  ]);
  const blocks = await client.query(
    'DELETE FROM blocks WHERE chain_id = $1 AND number = $2 AND hash = $3',
    params,
  );
  return { blocks: blocks.rowCount ?? 0, logs: logs.rowCount ?? 0, transfers };
}
