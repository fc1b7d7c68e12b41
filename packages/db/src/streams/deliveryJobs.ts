import type { Pool, PoolClient } from 'pg';
import { WAITS_FOR_PREVIOUS } from './deliveries.ts';

type Db = Pool | PoolClient;

/** A pending delivery and the job named to deliver it (null: none named yet). */
export interface PendingJob {
  deliveryId: string;
  jobId: string | null;
  /** Attempts made so far (a job that takes over goes on with the retry schedule from there). */
  attempts: number;
  /** It belongs to a per-stream backfill (its job is enqueued at the backfill's priority). */
  backfill: boolean;
}

/**
 * The relay's page: $1 the id after which to go on, $2 the page size, $3 the grace in ms. The queue
 * (migration 084) holds only what is not delivered: the walk never meets the day's delivered rows,
 * nor what their updates left behind.
 */
export const PENDING_JOBS_SQL = `SELECT d.id, d.job_id, d.attempts, d.backfill_id <> 0 AS backfill
             FROM delivery_queue q JOIN deliveries d ON d.id = q.id AND d.block_time = q.block_time
            WHERE q.status = 'pending' AND q.id > $1::uuid AND d.status = 'pending'
              AND d.job_at < now() - make_interval(secs => $3::float8 / 1000)
              AND NOT ${WAITS_FOR_PREVIOUS}
            ORDER BY q.id LIMIT $2`;

/**
 * One page of pending deliveries after `afterId`, in id order, whose job was named at least
 * `graceMs` ago: a job named just now may not be in Redis yet (its writer enqueues right after).
 */
export async function listPendingJobs(
  db: Db,
  q: { afterId: string | undefined; limit: number; graceMs: number },
): Promise<PendingJob[]> {
  const { rows } = await db.query<{ id: string; job_id: string | null; attempts: number; backfill: boolean }>(
    {
      name: 'pending-jobs-v6',
      text: PENDING_JOBS_SQL,
      values: [q.afterId ?? '00000000-0000-0000-0000-000000000000', q.limit, q.graceMs],
    },
  );
  return rows.map((r) => ({ deliveryId: r.id, jobId: r.job_id, attempts: r.attempts, backfill: r.backfill }));
}

/**
 * Names new jobs for pending deliveries, each only if its row still names the job the caller
 * saw (`expected`): a delivery that moved on meanwhile (delivered, or handed to another job) is
 * left alone. Returns the ids whose job was renamed; the caller enqueues exactly those.
 */
export async function renameDeliveryJobs(
  db: Db,
  list: readonly { deliveryId: string; expected: string | null; jobId: string }[],
): Promise<Set<string>> {
  if (list.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>({
    name: 'rename-delivery-jobs-v1',
    text: `UPDATE deliveries d SET job_id = i.job_id, job_at = now()
             FROM unnest($1::uuid[], $2::text[], $3::text[]) AS i(id, expected, job_id)
            WHERE d.id = i.id AND d.status = 'pending' AND d.job_id IS NOT DISTINCT FROM i.expected
            RETURNING d.id`,
    values: [list.map((l) => l.deliveryId), list.map((l) => l.expected), list.map((l) => l.jobId)],
  });
  return new Set(rows.map((r) => r.id));
}

/** Names the job that now carries each delivery (a batch member going on alone, a retry). */
export async function setDeliveryJobs(
  db: Db,
  list: readonly { deliveryId: string; jobId: string }[],
): Promise<void> {
  if (list.length === 0) return;
  await db.query({
    name: 'set-delivery-jobs-v1',
    text: `UPDATE deliveries d SET job_id = i.job_id, job_at = now()
             FROM unnest($1::uuid[], $2::text[]) AS i(id, job_id) WHERE d.id = i.id`,
    values: [list.map((l) => l.deliveryId), list.map((l) => l.jobId)],
  });
}
