import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChainRegistry } from '@tributary/chains';
import { type CreatedApiKey, createAccountWithKey } from '@tributary/db/accounts';
import { type Health, type Registry, createHealth, createLogger, createMetrics } from '@tributary/runtime';
import type { WebhookPoster } from '@tributary/webhooks';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type AppDeps, createApp } from '../app/createApp.ts';
import { createHttpServer } from '../app/createHttpServer.ts';
import { appSettingsOf, loadEnv } from '../env.ts';
import type { StreamRouteDeps } from '../streams/streamDeps.ts';
import { createTestStreamServices } from './createTestStreamServices.ts';
import { type TestDatabase, TEST_REDIS_URL, createTestDatabase } from './testDatabase.ts';

export interface TestGateway {
  db: TestDatabase;
  redis: Redis;
  baseUrl: string;
  /** The express app behind `baseUrl`. */
  app: Express;
  /** Its readiness checks (none unless a test adds some) and its metrics (served on the ops port in production). */
  health: Health;
  metrics: Registry;
  /** A key of the account "test". */
  apiKey: CreatedApiKey;
  /** GET/POST with the test key unless headers say otherwise. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A gateway on port 0 over its own fresh database and its own Redis key prefix. `streams: true`
 * mounts the real stream interface (see createTestStreamServices) in place of `mountStreams`,
 * on `kafkaBrokers` when given, its test webhooks sent by `webhookPoster` when given.
 */
export async function startTestGateway(
  overrides: Partial<
    Pick<
      AppDeps,
      | 'apiKeyCacheMs'
      | 'invalidKeyCacheMs'
      | 'trustProxy'
      | 'bodyLimitBytes'
      | 'mountStreams'
      | 'transferCheckpointBlocks'
      | 'followedChainsCacheMs'
    > & {
      rateLimit: Partial<AppDeps['rateLimit']>;
      authFailures: Partial<AppDeps['authFailures']>;
      streams: boolean;
      logger: Logger;
      kafkaBrokers: string[];
      webhookPoster: WebhookPoster;
      limits: StreamRouteDeps['limits'];
      /** A Redis of the test's own (closed by the test); by default one on the run's Redis. */
      redis: Redis;
    }
  > = {},
): Promise<TestGateway> {
  const db = await createTestDatabase();
  const ownRedis = overrides.redis === undefined;
  const redis = overrides.redis ?? new Redis(TEST_REDIS_URL, { lazyConnect: false });
  const logger = overrides.logger ?? createLogger('gateway-test', process.env['LOG_LEVEL'] ?? 'silent');
  const streams = overrides.streams
    ? await createTestStreamServices(db.pool, TEST_REDIS_URL, {
        logger,
        ...(overrides.kafkaBrokers ? { kafkaBrokers: overrides.kafkaBrokers } : {}),
        ...(overrides.webhookPoster ? { webhookPoster: overrides.webhookPoster } : {}),
        ...(overrides.limits ? { limits: overrides.limits } : {}),
      })
    : undefined;
  const prefix = `test:gw:${randomBytes(6).toString('hex')}:`;
  const health = createHealth();
  const metrics = createMetrics('gateway-test');
  // The deployment's defaults (env.ts), then what tests need: no caches, no limits unless asked.
  const defaults = appSettingsOf(loadEnv({ DATABASE_URL: db.url, NODE_ENV: 'test' }));
  const app = createApp({
    pool: db.pool,
    redis,
    logger,
    metrics,
    health,
    chains: createChainRegistry(),
    cursorSecret: 'test-cursor-secret-0123456789',
    ...defaults,
    rateLimit: { ...defaults.rateLimit, limit: 0, keyPrefix: prefix, ...overrides.rateLimit },
    apiKeyCacheMs: overrides.apiKeyCacheMs ?? 0,
    invalidKeyCacheMs: overrides.invalidKeyCacheMs ?? 0,
    authFailures: {
      ...defaults.authFailures,
      limit: 0,
      keyPrefix: `${prefix}auth:`,
      ...overrides.authFailures,
    },
    trustProxy: overrides.trustProxy ?? defaults.trustProxy,
    bodyLimitBytes: overrides.bodyLimitBytes ?? defaults.bodyLimitBytes,
    mountStreams: streams?.mount ?? overrides.mountStreams,
    transferCheckpointBlocks: overrides.transferCheckpointBlocks ?? defaults.transferCheckpointBlocks,
    // Tests register followed chains as they go (followChain): read them on every request.
    followedChainsCacheMs: overrides.followedChainsCacheMs ?? 0,
  });
  const server: Server = await new Promise((resolve) => {
    // A short request timeout: a request whose body never arrives whole gets its 408 in tests.
    const s = createHttpServer(app, { requestTimeoutMs: 1_000 }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiKey = await createAccountWithKey(db.pool, { accountName: 'test' });
  return {
    db,
    redis,
    baseUrl,
    app,
    health,
    metrics,
    apiKey,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has('x-api-key')) headers.set('x-api-key', apiKey.key);
      return fetch(`${baseUrl}${path}`, { ...init, headers });
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await streams?.close();
      if (ownRedis) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      }
      await db.drop();
    },
  };
}
