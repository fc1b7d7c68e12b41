import {
  databaseEnv,
  databaseTimeoutsEnv,
  envInt,
  kafkaEnv,
  kafkaTopicsEnv,
  kafkaRetentionEnv,
  logEnv,
  opsEnv,
  parseEnv,
  redisEnv,
  webhookQueueEnv,
  webhookUrlEnv,
} from '@tributary/config';
import { z } from 'zod';

const DAY = 86_400_000;

export const envSchema = z
  .object({
    ...logEnv,
    ...opsEnv(9104),
    ...databaseEnv,
    // Its statements are single deliveries, batches of them and the gauges' counts.
    ...databaseTimeoutsEnv({ statementMs: 60_000, idleInTransactionMs: 60_000 }),
    ...redisEnv,
    ...kafkaEnv,
    ...kafkaTopicsEnv,
    ...webhookQueueEnv,
    /**
     * Jobs in progress per process. A batch job (a block event's deliveries, up to 50) counts as
     * one; endpoints known to be slow hold at most half of these slots.
     */
    SENDER_CONCURRENCY: envInt(50, 1),
    /** Requests in flight to one webhook origin (scheme://host:port) per process: a hanging endpoint holds no more of the slots. 0: no bound. */
    ENDPOINT_CONCURRENCY: envInt(32, 0),
    WEBHOOK_TIMEOUT_MS: envInt(10_000, 100),
    /**
     * A worker holds each job under a lock it renews every half period; when a sender dies, its jobs
     * return to the queue once the lock expires and a stall check runs. Shorter means faster
     * recovery after a crash; the lock must stay longer than an event-loop stall.
     */
    LOCK_DURATION_MS: envInt(15_000, 1_000),
    STALLED_INTERVAL_MS: envInt(5_000, 500),
    /** Crashes one delivery may live through before BullMQ fails it: high, so a crash loop loses nothing. */
    MAX_STALLED_COUNT: envInt(50, 1),
    /** How old the `x-queue-size` count of a stream may be (it is counted once per period, not per delivery). */
    QUEUE_SIZE_MAX_AGE_MS: envInt(1_000, 0),
    /** Delays between attempts, in ms (the hosted schedule: 1 min, 10 min, 1 h, 2 h, 6 h, 12 h, 1 day). */
    RETRY_SCHEDULE_MS: z
      .string()
      .default('60000,600000,3600000,7200000,21600000,43200000,86400000')
      .transform((s, ctx) => {
        const list = s.split(',').map((x) => Number(x.trim()));
        if (list.some((n) => !Number.isInteger(n) || n < 0)) {
          ctx.addIssue({
            code: 'custom',
            message: 'must be a comma-separated list of non-negative integers (ms)',
          });
          return z.NEVER;
        }
        return list;
      }),
    /** Below this success rate (starts at 100, -1 per failed attempt, +1 per success) a stream goes to error; 0: never. */
    SUCCESS_RATE_THRESHOLD: envInt(70, 0),
    /** A stream in error for this long becomes terminated. */
    TERMINATE_AFTER_MS: envInt(3 * DAY, 0),
    TERMINATE_SWEEP_MS: envInt(60_000, 100),
    /**
     * The outbox relay: how often every pending delivery is checked for its job in Redis (a job
     * lost with Redis is enqueued again within about this long), and how long after its job was
     * named a delivery is left to its writer's own enqueue.
     */
    RELAY_INTERVAL_MS: envInt(2_000, 100),
    RELAY_GRACE_MS: envInt(5_000, 0),
    /** Jobs waiting and none finished for this long: not ready (the watchdog)... */
    WATCHDOG_STALL_MS: envInt(60_000, 1_000),
    /** ...and for this long: the sender exits, for its supervisor to start it afresh. */
    WATCHDOG_EXIT_MS: envInt(180_000, 1_000),
    /**
     * Retention (README, Operations): delivered webhooks keep their body and attempts this many
     * days, failed and held ones this many (pending ones until they are sent). A day of deliveries
     * goes at once, when all of it is older than that.
     */
    DELIVERY_RETENTION_DAYS: envInt(30, 1),
    FAILED_DELIVERY_RETENTION_DAYS: envInt(90, 1),
    /** How often the day partitions are made ahead and the days due dropped (one sender at a time does it). */
    DELIVERY_MAINTENANCE_INTERVAL_MS: envInt(300_000, 1_000),
    /** How often the counters' deltas (/stats, `x-queue-size`, the status command) are folded. */
    DELIVERY_COUNTS_INTERVAL_MS: envInt(1_000, 100),
    KAFKA_CHANGES_RETENTION_HOURS: kafkaRetentionEnv.KAFKA_CHANGES_RETENTION_HOURS,
    KAFKA_DEAD_LETTER_RETENTION_HOURS: kafkaRetentionEnv.KAFKA_DEAD_LETTER_RETENTION_HOURS,
    ...webhookUrlEnv,
  })
  .superRefine((env, ctx) => {
    if (env.FAILED_DELIVERY_RETENTION_DAYS < env.DELIVERY_RETENTION_DAYS)
      ctx.addIssue({
        code: 'custom',
        path: ['FAILED_DELIVERY_RETENTION_DAYS'],
        message: 'must be at least DELIVERY_RETENTION_DAYS (failed and held deliveries are kept longer)',
      });
  });
export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source);
}
