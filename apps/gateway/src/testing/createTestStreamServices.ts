import { randomBytes } from 'node:crypto';
import { createKafka, createProducer, kafkaClientLogger } from '@tributary/bus';
import { createChainRegistry } from '@tributary/chains';
import type { Pool } from '@tributary/db';
import { createLogger, createOutageLog } from '@tributary/runtime';
import { DEFAULT_STREAM_LIMITS } from '@tributary/stream-rules';
import { type WebhookPoster, createWebhookPoster } from '@tributary/webhooks';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Router } from 'express';
import type { Logger } from 'pino';
import { createStreamServices } from '../streams/createStreamServices.ts';
import { mountStreamRoutes } from '../streams/mountStreamRoutes.ts';
import type { StreamRouteDeps } from '../streams/streamDeps.ts';
import { DEFAULT_ACCOUNT_QUOTAS } from '../streams/streamLimitsEnv.ts';

const KAFKA_BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(',');
const DAY_MS = 86_400_000;

export interface TestStreamServices {
  deps: StreamRouteDeps;
  /** The change topic's prefix, of this test alone. */
  topicPrefix: string;
  mount(router: Router): void;
  close(): Promise<void>;
}

/**
 * The real stream interface over a test database, its clients built as main.ts builds them: a
 * Kafka producer on a topic prefix and a delivery queue on a Redis prefix of its own, loopback
 * webhook URLs allowed (test receivers). `kafkaBrokers` replaces the test Kafka (a broker that is
 * away); `webhookPoster` sends the test webhooks (another policy, a resolver of the test's).
 */
export async function createTestStreamServices(
  pool: Pool,
  redisUrl: string,
  opts: {
    logger?: Logger;
    kafkaBrokers?: string[];
    webhookPoster?: WebhookPoster;
    limits?: StreamRouteDeps['limits'];
  } = {},
): Promise<TestStreamServices> {
  const logger = opts.logger ?? createLogger('gateway-test', process.env['LOG_LEVEL'] ?? 'silent');
  const unique = `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
  const topicPrefix = `t-${unique}.`;
  const kafkaOutage = createOutageLog(logger, 'kafka');
  const kafka = createKafka({
    brokers: opts.kafkaBrokers ?? KAFKA_BROKERS,
    clientId: 'gateway-test',
    logger: kafkaClientLogger(logger, kafkaOutage),
  });
  const producer = createProducer(kafka, 'plain');
  const deliveryQueue = openTestWebhookQueue(redisUrl, `q-${unique}`);
  const webhookPoster =
    opts.webhookPoster ??
    createWebhookPoster({ policy: { allowPrivate: true, requireHttps: false, allowedPorts: [] } });
  const services = await createStreamServices({
    clients: { kafka, kafkaOutage, producer, deliveryQueue, webhookPoster },
    settings: {
      topicPrefix,
      testWebhookTimeoutMs: 2_000,
      secretRotationWindowMs: DAY_MS,
      followedChainsCacheMs: 0,
      limits: opts.limits ?? { stream: DEFAULT_STREAM_LIMITS, quotas: DEFAULT_ACCOUNT_QUOTAS },
    },
    pool,
    chains: createChainRegistry(),
    cursorSecret: 'test-cursor-secret-0123456789',
    logger,
  });
  return {
    deps: services.deps,
    topicPrefix,
    mount: (router) => mountStreamRoutes(router, services.deps),
    async close() {
      services.stop();
      await deliveryQueue.obliterate({ force: true }).catch(() => undefined);
      webhookPoster.close();
      await Promise.allSettled([producer.disconnect(), deliveryQueue.close()]);
    },
  };
}
