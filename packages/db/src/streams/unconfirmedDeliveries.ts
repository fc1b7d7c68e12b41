import type { Pool, PoolClient } from 'pg';
import { hexToBytes } from '../bytes.ts';

export interface UnconfirmedDelivery {
  streamId: string;
  blockNumber: number;
  /** The block's timestamp (Unix seconds): the notice goes in the same partition. */
  blockTimestamp: number;
  /** The stored webhook body, exactly as it was (or is to be) sent. */
  body: string;
  logsCount: number;
  txsCount: number;
}

/**
 * The unconfirmed webhooks of one block for the given streams, whatever their status: what a
 * removal notice retracts when a reorg orphans the block. Reads the unique index by stream.
 */
export async function findUnconfirmedDeliveries(
  db: Pool | PoolClient,
  chainId: number,
  blockHash: string,
  streamIds: readonly string[],
): Promise<UnconfirmedDelivery[]> {
  if (streamIds.length === 0) return [];
  const { rows } = await db.query<{
    stream_id: string;
    block_number: string;
    block_timestamp: string;
    body: string;
    logs_count: number;
    txs_count: number;
  }>(
    `SELECT stream_id, block_number, extract(epoch FROM block_time)::bigint AS block_timestamp, body, logs_count, txs_count
       FROM deliveries
      WHERE stream_id = ANY($1::uuid[]) AND chain_id = $2 AND block_hash = $3
        AND confirmed = false AND removal = false`,
    [streamIds, chainId, hexToBytes(blockHash)],
  );
  return rows.map((r) => ({
    streamId: r.stream_id,
    blockNumber: Number(r.block_number),
    blockTimestamp: Number(r.block_timestamp),
    body: r.body,
    logsCount: r.logs_count,
    txsCount: r.txs_count,
  }));
}
