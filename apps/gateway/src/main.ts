import type { AddressInfo } from 'node:net';
import { createKafka, createProducer, kafkaClientLogger } from '@tributary/bus';
import { createChainRegistry } from '@tributary/chains';
import { kafkaReplication, redisConnection } from '@tributary/config';
import { createPool } from '@tributary/db';
import { Counter, bootService, createOutageLog, serveOps, watchPool } from '@tributary/runtime';
import { createWebhookPoster, openWebhookQueue } from '@tributary/webhooks';
import { Redis } from 'ioredis';
import { createApp } from './app/createApp.ts';
import { createHttpServer } from './app/createHttpServer.ts';
import { createPublicListener } from './app/createPublicListener.ts';
import { appSettingsOf, loadEnv } from './env.ts';
import { withSessionSettings } from './db-settings/withSessionSettings.ts';
import { createStreamServices } from './streams/createStreamServices.ts';
import { limitsOf } from './streams/streamLimitsEnv.ts';
import { mountStreamRoutes } from './streams/mountStreamRoutes.ts';

// Composition root: reads the environment, then builds the service, its clients, its domain
// objects and its shutdown, in that order; the only place that builds clients and listens.
const env = loadEnv();
const redisOptions = redisConnection(env);
const replication = kafkaReplication(env);
const service = bootService({
  name: 'gateway',
  logLevel: env.LOG_LEVEL,
  shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS,
});
const { logger, health, shutdown } = service;
if (env.cursorSecretDerived) {
  logger.warn(
    'CURSOR_SECRET is not set: using a development secret derived from DATABASE_URL (never in production)',
  );
}

const pool = createPool({
  connectionString: withSessionSettings(env.DATABASE_URL),
  max: env.DATABASE_POOL_SIZE,
  application: 'gateway',
  timeouts: {
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  },
});
watchPool(service, pool);
// Redis alone or behind Sentinel: every Redis client of the gateway is built from this one description.
// ioredis takes a URL beside its options (BullMQ does that split itself).
const { url: redisUrl, ...rateLimitRedis } = {
  ...redisOptions,
  maxRetriesPerRequest: 2,
  enableOfflineQueue: true,
  lazyConnect: false,
};
const redis = redisUrl === undefined ? new Redis(rateLimitRedis) : new Redis(redisUrl, rateLimitRedis);
redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
// kafkajs logs every failed connection of a broker restart: one outage line instead, ended by
// the next stream change that reaches the broker.
const kafkaOutage = createOutageLog(logger, 'kafka');
const kafka = createKafka({
  brokers: env.KAFKA_BROKERS,
  clientId: env.KAFKA_CLIENT_ID,
  logger: kafkaClientLogger(logger, kafkaOutage),
});
const changeProducer = createProducer(kafka, 'plain');
const deliveryQueue = openWebhookQueue({
  redis: redisOptions,
  prefix: env.WEBHOOK_QUEUE_PREFIX,
  mode: 'waits',
  onBroken: (err) => shutdown.fail('the webhook queue lost Redis while it was set up', err),
});
const webhookPoster = createWebhookPoster({
  policy: {
    allowPrivate: env.ALLOW_PRIVATE_WEBHOOK_URLS,
    requireHttps: env.WEBHOOK_REQUIRE_HTTPS,
    allowedPorts: env.WEBHOOK_ALLOWED_PORTS,
  },
});
health.addCheck('redis', async () => {
  await redis.ping();
});
// Ready means the public port takes requests (it is listened on last; a predecessor may still hold it).
const publicPort = createPublicListener({
  host: env.HTTP_HOST,
  port: env.HTTP_PORT,
  retryForMs: env.SHUTDOWN_DEADLINE_MS,
  signal: shutdown.signal,
  onTaken: (attempt, err) => logger.warn({ attempt, err: err.message }, 'public port taken; trying again'),
});
health.addCheck('http', () => publicPort.check());

// Metrics and the readiness of each dependency, on the ops port only (loopback by default): the
// public port says only whether the gateway is ready.
await serveOps(service, env.OPS_HOST, env.OPS_PORT);

const chains = createChainRegistry(env.EXTRA_CHAINS);
const streams = await createStreamServices({
  clients: { kafka, kafkaOutage, producer: changeProducer, deliveryQueue, webhookPoster },
  settings: {
    topicPrefix: env.KAFKA_TOPIC_PREFIX,
    changesRetentionHours: env.KAFKA_CHANGES_RETENTION_HOURS,
    testWebhookTimeoutMs: env.TEST_WEBHOOK_TIMEOUT_MS,
    secretRotationWindowMs: env.SECRET_ROTATION_WINDOW_MS,
    followedChainsCacheMs: env.FOLLOWED_CHAINS_CACHE_MS,
    limits: limitsOf(env),
  },
  replication,
  pool,
  chains,
  cursorSecret: env.CURSOR_SECRET,
  logger,
});

const app = createApp({
  pool,
  redis,
  logger,
  metrics: service.metrics,
  health,
  chains,
  cursorSecret: env.CURSOR_SECRET,
  ...appSettingsOf(env),
  mountStreams: (router) => mountStreamRoutes(router, streams.deps),
});

const server = createHttpServer(app, env.httpLimits);
const refusedConnections = new Counter({
  name: 'tributary_gateway_connections_refused_total',
  help: 'Connections closed as soon as accepted: HTTP_MAX_CONNECTIONS were open',
  registers: [service.metrics],
});
server.on('drop', () => refusedConnections.inc());

// Stop accepting, let in-flight requests finish (idle keep-alive sockets are closed at once),
// then close the pools. Registered before listening: a stop while the public port is still taken
// closes what was built.
shutdown.register('http-server', 'intake', async () => {
  if (!server.listening) return;
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
});
shutdown.register('stream-change-producer', 'close', async () => {
  streams.stop();
  await changeProducer.disconnect();
});
shutdown.register('webhook-queue', 'close', () => deliveryQueue.close());
shutdown.register('webhook-connections', 'close', () => webhookPoster.close());
shutdown.register('redis', 'close', async () => {
  await redis.quit();
});
shutdown.register('postgres', 'close', () => pool.end());

// False: stopped while another process held the port; the shutdown above is already under way.
if (await publicPort.listen(server)) {
  logger.info({ host: env.HTTP_HOST, port: (server.address() as AddressInfo).port }, 'gateway listening');
}
