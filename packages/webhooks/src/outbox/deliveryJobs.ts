import type { Queue } from 'bullmq';
import type { DeliveryBatchJob, DeliveryJob } from '@tributary/schema';
import { isBatchJobId, jobIdFor } from './jobIdFor.ts';

/** BullMQ queue of webhook deliveries (the prefix isolates deployments and tests). */
export const WEBHOOK_QUEUE = 'webhooks';

/**
 * The BullMQ priority of a per-stream backfill's jobs. Jobs without a priority (every live one)
 * are always taken first: a backfill's webhooks never hold up live ones, whatever its size.
 */
export const BACKFILL_JOB_PRIORITY = 1_000;

/** Deliveries per batch job: large enough to spread the queue's cost, small enough to spread the work. */
export const DELIVERY_BATCH_SIZE = 50;

/** What the worker decided for one attempt (switches over it are exhaustive). */
export type DeliveryOutcome =
  | { outcome: 'delivered'; statusCode: number }
  | { outcome: 'retry'; after: number; error: string }
  | { outcome: 'gave-up'; error: string }
  | { outcome: 'held' }
  /** Its endpoint already has as many requests in flight as allowed: try again shortly, not counted as an attempt. */
  | { outcome: 'postponed'; endpoint: string }
  /** Inside a batch job, for an endpoint known to be slow: the delivery goes on as its own job, not counted as an attempt. */
  | { outcome: 'handed-off'; endpoint: string }
  /** Over its stream's maxRequestsPerSecond: sent at `afterMs` (its reserved turn), not counted as an attempt. */
  | { outcome: 'throttled'; afterMs: number }
  | { outcome: 'dropped'; reason: string }
  /** An ordered stream's delivery whose previous one is not settled: its job ends; the previous one's settling hands it its turn. */
  | { outcome: 'waits-turn'; previous: number };

/**
 * The worker owns the retry schedule (its custom backoff strategy); the job only allows "many"
 * attempts, and the worker stops retrying by finishing the job once the schedule is used up.
 */
export async function enqueueDelivery(queue: Queue, deliveryId: string, jobId: string): Promise<void> {
  const data: DeliveryJob = { v: 1, deliveryId };
  await queue.add('deliver', data, jobOptions(jobId));
}

/**
 * The job of each delivery of one block event, in order: `singleJobIds` are the ids the
 * deliveries' jobs have alone; every `batchSize` of them share one batch job (a lone one keeps
 * its own id). Decided before the delivery rows are written, so each row names its job.
 */
export function assignDeliveryJobs(
  singleJobIds: readonly string[],
  batchSize = DELIVERY_BATCH_SIZE,
): string[] {
  const out: string[] = [];
  for (let at = 0; at < singleJobIds.length; at += batchSize) {
    const chunk = singleJobIds.slice(at, at + batchSize);
    const id = chunk.length === 1 ? (chunk[0] as string) : jobIdFor({ for: 'batch', memberJobIds: chunk });
    for (let i = 0; i < chunk.length; i++) out.push(id);
  }
  return out;
}

/**
 * Deliveries under the jobs their rows name, in one Redis round trip (pipelined): the members
 * of a batch job id as one batch job, any other as a plain `deliveryJob`. BullMQ adds a job id
 * that exists once, so a replay enqueues nothing twice.
 */
export async function enqueueAssignedDeliveries(
  queue: Queue,
  items: readonly { deliveryId: string; jobId: string }[],
  priority?: number,
): Promise<void> {
  if (items.length === 0) return;
  const members = new Map<string, string[]>();
  for (const { deliveryId, jobId } of items) {
    const list = members.get(jobId);
    if (list) list.push(deliveryId);
    else members.set(jobId, [deliveryId]);
  }
  const jobs = [...members].map(([jobId, deliveryIds]) => {
    const [only] = deliveryIds;
    if (!isBatchJobId(jobId) && deliveryIds.length === 1 && only)
      return {
        name: 'deliver',
        data: { v: 1, deliveryId: only } satisfies DeliveryJob,
        opts: jobOptions(jobId, priority),
      };
    return {
      name: 'deliver-batch',
      data: { v: 2, deliveryIds } satisfies DeliveryBatchJob,
      opts: jobOptions(jobId, priority),
    };
  });
  await queue.addBulk(jobs);
}

/**
 * Many deliveries in one Redis round trip (pipelined), `batchSize` to a job: `jobId` is the id
 * the delivery's job has when it is alone (a lone delivery is a plain `deliveryJob`).
 */
export async function enqueueDeliveries(
  queue: Queue,
  items: readonly { deliveryId: string; jobId: string }[],
  batchSize = DELIVERY_BATCH_SIZE,
): Promise<void> {
  const assigned = assignDeliveryJobs(
    items.map((i) => i.jobId),
    batchSize,
  );
  await enqueueAssignedDeliveries(
    queue,
    items.map((i, n) => ({ deliveryId: i.deliveryId, jobId: assigned[n] as string })),
  );
}

/** A delivery that goes on under a job of its own: a batch member alone, a retry, a relayed or next-turn job. */
export interface FollowUpJob {
  deliveryId: string;
  jobId: string;
  attemptsBefore: number;
  delayMs: number;
  busyEndpoint?: string;
  /** The priority of the job it comes from (a backfill's); absent: a live delivery's. */
  priority?: number | undefined;
}

/** Follow-up jobs, each as a `deliveryJob` (one pipelined round trip). */
export async function enqueueFollowUps(queue: Queue, items: readonly FollowUpJob[]): Promise<void> {
  if (items.length === 0) return;
  await queue.addBulk(
    items.map(({ deliveryId, jobId, attemptsBefore, delayMs, busyEndpoint, priority }) => ({
      name: 'deliver',
      data: {
        v: 1,
        deliveryId,
        attemptsBefore,
        ...(busyEndpoint ? { busyEndpoint } : {}),
      } satisfies DeliveryJob,
      opts: { ...jobOptions(jobId, priority), delay: delayMs },
    })),
  );
}

const jobOptions = (jobId: string, priority?: number) => ({
  jobId,
  ...(priority ? { priority } : {}),
  attempts: 1_000_000,
  backoff: { type: 'webhook-schedule' },
  removeOnComplete: true,
  removeOnFail: true,
});
