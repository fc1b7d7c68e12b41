import type { Pool, PoolClient } from 'pg';
import { bytesToHex } from '../bytes.ts';
import type { DeliveryStatus } from '@tributary/schema';
import { countAccountDeliveries } from './deliveryCounts.ts';

type Db = Pool | PoolClient;

/**
 * Marks a delivery of an account's stream pending again for a replay, to be delivered by the job
 * `jobId`; undefined when not found.
 */
export async function prepareReplay(
  db: Db,
  accountId: string,
  streamId: string,
  deliveryId: string,
  jobId: string,
): Promise<HistoryItem | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE deliveries d SET status = 'pending', job_id = $4, job_at = now() FROM streams s
      WHERE d.id = $3 AND d.stream_id = $2 AND s.id = d.stream_id AND s.account_id = $1 RETURNING d.id`,
    [accountId, streamId, deliveryId, jobId],
  );
  if (!rows[0]) return undefined;
  const page = await listHistory(db, accountId, { limit: 1, deliveryId });
  return page.items[0];
}

export interface HistoryItem {
  id: string;
  streamId: string;
  chainId: number;
  blockNumber: string;
  blockHash: string;
  confirmed: boolean;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  body: string;
  /** Its number in an ordered stream (null: not numbered, or not yet). */
  sequence: number | null;
  tag: string;
  webhookUrl: string;
  createdAt: Date;
  createdAtKey: string;
  deliveredAt: Date | null;
}

/**
 * Deliveries of an account, newest first, keyset by (created_at, id). `total` is the rows kept
 * (of the stream, when one is named), from the counters: it costs the same however long the history.
 */
export async function listHistory(
  db: Db,
  accountId: string,
  q: { limit: number; streamId?: string; deliveryId?: string; before?: { createdAt: string; id: string } },
): Promise<{ items: HistoryItem[]; total: number }> {
  const params: unknown[] = [accountId];
  const conds = ['s.account_id = $1'];
  if (q.streamId) {
    params.push(q.streamId);
    conds.push(`d.stream_id = $${params.length}`);
  }
  if (q.deliveryId) {
    params.push(q.deliveryId);
    conds.push(`d.id = $${params.length}`);
  }
  if (q.before) {
    params.push(q.before.createdAt, q.before.id);
    conds.push(`(d.created_at, d.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(q.limit);
  const [page, count] = await Promise.all([
    db.query<{
      id: string;
      stream_id: string;
      chain_id: string;
      block_number: string;
      block_hash: Buffer;
      confirmed: boolean;
      status: DeliveryStatus;
      attempts: number;
      last_error: string | null;
      body: string;
      sequence: string | null;
      tag: string;
      webhook_url: string;
      created_at: Date;
      created_at_key: string;
      delivered_at: Date | null;
    }>(
      `SELECT d.id, d.stream_id, d.chain_id, d.block_number, d.block_hash, d.confirmed, d.status, d.attempts,
              d.last_error, d.body, nullif(d.sequence, 0) AS sequence, s.config->>'tag' AS tag, s.config->>'webhookUrl' AS webhook_url,
              d.created_at, d.created_at::text AS created_at_key, d.delivered_at
         FROM deliveries d JOIN streams s ON s.id = d.stream_id
        WHERE ${conds.join(' AND ')} ORDER BY d.created_at DESC, d.id DESC LIMIT $${params.length}`,
      params,
    ),
    q.deliveryId ? undefined : countAccountDeliveries(db, accountId, q.streamId),
  ]);
  return {
    total: count ? count.kept : page.rows.length,
    items: page.rows.map((r) => ({
      id: r.id,
      streamId: r.stream_id,
      chainId: Number(r.chain_id),
      blockNumber: r.block_number,
      blockHash: bytesToHex(r.block_hash),
      confirmed: r.confirmed,
      status: r.status,
      attempts: r.attempts,
      lastError: r.last_error,
      body: r.body,
      sequence: r.sequence === null ? null : Number(r.sequence),
      tag: r.tag,
      webhookUrl: r.webhook_url,
      createdAt: r.created_at,
      createdAtKey: r.created_at_key,
      deliveredAt: r.delivered_at,
    })),
  };
}
