import type { Pool, PoolClient } from 'pg';

export interface DeliveryCounts {
  pending: number;
  held: number;
  failed: number;
  /** When the oldest pending delivery was created (null: none pending). */
  oldestPendingAt: Date | null;
}

/**
 * Deliveries waiting to be sent, held (stream in error) and failed for good, over every stream:
 * partial-index scans (deliveries_pending, deliveries_failed), never the whole history.
 */
export async function countDeliveriesByStatus(db: Pool | PoolClient): Promise<DeliveryCounts> {
  const { rows } = await db.query<{ pending: string; held: string; failed: string; oldest: Date | null }>(
    `SELECT count(*) FILTER (WHERE status = 'pending') AS pending,
            count(*) FILTER (WHERE status = 'held') AS held,
            (SELECT count(*) FROM deliveries WHERE status = 'failed') AS failed,
            min(created_at) FILTER (WHERE status = 'pending') AS oldest
       FROM deliveries WHERE status IN ('pending', 'held')`,
  );
  const r = rows[0];
  return {
    pending: Number(r?.pending ?? 0),
    held: Number(r?.held ?? 0),
    failed: Number(r?.failed ?? 0),
    oldestPendingAt: r?.oldest ?? null,
  };
}

/** Streams per status (active, paused, error, terminated), the statuses with none left out. */
export async function countStreamsByStatus(db: Pool | PoolClient): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM streams GROUP BY status ORDER BY status',
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
