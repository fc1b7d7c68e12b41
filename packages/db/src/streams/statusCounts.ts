import type { Pool, PoolClient } from 'pg';
import { countAllDeliveries } from './deliveryCounts.ts';

export interface DeliveryCounts {
  pending: number;
  held: number;
  failed: number;
  /** When the oldest pending delivery was created (null: none pending). */
  oldestPendingAt: Date | null;
}

/**
 * Deliveries waiting to be sent, held (stream in error) and failed for good, over every stream:
 * the counters (migration 073), and the first pending entry of the queue (migration 084).
 */
export async function countDeliveriesByStatus(db: Pool | PoolClient): Promise<DeliveryCounts> {
  const [counts, oldest] = await Promise.all([
    countAllDeliveries(db),
    db.query<{ oldest: Date | null }>(
      `SELECT (SELECT created_at FROM delivery_queue WHERE status = 'pending' ORDER BY created_at LIMIT 1) AS oldest`,
    ),
  ]);
  return {
    pending: counts.pending,
    held: counts.held,
    failed: counts.failed,
    oldestPendingAt: oldest.rows[0]?.oldest ?? null,
  };
}

/** Streams per status (active, paused, error, terminated), the statuses with none left out. */
export async function countStreamsByStatus(db: Pool | PoolClient): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM streams GROUP BY status ORDER BY status',
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
