import { WEBHOOK_QUEUE, deliveryJob } from '@tributary/webhooks';
import { type Job, Worker } from 'bullmq';
import { type AttemptDeps, attemptDelivery } from './attemptDelivery.ts';

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
  deps: AttemptDeps & { redisUrl: string; queuePrefix: string; concurrency: number },
): Worker {
  const schedule = deps.retryScheduleMs;
  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job: Job) => {
      const { deliveryId } = deliveryJob.parse(job.data);
      const result = await attemptDelivery(deps, deliveryId, job.attemptsMade);
      switch (result.outcome) {
        case 'retry':
          throw new RetryLater(result.error);
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
      settings: {
        backoffStrategy: (attemptsMade: number) =>
          schedule[Math.min(attemptsMade - 1, schedule.length - 1)] ?? 0,
      },
    },
  );
  worker.on('error', (err) => deps.logger.error({ err }, 'worker error'));
  return worker;
}
