import type { Queue } from 'bullmq';
import { z } from 'zod';

/** BullMQ queue of webhook deliveries (the prefix isolates deployments and tests). */
export const WEBHOOK_QUEUE = 'webhooks';

/** The job carries only the delivery id: body, URL and secret are read at each attempt, so an update applies to retries. */
export const deliveryJob = z.object({ v: z.literal(1), deliveryId: z.string().uuid() });
export type DeliveryJob = z.infer<typeof deliveryJob>;

/** One job per (stream, chain, block hash, confirmed): a replayed Kafka message enqueues nothing twice. */
export function deliveryJobId(
  streamId: string,
  chainId: number,
  blockHash: string,
  confirmed: boolean,
): string {
  return `${streamId}_${chainId}_${blockHash}_${confirmed ? 'c' : 'u'}`;
}

/** What the worker decided for one attempt (switches over it are exhaustive). */
export type DeliveryOutcome =
  | { outcome: 'delivered'; statusCode: number }
  | { outcome: 'retry'; after: number; error: string }
  | { outcome: 'gave-up'; error: string }
  | { outcome: 'held' }
  /** Its endpoint already has as many requests in flight as allowed: try again shortly, not counted as an attempt. */
  | { outcome: 'postponed'; endpoint: string }
  | { outcome: 'dropped'; reason: string };

/**
 * The worker owns the retry schedule (its custom backoff strategy); the job only allows "many"
 * attempts, and the worker stops retrying by finishing the job once the schedule is used up.
 */
export async function enqueueDelivery(queue: Queue, deliveryId: string, jobId: string): Promise<void> {
  const data: DeliveryJob = { v: 1, deliveryId };
  await queue.add('deliver', data, jobOptions(jobId));
}

/** Many deliveries in one Redis round trip (pipelined). */
export async function enqueueDeliveries(
  queue: Queue,
  items: readonly { deliveryId: string; jobId: string }[],
): Promise<void> {
  if (items.length === 0) return;
  await queue.addBulk(
    items.map(({ deliveryId, jobId }) => ({
      name: 'deliver',
      data: { v: 1, deliveryId } satisfies DeliveryJob,
      opts: jobOptions(jobId),
    })),
  );
}

const jobOptions = (jobId: string) => ({
  jobId,
  attempts: 1_000_000,
  backoff: { type: 'webhook-schedule' },
  removeOnComplete: true,
  removeOnFail: true,
});
