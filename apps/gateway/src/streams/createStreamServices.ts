import { DEFAULT_STREAM_LIMITS, type StreamLimits } from '@tributary/stream-rules';
import { type AccountQuotas, DEFAULT_ACCOUNT_QUOTAS, streamLimitsEnv } from './streamLimitsEnv.ts';
import {
  type TopicReplication,
  createKafka,
  createStreamChangeAnnouncer,
  ensureTopics,
  hoursToMs,
  kafkaClientLogger,
  topicName,
} from '@tributary/bus';
import {
  type RedisConnectionOptions,
  envInt,
  kafkaEnv,
  kafkaRetentionEnv,
  kafkaTopicsEnv,
  redisEnv,
  webhookQueueEnv,
  webhookUrlEnv,
} from '@tributary/config';
import type { ChainRegistry } from '@tributary/chains';
import { TOPICS } from '@tributary/schema';
import type { Pool } from '@tributary/db';
import { createWebhookPoster, openWebhookQueue } from '@tributary/webhooks';
import { Partitioners } from 'kafkajs';
import { createOutageLog, retryUntilDone } from '@tributary/runtime';
import type { Logger } from 'pino';
import { createFollowedChains } from '../data/createFollowedChains.ts';
import { createCursorCodec } from '../cursor/createCursorCodec.ts';
import type { StreamRouteDeps } from './streamDeps.ts';

const DAY_MS = 86_400_000;

/** Environment of the stream interface (merge into the gateway's env schema). */
export const streamsEnv = {
  ...kafkaEnv,
  ...kafkaTopicsEnv,
  KAFKA_CHANGES_RETENTION_HOURS: kafkaRetentionEnv.KAFKA_CHANGES_RETENTION_HOURS,
  ...redisEnv,
  ...webhookQueueEnv,
  ...webhookUrlEnv,
  TEST_WEBHOOK_TIMEOUT_MS: envInt(10_000, 100),
  ...streamLimitsEnv,
  /**
   * How long the webhook secret a POST /settings replaces keeps signing (0: not at all, for a
   * leaked secret): retries in flight and receivers that switch later still verify.
   */
  SECRET_ROTATION_WINDOW_MS: envInt(DAY_MS, 0),
};

/** Builds the stream routes' dependencies: a Kafka producer for change events and the delivery queue. */
export async function createStreamServices(opts: {
  env: {
    KAFKA_BROKERS: string[];
    KAFKA_CLIENT_ID: string;
    KAFKA_TOPIC_PREFIX: string;
    /** retention.ms of the change topic, set once the producer connects (unset: left as it is). */
    KAFKA_CHANGES_RETENTION_HOURS?: number;
    WEBHOOK_QUEUE_PREFIX: string;
    ALLOW_PRIVATE_WEBHOOK_URLS: boolean;
    WEBHOOK_REQUIRE_HTTPS: boolean;
    WEBHOOK_ALLOWED_PORTS: readonly number[];
    TEST_WEBHOOK_TIMEOUT_MS: number;
    SECRET_ROTATION_WINDOW_MS?: number;
    FOLLOWED_CHAINS_CACHE_MS?: number;
  };
  /** The delivery queue's Redis (`redisConnection`). */
  redis: RedisConnectionOptions;
  /** How the change topic is replicated, when the gateway is the first to need it (default: a single broker's). */
  replication?: TopicReplication;
  pool: Pool;
  chains: ChainRegistry;
  cursorSecret: string;
  logger: Logger;
  /** The delivery queue's Redis connection failed while it was set up: it never works again. */
  onRedisBroken: (err: unknown) => void;
  /** What one stream body and one account may hold (default: the documented defaults). */
  limits?: { stream: StreamLimits; quotas: AccountQuotas };
}): Promise<{ deps: StreamRouteDeps; close: () => Promise<void> }> {
  const { env } = opts;
  // kafkajs logs every failed connection of a broker restart: one outage line instead, ended by
  // the next stream change that reaches the broker.
  const kafkaOutage = createOutageLog(opts.logger, 'kafka');
  const kafka = createKafka({
    brokers: env.KAFKA_BROKERS,
    clientId: env.KAFKA_CLIENT_ID,
    logger: kafkaClientLogger(opts.logger, kafkaOutage),
  });
  const producer = kafka.producer({
    allowAutoTopicCreation: true,
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  // The gateway does not need Kafka: it serves while the producer connects (with backoff, one log
  // line per outage); a stream change announced meanwhile waits for it, the call does not.
  const stopping = new AbortController();
  // The change topic, with its copies and retention (made here, or found made by a producer with
  // the broker's defaults), then the producer.
  const changesRetentionHours = env.KAFKA_CHANGES_RETENTION_HOURS;
  const connected = retryUntilDone(
    async () => {
      await ensureTopics(
        kafka,
        [
          {
            topic: topicName(env.KAFKA_TOPIC_PREFIX, TOPICS.streamChanges),
            ...(changesRetentionHours === undefined ? {} : { retentionMs: hoursToMs(changesRetentionHours) }),
          },
        ],
        { ...(opts.replication ? { replication: opts.replication } : {}), logger: opts.logger },
      );
      await producer.connect();
    },
    {
      outage: createOutageLog(opts.logger, 'kafka (stream change producer)'),
      signal: stopping.signal,
    },
  );
  connected.catch(() => undefined); // only given up when the gateway stops
  const announceChange = createStreamChangeAnnouncer({
    producer,
    topicPrefix: env.KAFKA_TOPIC_PREFIX,
    ready: connected,
    outage: kafkaOutage,
  });
  const deliveryQueue = openWebhookQueue({
    redis: opts.redis,
    prefix: env.WEBHOOK_QUEUE_PREFIX,
    mode: 'waits',
    onBroken: opts.onRedisBroken,
  });
  // Test webhooks leave through the sender's own client, under the same policy.
  const webhookPoster = createWebhookPoster({
    policy: {
      allowPrivate: env.ALLOW_PRIVATE_WEBHOOK_URLS,
      requireHttps: env.WEBHOOK_REQUIRE_HTTPS,
      allowedPorts: env.WEBHOOK_ALLOWED_PORTS,
    },
  });
  return {
    deps: {
      pool: opts.pool,
      chains: opts.chains,
      followedChains: createFollowedChains({
        pool: opts.pool,
        cacheMs: env.FOLLOWED_CHAINS_CACHE_MS ?? 10_000,
        logger: opts.logger,
      }),
      cursors: createCursorCodec(opts.cursorSecret),
      announceChange,
      deliveryQueue,
      webhookPoster,
      testWebhookTimeoutMs: env.TEST_WEBHOOK_TIMEOUT_MS,
      limits: opts.limits ?? { stream: DEFAULT_STREAM_LIMITS, quotas: DEFAULT_ACCOUNT_QUOTAS },
      secretRotationWindowMs: env.SECRET_ROTATION_WINDOW_MS ?? DAY_MS,
      logger: opts.logger,
    },
    close: async () => {
      stopping.abort();
      webhookPoster.close();
      await Promise.allSettled([producer.disconnect(), deliveryQueue.close()]);
    },
  };
}
