import { type Processor, type RedisOptions, Worker, type WorkerOptions } from 'bullmq';
import { WEBHOOK_QUEUE } from './outbox/deliveryJobs.ts';

/**
 * A BullMQ worker of the webhook queue, the one way a service opens one (its queue counterpart:
 * openWebhookQueue). Its commands wait while Redis is away (BullMQ requires that of a worker's
 * blocking connection). It sets its connections up as the queue does, once: should that fail,
 * `onBroken` hears of it, and the service exits with its restart code instead of running on with
 * a worker that never takes a job.
 */
export function openWebhookWorker(opts: {
  /** Where Redis is: `{ url }`, or the sentinels and master name that `redisConnection` (packages/config) makes. */
  redis: RedisOptions;
  prefix: string;
  /** What runs each job. */
  processor: Processor;
  /** How many jobs at once, the lock and stalled-job settings, the backoff strategy. */
  settings: Pick<
    WorkerOptions,
    'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount' | 'settings'
  >;
  onBroken: (err: unknown) => void;
}): Worker {
  const worker = new Worker(WEBHOOK_QUEUE, opts.processor, {
    ...opts.settings,
    connection: { ...opts.redis, maxRetriesPerRequest: null },
    prefix: opts.prefix,
  });
  worker.waitUntilReady().catch((err: unknown) => {
    if (!worker.closing) opts.onBroken(err);
  });
  return worker;
}
