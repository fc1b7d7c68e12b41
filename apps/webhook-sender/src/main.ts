import { createKafka } from '@tributary/bus';
import { createPool } from '@tributary/db';
import { bootService, serveOps } from '@tributary/runtime';
import { Partitioners } from 'kafkajs';
import { createDeliveryWorker } from './deliver/createDeliveryWorker.ts';
import { createStatusPublisher } from './deliver/createStatusPublisher.ts';
import { loadEnv } from './env.ts';
import { startTerminationSweep } from './health/startTerminationSweep.ts';

// Composition root: the only place that reads the environment and builds clients.
const env = loadEnv();
const service = bootService({
  name: 'webhook-sender',
  logLevel: env.LOG_LEVEL,
  shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS,
});
const { logger, health, shutdown } = service;
const pool = createPool({
  connectionString: env.DATABASE_URL,
  max: env.DATABASE_POOL_SIZE,
  application: 'webhook-sender',
});
pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client failed'));
const kafka = createKafka({ brokers: env.KAFKA_BROKERS, clientId: env.KAFKA_CLIENT_ID, logger });
// DefaultPartitioner: named explicitly, which also silences kafkajs' start-up warning about it.
const producer = kafka.producer({
  allowAutoTopicCreation: true,
  createPartitioner: Partitioners.DefaultPartitioner,
});
await producer.connect();
const publishStatus = createStatusPublisher(producer, env.KAFKA_TOPIC_PREFIX);

const worker = createDeliveryWorker({
  pool,
  logger,
  retryScheduleMs: env.RETRY_SCHEDULE_MS,
  timeoutMs: env.WEBHOOK_TIMEOUT_MS,
  allowPrivate: env.ALLOW_PRIVATE_WEBHOOK_URLS,
  successRateThreshold: env.SUCCESS_RATE_THRESHOLD,
  onStreamStatusChanged: publishStatus,
  redisUrl: env.REDIS_URL,
  queuePrefix: env.WEBHOOK_QUEUE_PREFIX,
  concurrency: env.SENDER_CONCURRENCY,
  endpointConcurrency: env.ENDPOINT_CONCURRENCY,
  lockDurationMs: env.LOCK_DURATION_MS,
  stalledIntervalMs: env.STALLED_INTERVAL_MS,
  maxStalledCount: env.MAX_STALLED_COUNT,
  queueSizeMaxAgeMs: env.QUEUE_SIZE_MAX_AGE_MS,
});
const stopSweep = startTerminationSweep({
  pool,
  logger,
  afterMs: env.TERMINATE_AFTER_MS,
  everyMs: env.TERMINATE_SWEEP_MS,
  onTerminated: publishStatus,
});
health.addCheck('worker', () => {
  if (!worker.isRunning()) throw new Error('worker not running');
});
health.addCheck('postgres', async () => {
  await pool.query('SELECT 1');
});
await serveOps(service, env.OPS_HOST, env.OPS_PORT);

// worker.close() waits for in-flight attempts; the shutdown deadline bounds it.
shutdown.register('worker', 'intake', async () => {
  stopSweep();
  await worker.close();
});
shutdown.register('kafka-producer', 'close', () => producer.disconnect());
shutdown.register('postgres', 'close', () => pool.end());
logger.info({ concurrency: env.SENDER_CONCURRENCY, retryScheduleMs: env.RETRY_SCHEDULE_MS }, 'ready');
