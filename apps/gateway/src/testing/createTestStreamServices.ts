import { randomBytes } from 'node:crypto';
import { createChainRegistry } from '@tributary/chains';
import type { Pool } from '@tributary/db';
import { createLogger } from '@tributary/runtime';
import type { WebhookPoster } from '@tributary/webhooks';
import type { Router } from 'express';
import type { Logger } from 'pino';
import { createStreamServices } from '../streams/createStreamServices.ts';
import { mountStreamRoutes } from '../streams/mountStreamRoutes.ts';
import type { StreamRouteDeps } from '../streams/streamDeps.ts';

const KAFKA_BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(',');

export interface TestStreamServices {
  mount(router: Router): void;
  close(): Promise<void>;
}

/**
 * The real stream interface over a test database: a Kafka producer on a topic prefix and a
 * delivery queue on a Redis prefix of its own, loopback webhook URLs allowed (test receivers).
 * `kafkaBrokers` replaces the test Kafka (a broker that is away); `webhookPoster` sends the test
 * webhooks in place of the one the environment makes (another policy, a resolver of the test's).
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
  const services = await createStreamServices({
    env: {
      KAFKA_BROKERS: opts.kafkaBrokers ?? KAFKA_BROKERS,
      KAFKA_CLIENT_ID: 'gateway-test',
      KAFKA_TOPIC_PREFIX: `t-${unique}.`,
      WEBHOOK_QUEUE_PREFIX: `q-${unique}`,
      ALLOW_PRIVATE_WEBHOOK_URLS: true,
      WEBHOOK_REQUIRE_HTTPS: false,
      WEBHOOK_ALLOWED_PORTS: [],
      TEST_WEBHOOK_TIMEOUT_MS: 2_000,
      FOLLOWED_CHAINS_CACHE_MS: 0,
    },
    redis: { url: redisUrl },
    pool,
    chains: createChainRegistry(),
    cursorSecret: 'test-cursor-secret-0123456789',
    logger,
    onRedisBroken: (err) => {
      throw err; // an unhandled rejection: the test run reports it
    },
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  return {
    mount: (router) =>
      mountStreamRoutes(router, {
        ...services.deps,
        ...(opts.webhookPoster ? { webhookPoster: opts.webhookPoster } : {}),
      }),
    async close() {
      await services.deps.deliveryQueue.obliterate({ force: true }).catch(() => undefined);
      await services.close();
    },
  };
}
