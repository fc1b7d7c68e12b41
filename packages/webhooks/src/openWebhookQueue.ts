import { Queue, type RedisOptions } from 'bullmq';
import { WEBHOOK_QUEUE } from './outbox/deliveryJobs.ts';

/**
 * How a queue client meets a Redis that is away:
 * - `waits`: its commands wait until Redis is back (a job that must be added: the gateway's test
 *   webhooks, the sender's follow-ups);
 * - `failsFast`: its commands fail at once and the client reconnects behind them (a fast path with
 *   a durable fallback: the matcher's enqueue, the relay's pass, whose next pass tries again);
 * - `once`: one connection try, then every command fails (a command-line tool, which says so).
 */
export type QueueRedisMode = 'waits' | 'failsFast' | 'once';

const CONNECTION = {
  waits: { maxRetriesPerRequest: null },
  failsFast: { maxRetriesPerRequest: 1, enableOfflineQueue: false },
  once: { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => null },
} as const;

/**
 * The length BullMQ trims the queue's event stream (`<prefix>:webhooks:events`) to, about: every job's
 * every state change appends an event there, for QueueEvents listeners, which Tributary has none of
 * (a dashboard an operator attaches reads it live). BullMQ's default keeps 10,000, a third of the
 * Redis memory a soak uses and a few seconds of events at production rates; this keeps what a
 * listener tailing it live needs. Every opener writes it to the queue's meta key, and the scripts of
 * every producer and worker trim by it.
 */
export const WEBHOOK_QUEUE_EVENTS_MAX_LEN = 1_000;

/**
 * The BullMQ queue of webhook deliveries, the one way every service and tool opens it.
 *
 * BullMQ sets a connection up once: should Redis go away between the client's ready check and
 * BullMQ's own version check, the queue keeps that failure for good and every later command fails,
 * Redis back or not. `onBroken` hears of it: a long-running service exits with its restart code
 * then, and its supervisor starts it afresh, instead of running on with a queue that never works.
 * So does a connection that ended for good later (ioredis gave up reconnecting).
 */
export function openWebhookQueue(opts: {
  /** Where Redis is: `{ url }`, or the sentinels and master name that `redisConnection` (packages/config) makes. */
  redis: RedisOptions;
  prefix: string;
  mode: QueueRedisMode;
  onBroken: (err: unknown) => void;
}): Queue {
  const queue = new Queue(WEBHOOK_QUEUE, {
    connection: { ...opts.redis, ...CONNECTION[opts.mode] },
    prefix: opts.prefix,
    streams: { events: { maxLen: WEBHOOK_QUEUE_EVENTS_MAX_LEN } },
  });
  let reported = false;
  const broken = (err: unknown) => {
    if (reported || queue.closing !== undefined) return;
    reported = true;
    opts.onBroken(err);
  };
  queue.waitUntilReady().catch(broken);
  // A client whose connection ended (ioredis' last state: it does not reconnect, as seen after a
  // Sentinel failover) never works again either.
  queue.client.then(
    (client) =>
      client.once('end', () =>
        broken(new Error("the webhook queue's Redis connection ended; it does not reconnect")),
      ),
    () => undefined,
  );
  return queue;
}
