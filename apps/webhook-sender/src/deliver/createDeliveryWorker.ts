import { WEBHOOK_QUEUE, deliveryJob } from '@tributary/webhooks';
import { DelayedError, type Job, Worker } from 'bullmq';
import { type AttemptDeps, attemptDelivery, createDeliveryStore } from './attemptDelivery.ts';
import { createEndpointSlots } from './createEndpointSlots.ts';

/** Thrown to make BullMQ schedule the next attempt through the custom backoff strategy. */
class RetryLater extends Error {
  override readonly name = 'RetryLater';
}

/**
 * The BullMQ worker. The retry schedule lives here (custom backoff strategy): a failed attempt
 * throws, BullMQ waits `schedule[attemptsMade - 1]`, and once the schedule is used up the
 * attempt finishes the job as failed in history.
 */
export function createDeliveryWorker(
  deps: AttemptDeps & {
    redisUrl: string;
    queuePrefix: string;
    concurrency: number;
    /** Requests in flight to one endpoint from this process (0: no bound). */
    endpointConcurrency: number;
    lockDurationMs: number;
    stalledIntervalMs: number;
    maxStalledCount: number;
  },
): Worker {
  const schedule = deps.retryScheduleMs;
  const store = createDeliveryStore(deps.pool, deps.successRateThreshold);
  const slots = createEndpointSlots(deps.endpointConcurrency);
  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job: Job, token?: string) => {
      const { deliveryId } = deliveryJob.parse(job.data);
      const result = await attemptDelivery({ ...deps, store, slots }, deliveryId, job.attemptsMade);
      switch (result.outcome) {
        case 'retry':
          throw new RetryLater(result.error);
        case 'postponed':
          // Back to the delayed set, without counting an attempt, until a slot of that endpoint
          // is expected to be free (at most ten timeouts away).
          await job.moveToDelayed(
            Date.now() + slots.postponeFor(result.endpoint, deps.timeoutMs, 10 * deps.timeoutMs),
            token,
          );
          throw new DelayedError();
        case 'delivered':
        case 'gave-up':
        case 'held':
        case 'dropped':
          return result;
        default: {
          const never: never = result;
          return never;
        }
      }
    },
    {
      connection: { url: deps.redisUrl, maxRetriesPerRequest: null },
      prefix: deps.queuePrefix,
      concurrency: deps.concurrency,
      lockDuration: deps.lockDurationMs,
      stalledInterval: deps.stalledIntervalMs,
      maxStalledCount: deps.maxStalledCount,
      settings: {
        backoffStrategy: (attemptsMade: number) =>
          schedule[Math.min(attemptsMade - 1, schedule.length - 1)] ?? 0,
      },
    },
  );
  worker.on('error', (err) => deps.logger.error({ err }, 'worker error'));
  return worker;
}
