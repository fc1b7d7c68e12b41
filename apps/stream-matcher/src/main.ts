import { createKafka, createProducer, hoursToMs, kafkaClientLogger } from '@tributary/bus';
import { kafkaReplication, redisConnection } from '@tributary/config';
import { createPool } from '@tributary/db';
import { deadLettersAcknowledgedAt } from '@tributary/db/ops';
import {
  bootService,
  createConsumerGapCounter,
  createConsumerLagGauge,
  createDeadLetterAlarm,
  createOutageLog,
  serveOps,
  watchPool,
} from '@tributary/runtime';
import { openWebhookQueue } from '@tributary/webhooks';
import { createBackfillBlockSource } from './backfill/createBackfillBlockSource.ts';
import { createStreamBackfiller } from './backfill/createStreamBackfiller.ts';
import { createBlockCompleter } from './complete/createBlockCompleter.ts';
import { createMatcher } from './consume/createMatcher.ts';
import { createTokenCache } from './match/createTokenCache.ts';
import { createMatcherMetrics } from './metrics/createMatcherMetrics.ts';
import { loadEnv } from './env.ts';
import { createBlockReaders } from './read/createBlockReaders.ts';

// Composition root: reads the environment, then builds the service, its clients, its domain
// objects and its shutdown, in that order; the only place that builds clients.
const env = loadEnv();
const redis = redisConnection(env);
const replication = kafkaReplication(env);
const service = bootService({
  name: 'stream-matcher',
  logLevel: env.LOG_LEVEL,
  shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS,
});
const { logger, metrics, health, shutdown } = service;
const pool = createPool({
  connectionString: env.DATABASE_URL,
  max: env.DATABASE_POOL_SIZE,
  application: 'stream-matcher',
  timeouts: {
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  },
});
watchPool(service, pool);

const setAside = createDeadLetterAlarm({
  registry: metrics,
  health,
  consumer: 'stream-matcher',
  acknowledgedAt: () => deadLettersAcknowledgedAt(pool),
});
// kafkajs logs every failed connection of a broker restart: one outage line instead, ended by
// the next block evaluated.
const kafkaOutage = createOutageLog(logger, 'kafka');
const kafka = createKafka({
  brokers: env.KAFKA_BROKERS,
  clientId: env.KAFKA_CLIENT_ID,
  logger: kafkaClientLogger(logger, kafkaOutage),
});
const producer = createProducer(kafka, 'plain');
// One webhook queue for the matcher and the backfiller: a fast path (the rows are the outbox).
const queue = openWebhookQueue({
  redis,
  prefix: env.WEBHOOK_QUEUE_PREFIX,
  mode: 'failsFast',
  onBroken: (err) => shutdown.fail('the webhook queue lost Redis while it was set up', err),
});
const readers = createBlockReaders({
  rpcUrls: new Map([[env.CHAIN_ID, env.RPC_URL], ...env.EXTRA_RPC_URLS]),
  concurrency: env.RPC_CONCURRENCY,
});

const matcherMetrics = createMatcherMetrics(metrics);
const countGap = createConsumerGapCounter(metrics, env.MATCHER_GROUP_ID);
const matcher = createMatcher({
  pool,
  logger,
  clients: { kafka, kafkaOutage, producer, queue },
  kafka: {
    topicPrefix: env.KAFKA_TOPIC_PREFIX,
    groupId: env.MATCHER_GROUP_ID,
    replication,
    sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
    retentionMs: {
      blocks: hoursToMs(env.KAFKA_RETENTION_HOURS),
      changes: hoursToMs(env.KAFKA_CHANGES_RETENTION_HOURS),
      deadLetters: hoursToMs(env.KAFKA_DEAD_LETTER_RETENTION_HOURS),
    },
  },
  readers,
  watchdog: { stallMs: env.WATCHDOG_STALL_MS, exitAfterMs: env.WATCHDOG_EXIT_MS },
  reconcileMs: env.STREAM_RECONCILE_MS,
  // Crash-only: a matcher that cannot go on exits, asking its supervisor for a restart.
  onFatal: (reason, err) => shutdown.fail(reason, err),
  onDeadLetter: (letter) =>
    setAside({
      topic: letter.topic,
      at: `partition ${letter.partition} offset ${letter.offset}`,
      reason: letter.reason,
    }),
  metrics: matcherMetrics,
  onGap: (gap) => countGap(gap.kind),
  budgetMs: env.STREAM_BLOCK_BUDGET_MS,
});
matcherMetrics.countStreams(() => matcher.streamCounts());
createConsumerLagGauge(metrics, env.MATCHER_GROUP_ID, () => matcher.lag());
health.addCheck('matcher', () => matcher.checkReady());
health.addCheck('gaps', () => matcher.checkGaps());
await serveOps(service, env.OPS_HOST, env.OPS_PORT);
shutdown.register('kafka-consumers', 'intake', () => matcher.stopIntake());
shutdown.register('kafka', 'close', () => matcher.close());
shutdown.register('webhook-queue', 'close', () => queue.close());
shutdown.register('postgres', 'close', () => pool.end());
await matcher.start(service.untilUp);
if (env.BACKFILL_WORKER) {
  const backfiller = createStreamBackfiller({
    pool,
    queue,
    readers,
    blocks: createBackfillBlockSource({ pool, readers }),
    completer: createBlockCompleter({ readers, logger }),
    tokens: createTokenCache({ pool }),
    logger,
    chunkBlocks: env.BACKFILL_CHUNK_BLOCKS,
    blocksPerSecond: env.BACKFILL_BLOCKS_PER_SECOND,
    dryRunBlocksPerSecond: env.BACKFILL_DRY_RUN_BLOCKS_PER_SECOND,
    maxPending: env.BACKFILL_MAX_PENDING,
    pollMs: env.BACKFILL_POLL_MS,
    leaseMs: env.BACKFILL_LEASE_MS,
    onChunk: matcherMetrics.backfillChunk,
  });
  shutdown.register('backfills', 'intake', () => backfiller.stop());
  backfiller.start();
}
logger.info('ready');
