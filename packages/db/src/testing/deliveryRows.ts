// What the db package's delivery tests share: a stream to deliver for, delivery rows as the matcher
// writes them, and the table's own count to hold the counters to.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { NewDelivery } from '../streams/deliveries.ts';
import { insertStream } from '../streams/streams.ts';

/** An account and one stream of it; returns both ids. */
export async function seedStream(pool: Pool): Promise<{ accountId: string; streamId: string }> {
  const accountId = randomUUID();
  const streamId = randomUUID();
  await pool.query("INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, 'a', 's')", [accountId]);
  await addStream(pool, accountId, streamId);
  return { accountId, streamId };
}

/** Another stream of an account. */
export async function addStream(pool: Pool, accountId: string, streamId = randomUUID()): Promise<string> {
  await insertStream(pool, {
    id: streamId,
    accountId,
    chainIds: [31337],
    config: { webhookUrl: 'http://127.0.0.1:9/h', description: 'd', tag: 't', chainIds: ['0x7a69'] },
  });
  return streamId;
}

/** The hash of block `n` (each number its own block). */
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * The delivery of block `n`, timestamped `at` (ISO 8601), to a stream: unconfirmed unless told,
 * pending unless told, a new id each call (a replayed block event makes new ids too).
 */
export function deliveryOf(
  streamId: string,
  n: number,
  at: string,
  opts: Partial<Pick<NewDelivery, 'confirmed' | 'removal' | 'status' | 'logsCount' | 'txsCount'>> = {},
): NewDelivery {
  const timestamp = Math.floor(Date.parse(at) / 1000);
  const confirmed = opts.confirmed ?? false;
  return {
    id: randomUUID(),
    streamId,
    chainId: 31337,
    blockNumber: n,
    blockHash: hashOf(n),
    blockTimestamp: timestamp,
    confirmed,
    removal: opts.removal ?? false,
    body: JSON.stringify({
      confirmed,
      chainId: '0x7a69',
      block: { number: String(n), hash: hashOf(n), timestamp: String(timestamp) },
      logs: [],
      txs: [],
    }),
    status: opts.status ?? 'pending',
    logsCount: opts.logsCount ?? 2,
    txsCount: opts.txsCount ?? 1,
    jobId: `job-${n}-${confirmed}`,
  };
}

/** What the tables hold for a stream, counted the slow way: what the counters must equal. */
export async function tableCounts(pool: Pool, streamId: string) {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT count(*) AS kept, count(*) FILTER (WHERE status = 'pending') AS pending,
            count(*) FILTER (WHERE status = 'held') AS held, count(*) FILTER (WHERE status = 'failed') AS failed,
            count(*) FILTER (WHERE status = 'delivered') AS delivered,
            coalesce(sum(logs_count) FILTER (WHERE status = 'delivered'), 0) AS logs,
            coalesce(sum(txs_count) FILTER (WHERE status = 'delivered'), 0) AS txs,
            (SELECT count(*) FROM delivery_attempts a WHERE a.stream_id = $1
                AND (a.status_code IS NULL OR a.status_code NOT BETWEEN 200 AND 299)) AS failed_attempts
       FROM deliveries WHERE stream_id = $1`,
    [streamId],
  );
  const r = rows[0]!;
  return {
    kept: Number(r['kept']),
    pending: Number(r['pending']),
    held: Number(r['held']),
    failed: Number(r['failed']),
    delivered: Number(r['delivered']),
    logs: Number(r['logs']),
    txs: Number(r['txs']),
    failedAttempts: Number(r['failed_attempts']),
  };
}

/** The partition each of a stream's deliveries is in, by delivery id. */
export async function partitionsOf(pool: Pool, streamId: string): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ id: string; part: string }>(
    'SELECT id, tableoid::regclass::text AS part FROM deliveries WHERE stream_id = $1',
    [streamId],
  );
  return new Map(rows.map((r) => [r.id, r.part]));
}

/**
 * Where the queue (migration 084) and the deliveries disagree: every delivery not delivered must
 * have its queue row with its status and block time, and the queue nothing else. Empty: they agree.
 */
export async function queueMismatches(
  pool: Pool,
): Promise<{ id: string; table: string | null; queue: string | null }[]> {
  const { rows } = await pool.query<{ id: string; table: string | null; queue: string | null }>(
    `SELECT coalesce(d.id, q.id) AS id, d.status || ' ' || d.block_time AS table, q.status || ' ' || q.block_time AS queue
       FROM (SELECT id, status, block_time FROM deliveries WHERE status <> 'delivered') d
       FULL JOIN delivery_queue q ON q.id = d.id
      WHERE d.id IS NULL OR q.id IS NULL OR d.status <> q.status OR d.block_time <> q.block_time`,
  );
  return rows;
}
