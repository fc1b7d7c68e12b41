import type { Pool, PoolClient } from 'pg';
import { bytesToHex } from '../bytes.ts';

type Db = Pool | PoolClient;

/** A final block as the query tables hold it: its header and every log (the block event's shapes). */
export interface StoredBlock {
  header: { number: number; hash: string; parentHash: string; timestamp: number };
  logs: {
    logIndex: number;
    transactionHash: string;
    transactionIndex: number;
    address: string;
    data: string;
    topics: string[];
  }[];
}

/**
 * The confirmed blocks of [from, to] that the query tables hold, with their logs, by number (two
 * range reads on primary keys). A block they do not hold, or hold unconfirmed, is absent.
 */
export async function readStoredBlocks(
  db: Db,
  chainId: number,
  from: number,
  to: number,
): Promise<Map<number, StoredBlock>> {
  const out = new Map<number, StoredBlock>();
  const blocks = await db.query<{ number: string; hash: Buffer; parent_hash: Buffer; ts: string }>(
    `SELECT number, hash, parent_hash, extract(epoch FROM timestamp)::bigint AS ts FROM blocks
      WHERE chain_id = $1 AND number BETWEEN $2 AND $3 AND confirmed ORDER BY number`,
    [chainId, from, to],
  );
  if (blocks.rows.length === 0) return out;
  for (const b of blocks.rows) {
    out.set(Number(b.number), {
      header: {
        number: Number(b.number),
        hash: bytesToHex(b.hash),
        parentHash: bytesToHex(b.parent_hash),
        timestamp: Number(b.ts),
      },
      logs: [],
    });
  }
  const logs = await db.query<{
    block_number: string;
    block_hash: Buffer;
    log_index: number;
    transaction_index: number;
    transaction_hash: Buffer;
    address: Buffer;
    data: Buffer;
    topic0: Buffer | null;
    topic1: Buffer | null;
    topic2: Buffer | null;
    topic3: Buffer | null;
  }>(
    `SELECT block_number, block_hash, log_index, transaction_index, transaction_hash, address, data,
            topic0, topic1, topic2, topic3
       FROM logs WHERE chain_id = $1 AND pos BETWEEN $2::bigint << 24 AND ($3::bigint << 24) | 16777215
      ORDER BY pos`,
    [chainId, from, to],
  );
  for (const l of logs.rows) {
    const block = out.get(Number(l.block_number));
    // A log of a block held unconfirmed, or of another branch than the block row: not this block's.
    if (!block || bytesToHex(l.block_hash) !== block.header.hash) continue;
    const topics: string[] = [];
    for (const t of [l.topic0, l.topic1, l.topic2, l.topic3]) {
      if (t === null) break;
      topics.push(bytesToHex(t));
    }
    block.logs.push({
      logIndex: l.log_index,
      transactionHash: bytesToHex(l.transaction_hash),
      transactionIndex: l.transaction_index,
      address: bytesToHex(l.address),
      data: bytesToHex(l.data),
      topics,
    });
  }
  return out;
}

/**
 * Where a chain's query tables stand: their lowest block, and the highest that is confirmed
 * (final); undefined while they hold none of the chain's blocks.
 */
export async function storedBlockBounds(
  db: Db,
  chainId: number,
): Promise<{ lowest: number; highestConfirmed: number | undefined } | undefined> {
  const { rows } = await db.query<{ lowest: string | null; highest: string | null }>(
    `SELECT (SELECT min(number) FROM blocks WHERE chain_id = $1) AS lowest,
            (SELECT max(number) FROM blocks WHERE chain_id = $1 AND confirmed) AS highest`,
    [chainId],
  );
  const r = rows[0];
  if (!r || r.lowest === null) return undefined;
  return { lowest: Number(r.lowest), highestConfirmed: r.highest === null ? undefined : Number(r.highest) };
}
