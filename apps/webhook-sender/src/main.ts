import {
  createDeadLetters,
  createKafka,
  createStreamChangeAnnouncer,
  createProducer,
  ensureTopics,
  hoursToMs,
  kafkaClientLogger,
  streamChangeOf,
  topicsFor,
} from '@tributary/bus';
import { kafkaReplication, redisConnection } from '@tributary/config';
import { createPool } from '@tributary/db';
import { deadLettersAcknowledgedAt } from '@tributary/db/ops';
import {
  Counter,
  bootService,
  createDeadLetterAlarm,
  createOutageLog,
  createProgressWatchdog,
  serveOps,
  watchPool,
} from '@tributary/runtime';
import { WEBHOOK_QUEUE, createWebhookPoster, openWebhookQueue, openWebhookWorker } from '@tributary/webhooks';
import { Redis } from 'ioredis';
import { createSenderMetrics } from './metrics/createSenderMetrics.ts';
import { createDeliveryProcessor } from './deliver/createDeliveryProcessor.ts';
import { createStreamRateLimiter } from './deliver/createStreamRateLimiter.ts';
import { loadEnv } from './env.ts';
import { startTerminationSweep } from './health/startTerminationSweep.ts';
import { createOutboxRelay } from './relay/createOutboxRelay.ts';
import { createDeliveryMaintenance } from './retention/createDeliveryMaintenance.ts';

// Composition root: reads the environment, then builds the service, its clients, its domain
// objects and its shutdown, in that order; the only place that builds clients.
const env = loadEnv();
// Redis alone or behind Sentinel: every Redis client of the sender is built from this.
const redis = redisConnection(env);
const replication = kafkaReplication(env);
const service = bootService({
  name: 'webhook-sender',
  logLevel: env.LOG_LEVEL,
  shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS,
});
const { logger, metrics, health, shutdown } = service;
const pool = createPool({
  connectionString: env.DATABASE_URL,
  max: env.DATABASE_POOL_SIZE,
  application: 'webhook-sender',
  timeouts: {
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  },
});
watchPool(service, pool);
// kafkajs logs every failed connection of a broker restart: one outage line instead, ended by
// the next status change that reaches the broker.
const kafkaOutage = createOutageLog(logger, 'kafka');
const kafka = createKafka({
  brokers: env.KAFKA_BROKERS,
  clientId: env.KAFKA_CLIENT_ID,
  logger: kafkaClientLogger(logger, kafkaOutage),
});
const topics = topicsFor(env.KAFKA_TOPIC_PREFIX);
const producer = createProducer(kafka, 'plain');
// Every delivery leaves through this one client: it checks the address each connection is made to.
const poster = createWebhookPoster({
  policy: {
    allowPrivate: env.ALLOW_PRIVATE_WEBHOOK_URLS,
    requireHttps: env.WEBHOOK_REQUIRE_HTTPS,
    allowedPorts: env.WEBHOOK_ALLOWED_PORTS,
  },
});
// A queue client whose Redis went away while BullMQ set it up never works again: exit, for the
// supervisor's restart, rather than run on with a relay or worker that does nothing.
const redisBroken = (err: unknown) =>
  shutdown.fail('a webhook queue client lost Redis while it was set up', err);
// Turns under streams' maxRequestsPerSecond: no offline queue, a turn Redis cannot give waits.
const { url: turnsUrl, ...turnsOptions } = {
  ...redis,
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
};
const turns = turnsUrl === undefined ? new Redis(turnsOptions) : new Redis(turnsUrl, turnsOptions);
const turnsOutage = createOutageLog(logger, 'redis (rate-limit turns)');
turns.on('error', (err) => turnsOutage.failed(err));
turns.on('ready', () => turnsOutage.ok());
// The relay's own queue client fails fast while Redis is down (no offline queue): a pass fails
// and the next one, after Redis is back, finds every job that went missing with it.
const relayQueue = openWebhookQueue({
  redis,
  prefix: env.WEBHOOK_QUEUE_PREFIX,
  mode: 'failsFast',
  onBroken: redisBroken,
});
relayQueue.on('error', () => undefined); // counted by the relay's outage log
// The attempts' follow-up jobs must be added: their client waits for Redis.
const followUps = openWebhookQueue({
  redis,
  prefix: env.WEBHOOK_QUEUE_PREFIX,
  mode: 'waits',
  onBroken: redisBroken,
});
// Started now, awaited before the sender says it is ready (dead letters need it too). The topics
// it writes are made (or given their retention) first: the producer would make them with the
// broker's defaults.
const producerConnected = service.untilUp('kafka (producer)', async () => {
  await ensureTopics(
    kafka,
    [
      {
        topic: topics.deadLetters,
        retentionMs: hoursToMs(env.KAFKA_DEAD_LETTER_RETENTION_HOURS),
      },
      {
        topic: topics.streamChanges,
        retentionMs: hoursToMs(env.KAFKA_CHANGES_RETENTION_HOURS),
      },
    ],
    { replication, logger },
  );
  await producer.connect();
});
const announceChange = createStreamChangeAnnouncer({
  producer,
  topicPrefix: env.KAFKA_TOPIC_PREFIX,
  ready: producerConnected,
  outage: kafkaOutage,
});
const announceStatus = (streamId: string) => announceChange(streamChangeOf(streamId, 'upsert'));

const setAside = createDeadLetterAlarm({
  registry: metrics,
  health,
  consumer: 'webhook-sender',
  acknowledgedAt: () => deadLettersAcknowledgedAt(pool),
});
// Poison jobs (data that is not a webhook job) go where every consumer's poison messages go.
const jobDeadLetters = createDeadLetters({
  producer,
  topicPrefix: env.KAFKA_TOPIC_PREFIX,
  consumer: 'webhook-sender',
  onDeadLetter: (letter) =>
    setAside({ topic: letter.topic, at: `job ${letter.offset}`, reason: letter.reason }),
});
const senderMetrics = createSenderMetrics(metrics, {
  queue: relayQueue,
  pool,
  saturatedEndpoints: () => delivery.saturatedEndpoints(),
});
// Jobs waiting and none finished for WATCHDOG_STALL_MS: not ready; for WATCHDOG_EXIT_MS: exit for a restart.
const watchdog = createProgressWatchdog({
  name: 'delivery worker',
  logger,
  stallMs: env.WATCHDOG_STALL_MS,
  exitAfterMs: env.WATCHDOG_EXIT_MS,
  backlog: () => relayQueue.getWaitingCount(),
  onStalled: (reason) => shutdown.fail(reason, new Error(reason)),
});
const delivery = createDeliveryProcessor({
  pool,
  rateLimiter: createStreamRateLimiter(turns, env.WEBHOOK_QUEUE_PREFIX),
  onRateLimiterError: (err) => turnsOutage.failed(err),
  logger,
  retryScheduleMs: env.RETRY_SCHEDULE_MS,
  timeoutMs: env.WEBHOOK_TIMEOUT_MS,
  poster,
  successRateThreshold: env.SUCCESS_RATE_THRESHOLD,
  onStreamStatusChanged: announceStatus,
  followUps,
  concurrency: env.SENDER_CONCURRENCY,
  endpointConcurrency: env.ENDPOINT_CONCURRENCY,
  queueSizeMaxAgeMs: env.QUEUE_SIZE_MAX_AGE_MS,
  deadLetter: (job, reason) =>
    jobDeadLetters.send({
      topic: `bullmq:${WEBHOOK_QUEUE}`,
      partition: 0,
      offset: job.id,
      key: Buffer.from(job.name),
      value: Buffer.from(JSON.stringify(job.data ?? null)),
      reason,
    }),
  onAttempt: (outcome, latencyMs) => senderMetrics.attempt(outcome, latencyMs),
});
const worker = openWebhookWorker({
  redis,
  prefix: env.WEBHOOK_QUEUE_PREFIX,
  processor: delivery.process,
  settings: {
    concurrency: env.SENDER_CONCURRENCY,
    lockDuration: env.LOCK_DURATION_MS,
    stalledInterval: env.STALLED_INTERVAL_MS,
    maxStalledCount: env.MAX_STALLED_COUNT,
    settings: { backoffStrategy: delivery.backoffStrategy },
  },
  onBroken: redisBroken,
});
// BullMQ reports its Redis connection errors here, many per outage: logged once each outage.
const workerOutage = createOutageLog(logger, 'redis (webhook queue)');
worker.on('error', (err) => workerOutage.failed(err));
worker.on('ready', () => workerOutage.ok());
worker.on('completed', () => {
  workerOutage.ok();
  watchdog.progress();
});
// A failed attempt (the receiver's failure, retried on schedule) is progress too.
worker.on('failed', () => watchdog.progress());
const stopSweep = startTerminationSweep({
  pool,
  logger,
  afterMs: env.TERMINATE_AFTER_MS,
  everyMs: env.TERMINATE_SWEEP_MS,
  onTerminated: announceStatus,
});
const requeued = new Counter({
  name: 'tributary_relay_requeued_total',
  help: 'Pending deliveries whose BullMQ job was missing (Redis lost it) and that the relay enqueued again',
  registers: [metrics],
});
const relay = createOutboxRelay({
  pool,
  queue: relayQueue,
  logger,
  intervalMs: env.RELAY_INTERVAL_MS,
  graceMs: env.RELAY_GRACE_MS,
  onRequeued: (n) => requeued.inc(n),
  onPass: (p) => senderMetrics.relayPass(p),
});
// Retention and the deliveries' counters: every sender runs it, one at a time does the work.
const maintenance = createDeliveryMaintenance({
  pool,
  logger,
  policy: { deliveredDays: env.DELIVERY_RETENTION_DAYS, failedDays: env.FAILED_DELIVERY_RETENTION_DAYS },
  passEveryMs: env.DELIVERY_MAINTENANCE_INTERVAL_MS,
  foldEveryMs: env.DELIVERY_COUNTS_INTERVAL_MS,
  onPass: (pass) => senderMetrics.retention(pass),
});
health.addCheck('redis', async () => {
  await ((await relayQueue.client) as unknown as Redis).ping();
});
health.addCheck('relay', () => {
  if (!relay.healthy()) throw new Error('the outbox relay could not complete its last pass');
});
health.addCheck('watchdog', () => watchdog.check());
health.addCheck('worker', () => {
  if (!worker.isRunning()) throw new Error('worker not running');
});
await serveOps(service, env.OPS_HOST, env.OPS_PORT);

// Registered before waiting for Kafka: the worker already runs, and a SIGTERM while the producer
// connects (making the topics first takes a moment) must still drain its attempts in flight.
// worker.close() waits for in-flight attempts; the shutdown deadline bounds it.
shutdown.register('worker', 'intake', async () => {
  stopSweep();
  watchdog.stop();
  await relay.stop();
  await maintenance.stop();
  await worker.close();
});
shutdown.register('webhook-connections', 'close', () => poster.close());
shutdown.register('relay-queue', 'close', () => relayQueue.close());
shutdown.register('follow-up-queue', 'close', () => followUps.close());
shutdown.register('rate-limit-turns', 'close', async () => {
  await turns.quit().catch(() => turns.disconnect());
});
shutdown.register('kafka-producer', 'close', () => producer.disconnect());
shutdown.register('postgres', 'close', () => pool.end());
await producerConnected;
logger.info({ concurrency: env.SENDER_CONCURRENCY, retryScheduleMs: env.RETRY_SCHEDULE_MS }, 'ready');
// The first pass now: a new deployment has its days ahead at once (then every interval).
maintenance.pass().catch((err: unknown) => logger.warn({ err }, 'delivery retention pass failed'));
