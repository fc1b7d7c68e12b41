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
 * One page of pending deliveries after `afterId`, in id order, whose job was named at least
 * `graceMs` ago: a job named just now may not be in Redis yet (its writer enqueues right after).
 */
export async function listPendingJobs(
  db: Db,
  q: { afterId: string | undefined; limit: number; graceMs: number },
): Promise<PendingJob[]> {
  const { rows } = await db.query<{ id: string; job_id: string | null; attempts: number; backfill: boolean }>(
    {
      name: 'pending-jobs-v5',
      text: `SELECT id, job_id, attempts, backfill_id <> 0 AS backfill FROM deliveries d
            WHERE status = 'pending' AND id > $1::uuid AND job_at < now() - make_interval(secs => $3::float8 / 1000)
              AND NOT ${WAITS_FOR_PREVIOUS}
            ORDER BY id LIMIT $2`,
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
