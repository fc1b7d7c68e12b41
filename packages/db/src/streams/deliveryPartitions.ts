import type { Pool, PoolClient } from 'pg';
import { foldDeliveryCounts } from './deliveryCounts.ts';

type Db = Pool | PoolClient;

/** A UTC day, `YYYY-MM-DD`: the range of block times one partition of each table holds. */
export type DeliveryDay = string;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const suffixOf = (day: DeliveryDay) => {
  if (!DAY.test(day)) throw new TypeError(`not a day: ${day}`);
  return day.replaceAll('-', '');
};

/** The days that have their partitions, oldest first. */
export async function listDeliveryDays(db: Db): Promise<DeliveryDay[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'deliveries'::regclass AND c.relname ~ '^deliveries_p[0-9]{8}$' ORDER BY 1`,
  );
  return rows.map((r) => `${r.name.slice(12, 16)}-${r.name.slice(16, 18)}-${r.name.slice(18, 20)}`);
}

/**
 * Makes the day's partitions (migration 072's create_delivery_partition): 'blocked' when the
 * default partition holds rows of that day (blocks timestamped ahead of the clock), which then
 * stay there. Waits at most `lockTimeoutMs` for its locks.
 */
export async function createDeliveryDay(
  client: PoolClient,
  day: DeliveryDay,
  lockTimeoutMs: number,
): Promise<'created' | 'exists' | 'blocked'> {
  suffixOf(day);
  await client.query(`SET LOCAL lock_timeout = ${Math.trunc(lockTimeoutMs)}`);
  const { rows } = await client.query<{ result: 'created' | 'exists' | 'blocked' }>(
    'SELECT create_delivery_partition($1::date) AS result',
    [day],
  );
  return rows[0]!.result;
}

/** What dropping a day did: rows removed, and rows kept (moved to the default partition), by status. */
export interface DroppedDay {
  day: DeliveryDay;
  removed: { delivered: number; held: number; failed: number };
  kept: { pending: number; held: number; failed: number };
}

interface DayCounts {
  kept: number;
  pending: number;
  held: number;
  failed: number;
}

/** The day's rows by status from the counters (and deltas not folded yet). */
async function countDay(db: Db, day: DeliveryDay): Promise<DayCounts> {
  const { rows } = await db.query<Record<keyof DayCounts, string | null>>(
    `SELECT sum(kept) AS kept, sum(pending) AS pending, sum(held) AS held, sum(failed) AS failed FROM (
       SELECT kept, pending, held, failed FROM delivery_counts WHERE day = $1::date
       UNION ALL
       SELECT kept, pending, held, failed FROM delivery_count_deltas WHERE day = $1::date) c`,
    [day],
  );
  const r = rows[0];
  return {
    kept: Number(r?.kept ?? 0),
    pending: Number(r?.pending ?? 0),
    held: Number(r?.held ?? 0),
    failed: Number(r?.failed ?? 0),
  };
}

/**
 * Drops a day's partitions in one transaction (the caller's, holding the maintenance lock): its
 * delivered rows go, and its pending rows, with its held and failed rows newer than
 * `failedCutoff`, are moved first to the default partition with their attempts. There a replayed
 * block still meets its row (the day's range now belongs to the default partition), the relay
 * still finds what is pending, and a replay still finds what failed.
 *
 * Both tables are locked exclusively for the move (no delivery is read or written meanwhile), so
 * a day whose rows to keep exceed `moveLimit` is not dropped yet (undefined): it waits for its
 * held and failed rows to expire, when only its pending rows remain to move.
 */
export async function dropDeliveryDay(
  client: PoolClient,
  day: DeliveryDay,
  opts: { failedCutoff: Date; moveLimit: number; lockTimeoutMs: number },
): Promise<DroppedDay | undefined> {
  const suffix = suffixOf(day);
  const dayEnd = new Date(`${day}T00:00:00Z`).getTime() + 86_400_000;
  const expired = dayEnd <= opts.failedCutoff.getTime();
  const estimate = await countDay(client, day);
  if (estimate.pending + (expired ? 0 : estimate.held + estimate.failed) > opts.moveLimit) return undefined;

  await client.query(`SET LOCAL lock_timeout = ${Math.trunc(opts.lockTimeoutMs)}`);
  await client.query('LOCK TABLE deliveries, delivery_attempts IN ACCESS EXCLUSIVE MODE');
  // Nothing writes deliveries now: folded, the day's counters are exactly its partition's rows.
  await foldDeliveryCounts(client);
  const before = await countDay(client, day);
  await client.query(`ALTER TABLE delivery_attempts DETACH PARTITION delivery_attempts_p${suffix}`);
  await client.query(`ALTER TABLE deliveries DETACH PARTITION deliveries_p${suffix}`);
  // The moved rows are counted below, as the day's new counts: the count triggers leave them alone
  // (the queue's trigger finds each one's row already there, same id and time, and keeps it).
  await client.query("SET LOCAL tributary.moving_deliveries = 'on'");
  const range = [`${day}T00:00:00Z`, new Date(dayEnd).toISOString()];
  // The day's rows to keep are read through the queue (migration 084), not from a scan of the day.
  await client.query(
    `INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, block_time, confirmed, removal, body,
                             status, attempts, last_error, logs_count, txs_count, created_at, delivered_at, job_id, job_at,
                             backfill_id, sequence)
     SELECT p.id, p.stream_id, p.chain_id, p.block_number, p.block_hash, p.block_time, p.confirmed, p.removal, p.body,
            p.status, p.attempts, p.last_error, p.logs_count, p.txs_count, p.created_at, p.delivered_at, p.job_id, p.job_at,
            p.backfill_id, p.sequence
       FROM delivery_queue q JOIN deliveries_p${suffix} p ON p.id = q.id AND p.block_time = q.block_time
      WHERE q.block_time >= $2 AND q.block_time < $3
        AND (q.status = 'pending' OR greatest(p.block_time, p.created_at) >= $1)`,
    [opts.failedCutoff, ...range],
  );
  // What was not kept leaves the queue with its partition (a DROP fires no trigger).
  await client.query(
    `DELETE FROM delivery_queue q WHERE q.block_time >= $1 AND q.block_time < $2
        AND NOT EXISTS (SELECT 1 FROM deliveries_kept k WHERE k.id = q.id AND k.block_time = q.block_time)`,
    range,
  );
  await client.query(
    `INSERT INTO delivery_attempts (delivery_id, block_time, stream_id, attempt, status_code, latency_ms, error, at)
     SELECT a.delivery_id, a.block_time, a.stream_id, a.attempt, a.status_code, a.latency_ms, a.error, a.at
       FROM deliveries_kept k JOIN delivery_attempts_p${suffix} a ON a.delivery_id = k.id AND a.block_time = k.block_time
      WHERE k.block_time >= $1 AND k.block_time < $2`,
    range,
  );
  const kept = await recountDay(client, day, range);
  await client.query(`DROP TABLE deliveries_p${suffix}, delivery_attempts_p${suffix}`);
  await client.query(
    `UPDATE delivery_retention SET retained_since = greatest(coalesce(retained_since, '-infinity'), $1::timestamptz)`,
    [range[1]],
  );
  return {
    day,
    removed: {
      delivered: before.kept - before.pending - before.held - before.failed,
      held: before.held - kept.held,
      failed: before.failed - kept.failed,
    },
    kept: { pending: kept.pending, held: kept.held, failed: kept.failed },
  };
}

/**
 * The day's counters become its moved rows; the delivered totals of a stream left with no row
 * that day move to day -infinity (so a stream's counter rows stay as many as its days kept).
 */
async function recountDay(client: PoolClient, day: DeliveryDay, range: string[]): Promise<DayCounts> {
  await client.query(
    'UPDATE delivery_counts SET kept = 0, pending = 0, held = 0, failed = 0 WHERE day = $1::date',
    [day],
  );
  const { rows } = await client.query<Record<keyof DayCounts, string>>(
    `WITH moved AS (
       SELECT stream_id, count(*) AS kept, count(*) FILTER (WHERE status = 'pending') AS pending,
              count(*) FILTER (WHERE status = 'held') AS held, count(*) FILTER (WHERE status = 'failed') AS failed
         FROM deliveries_kept WHERE block_time >= $2 AND block_time < $3 GROUP BY stream_id),
     stored AS (
       INSERT INTO delivery_counts AS c (stream_id, day, kept, pending, held, failed)
       SELECT stream_id, $1::date, kept, pending, held, failed FROM moved ORDER BY stream_id
       ON CONFLICT (stream_id, day) DO UPDATE
         SET kept = excluded.kept, pending = excluded.pending, held = excluded.held, failed = excluded.failed
       RETURNING 1)
     SELECT coalesce(sum(kept), 0) AS kept, coalesce(sum(pending), 0) AS pending, coalesce(sum(held), 0) AS held,
            coalesce(sum(failed), 0) AS failed, (SELECT count(*) FROM stored) AS stored FROM moved`,
    [day, ...range],
  );
  await client.query(
    `WITH emptied AS (
       DELETE FROM delivery_counts WHERE day = $1::date AND kept = 0 RETURNING stream_id, delivered, logs, txs, failed_attempts)
     INSERT INTO delivery_counts AS c (stream_id, day, delivered, logs, txs, failed_attempts)
     SELECT stream_id, '-infinity', delivered, logs, txs, failed_attempts FROM emptied ORDER BY stream_id
     ON CONFLICT (stream_id, day) DO UPDATE SET delivered = c.delivered + excluded.delivered, logs = c.logs + excluded.logs,
       txs = c.txs + excluded.txs, failed_attempts = c.failed_attempts + excluded.failed_attempts`,
    [day],
  );
  const r = rows[0]!;
  return { kept: Number(r.kept), pending: Number(r.pending), held: Number(r.held), failed: Number(r.failed) };
}
