import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '../withTransaction.ts';

type Db = Pool | PoolClient;

// pg_try_advisory_xact_lock key of the deliveries' maintenance (partitions, expiry, counters).
const MAINTENANCE_LOCK = 7_261_627;

/**
 * Runs `work` in a transaction that holds the deliveries' maintenance lock, or not at all
 * (undefined) when another process holds it: every sender runs the maintenance, one at a time.
 */
export async function withDeliveryMaintenanceLock<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T | undefined> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS locked',
      [MAINTENANCE_LOCK],
    );
    return rows[0]?.locked ? work(client) : undefined;
  });
}

/**
 * Delivered webhooks of blocks timestamped before this may have been removed by retention
 * (null: none has been). Every delivery of a later block that was made is still in history.
 */
export async function deliveriesRetainedSince(db: Db): Promise<Date | null> {
  const { rows } = await db.query<{ retained_since: Date | null }>(
    'SELECT retained_since FROM delivery_retention',
  );
  return rows[0]?.retained_since ?? null;
}

/** Rows the default partition let go, by status. */
export interface ExpiredDeliveries {
  delivered: number;
  held: number;
  failed: number;
}

/**
 * Removes up to `limit` rows of the default partition (rows kept from dropped days, rows of
 * blocks whose day has no partition) whose time is up: delivered ones older than
 * `deliveredCutoff`, held and failed ones older than `failedCutoff`, by the later of their
 * block's time and their creation (a block timestamped far in the past, as a devnet may, is not
 * removed as soon as it is stored). Pending rows stay. A row at a time through the parent table,
 * so the counters and the attempts follow (triggers); the default partition holds the few rows
 * retention kept, never a whole day's.
 */
export async function expireKeptDeliveries(
  db: Db,
  q: { deliveredCutoff: Date; failedCutoff: Date; limit: number },
): Promise<ExpiredDeliveries> {
  const { rows } = await db.query<{ status: 'delivered' | 'held' | 'failed'; n: string }>(
    `WITH due AS (
       (SELECT id, block_time FROM deliveries_kept
         WHERE status = 'delivered' AND greatest(block_time, created_at) < $1 LIMIT $3)
       UNION ALL
       (SELECT id, block_time FROM deliveries_kept
         WHERE status IN ('held', 'failed') AND greatest(block_time, created_at) < $2 LIMIT $3)),
     gone AS (
       DELETE FROM deliveries d USING due WHERE d.id = due.id AND d.block_time = due.block_time
       RETURNING d.status),
     moved AS (
       UPDATE delivery_retention SET retained_since = greatest(coalesce(retained_since, '-infinity'), $1)
        WHERE EXISTS (SELECT 1 FROM gone WHERE status = 'delivered') RETURNING 1)
     SELECT status, count(*) AS n FROM gone GROUP BY status`,
    [q.deliveredCutoff, q.failedCutoff, q.limit],
  );
  const n = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  return { delivered: n('delivered'), held: n('held'), failed: n('failed') };
}
