import type { Pool, PoolClient } from 'pg';
import { bytesToHex } from '../bytes.ts';
import { withTransaction } from '../withTransaction.ts';

type Db = Pool | PoolClient;

/**
 * Gives an ordered stream's confirmed delivery the stream's next sequence number, unless it has
 * one (a replayed block): under the stream row's lock, so two callers never take one number twice
 * and no number is taken without its row. Returns the delivery's number.
 */
export async function assignSequence(
  pool: Pool,
  streamId: string,
  deliveryId: string,
): Promise<number | undefined> {
  return withTransaction(pool, async (client) => {
    const locked = await client.query('SELECT 1 FROM streams WHERE id = $1 FOR UPDATE', [streamId]);
    if (locked.rowCount === 0) return undefined;
    const { rows } = await client.query<{ sequence: string | null }>(
      'SELECT sequence FROM deliveries WHERE id = $1',
      [deliveryId],
    );
    if (!rows[0]) return undefined;
    if (rows[0].sequence !== null && rows[0].sequence !== '0') return Number(rows[0].sequence);
    const next = await client.query<{ last_sequence: string }>(
      'UPDATE streams SET last_sequence = last_sequence + 1 WHERE id = $1 RETURNING last_sequence',
      [streamId],
    );
    const sequence = Number(next.rows[0]!.last_sequence);
    await client.query('UPDATE deliveries SET sequence = $2 WHERE id = $1', [deliveryId, sequence]);
    return sequence;
  });
}

/** The delivery after `sequence` in its stream, when it waits to be sent (pending). */
export async function nextInSequence(
  db: Db,
  streamId: string,
  sequence: number,
): Promise<{ id: string; jobId: string | null; attempts: number } | undefined> {
  const { rows } = await db.query<{ id: string; job_id: string | null; attempts: number }>(
    `SELECT id, job_id, attempts FROM deliveries WHERE stream_id = $1 AND sequence = $2 AND status = 'pending'`,
    [streamId, sequence + 1],
  );
  return rows[0] ? { id: rows[0].id, jobId: rows[0].job_id, attempts: rows[0].attempts } : undefined;
}

/** One numbered delivery as a receiver reconciles it (GET /streams/evm/{id}/sequence). */
export interface SequencedDelivery {
  sequence: number;
  deliveryId: string;
  chainId: number;
  blockNumber: number;
  blockHash: string;
  status: string;
  body: string;
}

/** An ordered stream's numbered deliveries of [from, to], in order (retention may have removed old ones). */
export async function findSequencedDeliveries(
  db: Db,
  streamId: string,
  from: number,
  to: number,
): Promise<SequencedDelivery[]> {
  const { rows } = await db.query<{
    sequence: string;
    id: string;
    chain_id: string;
    block_number: string;
    block_hash: Buffer;
    status: string;
    body: string;
  }>(
    `SELECT sequence, id, chain_id, block_number, block_hash, status, body FROM deliveries
      WHERE stream_id = $1 AND sequence BETWEEN $2 AND $3 ORDER BY sequence`,
    [streamId, from, to],
  );
  return rows.map((r) => ({
    sequence: Number(r.sequence),
    deliveryId: r.id,
    chainId: Number(r.chain_id),
    blockNumber: Number(r.block_number),
    blockHash: bytesToHex(r.block_hash),
    status: r.status,
    body: r.body,
  }));
}

/** The last sequence number an ordered stream gave (0: none yet). */
export async function lastSequenceOf(db: Db, streamId: string): Promise<number> {
  const { rows } = await db.query<{ last_sequence: string }>(
    'SELECT last_sequence FROM streams WHERE id = $1',
    [streamId],
  );
  return Number(rows[0]?.last_sequence ?? 0);
}
