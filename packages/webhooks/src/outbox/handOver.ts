import type { Pool } from '@tributary/db';
import { renameDeliveryJobs, setDeliveryJobs } from '@tributary/db/streams';
import type { Queue } from 'bullmq';
import { type FollowUpJob, enqueueAssignedDeliveries, enqueueFollowUps } from './deliveryJobs.ts';

/**
 * The outbox's one step, in three forms. A delivery row is the truth: its job is named on the row
 * first (in the caller's transaction, or here), then the job is enqueued. Whatever fails after the
 * row is named (Redis away, a crash) leaves a pending row whose job is missing, which the sender's
 * relay finds and enqueues: the enqueue is only the fast path.
 */

/**
 * Jobs of rows committed under those job ids (the matcher's block, a backfill's chunk): enqueued,
 * within `timeoutMs` when given. Never throws: `error` says why the relay is left to do it.
 */
export async function enqueueCommitted(
  queue: Queue,
  jobs: readonly { deliveryId: string; jobId: string }[],
  opts: { priority?: number; timeoutMs?: number } = {},
): Promise<{ enqueued: number; error?: unknown }> {
  if (jobs.length === 0) return { enqueued: 0 };
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = opts.timeoutMs;
  try {
    const added = enqueueAssignedDeliveries(queue, jobs, opts.priority);
    await (timeoutMs === undefined
      ? added
      : Promise.race([
          added,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`enqueue took over ${timeoutMs} ms`)), timeoutMs);
          }),
        ]));
    return { enqueued: jobs.length };
  } catch (error) {
    return { enqueued: 0, error };
  } finally {
    clearTimeout(timer);
  }
}

/** Follow-up jobs (a batch member that goes on alone): each row names its new job, then the jobs are enqueued. */
export async function nameThenEnqueue(
  pool: Pool,
  queue: Queue,
  items: readonly FollowUpJob[],
): Promise<void> {
  if (items.length === 0) return;
  await setDeliveryJobs(
    pool,
    items.map((i) => ({ deliveryId: i.deliveryId, jobId: i.jobId })),
  );
  await enqueueFollowUps(queue, items);
}

/**
 * Jobs that replace a row's job only while the row still names `expected` (the relay's for a job
 * Redis lost, an ordered stream's next turn): the renamed ones are enqueued; returns their ids.
 * Another owner that renamed a row first keeps it.
 */
export async function renameThenEnqueue(
  pool: Pool,
  queue: Queue,
  items: readonly (FollowUpJob & { expected: string | null })[],
): Promise<Set<string>> {
  const renamed = await renameDeliveryJobs(
    pool,
    items.map((i) => ({ deliveryId: i.deliveryId, expected: i.expected, jobId: i.jobId })),
  );
  await enqueueFollowUps(
    queue,
    items.filter((i) => renamed.has(i.deliveryId)).map(({ expected: _, ...job }) => job),
  );
  return renamed;
}
