import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

/** A stream's deliveries as the counters have them (migration 073). */
export interface StreamDeliveryCounts {
  /** Rows in history now (every status). */
  kept: number;
  pending: number;
  /** Held while the stream is in error. */
  held: number;
  /** Failed for good (retry schedule used up, or set aside). */
  failed: number;
  /** Delivered, ever (a replay takes one back until it is delivered again; retention keeps them). */
  delivered: number;
  /** Logs and transactions of the delivered ones. */
  logs: number;
  txs: number;
  /** Attempts that were not a 2xx, ever. */
  failedAttempts: number;
}

const ZERO: StreamDeliveryCounts = {
  kept: 0,
  pending: 0,
  held: 0,
  failed: 0,
  delivered: 0,
  logs: 0,
  txs: 0,
  failedAttempts: 0,
};

const SUMS = `sum(kept) AS kept, sum(pending) AS pending, sum(held) AS held, sum(failed) AS failed,
  sum(delivered) AS delivered, sum(logs) AS logs, sum(txs) AS txs, sum(failed_attempts) AS failed_attempts`;
const COLUMNS = 'stream_id, kept, pending, held, failed, delivered, logs, txs, failed_attempts';

type SumRow = Record<
  'kept' | 'pending' | 'held' | 'failed' | 'delivered' | 'logs' | 'txs' | 'failed_attempts',
  string | null
>;

const countsOf = (r: SumRow | undefined): StreamDeliveryCounts =>
  r
    ? {
        kept: Number(r.kept ?? 0),
        pending: Number(r.pending ?? 0),
        held: Number(r.held ?? 0),
        failed: Number(r.failed ?? 0),
        delivered: Number(r.delivered ?? 0),
        logs: Number(r.logs ?? 0),
        txs: Number(r.txs ?? 0),
        failedAttempts: Number(r.failed_attempts ?? 0),
      }
    : { ...ZERO };

/**
 * The counters and the deltas not folded yet, of the streams `where` selects (a condition on
 * `stream_id`), in one snapshot: a fold moves deltas into counters in one transaction. Deltas of
 * deleted streams are left out. Cost: the streams' days kept, and the deltas since the last fold.
 */
const countedSql = (where: string) => `
  SELECT ${COLUMNS} FROM delivery_counts WHERE ${where}
  UNION ALL
  SELECT ${COLUMNS} FROM delivery_count_deltas
   WHERE ${where} AND stream_id IN (SELECT id FROM streams)`;

/** Per stream (`x-queue-size`, `admin streams list`); a stream with none counts zero. */
export async function countStreamDeliveries(
  db: Db,
  streamIds: readonly string[],
): Promise<Map<string, StreamDeliveryCounts>> {
  const { rows } = await db.query<SumRow & { stream_id: string }>({
    name: 'stream-delivery-counts-v1',
    text: `SELECT stream_id, ${SUMS} FROM (${countedSql('stream_id = ANY($1::uuid[])')}) c GROUP BY stream_id`,
    values: [streamIds],
  });
  const out = new Map<string, StreamDeliveryCounts>(streamIds.map((id) => [id, { ...ZERO }]));
  for (const r of rows) out.set(r.stream_id, countsOf(r));
  return out;
}

/** Pending and held deliveries per stream (`x-queue-size`), from the counters. */
export async function countQueuedDeliveries(
  db: Db,
  streamIds: readonly string[],
): Promise<Map<string, number>> {
  const counts = await countStreamDeliveries(db, streamIds);
  return new Map([...counts].map(([id, c]) => [id, c.pending + c.held]));
}

/** Summed over an account's streams, or one of them (/stats, the /history total). */
export async function countAccountDeliveries(
  db: Db,
  accountId: string,
  streamId?: string,
): Promise<StreamDeliveryCounts> {
  const where = streamId
    ? 'stream_id = $2 AND stream_id IN (SELECT id FROM streams WHERE account_id = $1)'
    : 'stream_id IN (SELECT id FROM streams WHERE account_id = $1)';
  const { rows } = await db.query<SumRow>(
    `SELECT ${SUMS} FROM (${countedSql(where)}) c`,
    streamId ? [accountId, streamId] : [accountId],
  );
  return countsOf(rows[0]);
}

/** Summed over every stream (the status command, the sender's gauges). */
export async function countAllDeliveries(db: Db): Promise<StreamDeliveryCounts> {
  const { rows } = await db.query<SumRow>(`SELECT ${SUMS} FROM (${countedSql('true')}) c`);
  return countsOf(rows[0]);
}

export interface DeliveryStats {
  totalWebhooksDelivered: number;
  totalWebhooksFailed: number;
  totalLogsProcessed: number;
  totalTxsProcessed: number;
  totalTxsInternalProcessed: number;
}

/** /stats: delivered webhooks with their logs and transactions, and failed attempts, of an account or one of its streams. */
export async function deliveryStats(db: Db, accountId: string, streamId?: string): Promise<DeliveryStats> {
  const c = await countAccountDeliveries(db, accountId, streamId);
  return {
    totalWebhooksDelivered: c.delivered,
    totalWebhooksFailed: c.failedAttempts,
    totalLogsProcessed: c.logs,
    totalTxsProcessed: c.txs,
    totalTxsInternalProcessed: 0,
  };
}

/**
 * Folds the deltas the triggers appended into the counters: one statement, so a reader sees
 * them on one side or the other. Deltas of deleted streams go. Returns the delta rows folded.
 */
export async function foldDeliveryCounts(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH folded AS (DELETE FROM delivery_count_deltas RETURNING *),
     summed AS (
       SELECT stream_id, day, ${SUMS} FROM folded
        WHERE stream_id IN (SELECT id FROM streams) GROUP BY stream_id, day),
     stored AS (
       INSERT INTO delivery_counts AS c (stream_id, day, kept, pending, held, failed, delivered, logs, txs, failed_attempts)
       SELECT * FROM summed ORDER BY stream_id, day
       ON CONFLICT (stream_id, day) DO UPDATE SET
         kept = c.kept + excluded.kept, pending = c.pending + excluded.pending, held = c.held + excluded.held,
         failed = c.failed + excluded.failed, delivered = c.delivered + excluded.delivered,
         logs = c.logs + excluded.logs, txs = c.txs + excluded.txs,
         failed_attempts = c.failed_attempts + excluded.failed_attempts
       RETURNING 1)
     SELECT (SELECT count(*) FROM folded) AS n, (SELECT count(*) FROM stored) AS stored`,
  );
  return Number(rows[0]?.n ?? 0);
}
