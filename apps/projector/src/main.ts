import { kafkaReplication } from '@tributary/config';
import {
  createDeadLetters,
  createGapGuard,
  createProducer,
  createKafka,
  createLagProbe,
  ensureTopics,
  hoursToMs,
  kafkaClientLogger,
  topicsFor,
} from '@tributary/bus';
import { createPool, migrate } from '@tributary/db';
import { createGapRepairStore } from '@tributary/db/chain';
import { deadLettersAcknowledgedAt } from '@tributary/db/ops';
import {
  EXIT_CODES,
  type ProgressWatchdog,
  bootService,
  createConsumerGapCounter,
  createConsumerLagGauge,
  createDeadLetterAlarm,
  createProgressWatchdog,
  serveOps,
  watchPool,
} from '@tributary/runtime';
import { createBlockConsumer } from './consume/createBlockConsumer.ts';
import { loadEnv } from './env.ts';
import { createOutage } from './health/createOutage.ts';
import { createBlockProjector } from './project/createBlockProjector.ts';
import { createSupplyCheck } from './supply/createSupplyCheck.ts';

// Composition root (evm.blocks.v1 -> PostgreSQL query tables): reads the environment, then builds
// the service, its clients, its domain objects and its shutdown, in that order.
const env = loadEnv();
const replication = kafkaReplication(env);
const service = bootService({
  name: 'projector',
  logLevel: env.LOG_LEVEL,
  shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS,
});
const { logger, metrics, health, shutdown } = service;

// Failures of the projection's transactions (postgres) and of its offset commits and dead
// letters (kafka) end when a chunk commits; closed idle connections end when a ping succeeds.
const outages = {
  postgres: createOutage({ what: 'postgres', logger }),
  kafka: createOutage({ what: 'kafka', logger }),
};
const pgConnections = createOutage({ what: 'postgres connections', logger });

const pool = createPool({
  connectionString: env.DATABASE_URL,
  max: env.DATABASE_POOL_SIZE,
  application: 'projector',
  timeouts: {
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  },
});
// An idle connection that PostgreSQL closes (a restart) is an outage of its own, ended by a ping.
watchPool(service, pool, {
  onError: (err) => pgConnections.failed(err),
  afterPing: () => {
    pgConnections.recovered();
    outages.postgres.check();
  },
});
const kafka = createKafka({
  brokers: env.KAFKA_BROKERS,
  clientId: `${env.KAFKA_CLIENT_ID}-projector`,
  logger: kafkaClientLogger(logger, outages.kafka),
});
const topics = topicsFor(env.KAFKA_TOPIC_PREFIX);
const topic = topics.blocks;
const producer = createProducer(kafka, 'ordered');

const setAside = createDeadLetterAlarm({
  registry: metrics,
  health,
  consumer: 'projector',
  acknowledgedAt: () => deadLettersAcknowledgedAt(pool),
});
const lagProbe = createLagProbe(kafka, { groupId: env.KAFKA_GROUP_ID, topic });
createConsumerLagGauge(metrics, env.KAFKA_GROUP_ID, () => lagProbe.lag());
// Started once the consumer runs (its backlog probe needs the topic).
let watchdog: ProgressWatchdog | undefined;
health.addCheck('progress', () => watchdog?.check());

// A broker that lost its log (recreated without its volume, retention shorter than an outage)
// never makes the projector skip blocks: the follower publishes the missing ones again.
const gapAdmin = kafka.admin();
const countGap = createConsumerGapCounter(metrics, env.KAFKA_GROUP_ID);
const gapGuard = createGapGuard({
  admin: gapAdmin,
  topic,
  groupId: env.KAFKA_GROUP_ID,
  ...createGapRepairStore(pool, env.KAFKA_GROUP_ID),
  logger,
  onGap: (gap) => countGap(gap.kind),
});
health.addCheck('gaps', () => gapGuard.check());

const consumer = createBlockConsumer({
  kafka,
  topic,
  groupId: env.KAFKA_GROUP_ID,
  projector: createBlockProjector({ pool, logger, metrics }),
  gapGuard,
  deadLetters: createDeadLetters({
    producer,
    topicPrefix: env.KAFKA_TOPIC_PREFIX,
    consumer: 'projector',
    onDeadLetter: (letter) =>
      setAside({ topic, at: `partition ${letter.partition} offset ${letter.offset}`, reason: letter.reason }),
  }),
  logger,
  outages,
  onCommitted: () => {
    pgConnections.recovered();
    watchdog?.progress();
  },
  onFatal: (err) => shutdown.fail('kafka consumer crashed and kafkajs will not restart it', err),
  maxBytesPerPartition: env.KAFKA_MAX_BYTES_PER_PARTITION,
  maxTransactionBytes: env.MAX_TRANSACTION_BYTES,
  sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
});
health.addCheck('kafka', async () => {
  if (!consumer.isConnected()) throw new Error('consumer not connected (joining the group, or crashed)');
  // kafkajs reconnects by itself and says nothing of it: ask the broker.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('kafka broker did not answer within 1.5 s')), 1_500);
  });
  try {
    await Promise.race([lagProbe.lag(), timeout]);
    outages.kafka.recovered();
  } catch (err) {
    outages.kafka.check(); // throws what the outage is, when one is known
    throw err;
  } finally {
    clearTimeout(timer);
  }
});
const supplyCheck = createSupplyCheck({
  pool,
  chainId: env.CHAIN_ID,
  rpcUrl: env.RPC_URL,
  intervalMs: env.SUPPLY_CHECK_INTERVAL_MS,
  logger,
});
shutdown.register('supply-check', 'intake', () => supplyCheck.stop());
// consumer.stop() waits for the in-flight chunks (their transactions and offset commits), then leaves the group.
shutdown.register('kafka-consumer', 'intake', () => consumer.stop());
shutdown.register('watchdog', 'intake', () => watchdog?.stop());
shutdown.register('gap-guard', 'drain', () => gapGuard.stop());
shutdown.register('lag-probe', 'close', () => lagProbe.close());
shutdown.register('gap-admin', 'close', () => gapAdmin.disconnect());
shutdown.register('dead-letter-producer', 'close', () => producer.disconnect());
shutdown.register('pg', 'close', () => pool.end());
// Served first, so that /readyz says what is missing while PostgreSQL or Kafka is away at start.
await serveOps(service, env.OPS_HOST, env.OPS_PORT);
await service.untilUp('postgres', () => migrate(env.DATABASE_URL, (line) => logger.info(line)));
await service.untilUp('kafka', () =>
  ensureTopics(
    kafka,
    [
      { topic, retentionMs: hoursToMs(env.KAFKA_RETENTION_HOURS) },
      {
        topic: topics.deadLetters,
        retentionMs: hoursToMs(env.KAFKA_DEAD_LETTER_RETENTION_HOURS),
      },
    ],
    { replication, logger },
  ),
);
await service.untilUp('kafka', () => producer.connect());
await service.untilUp('kafka', () => gapAdmin.connect());
await service.untilUp('kafka', () => consumer.start());
watchdog = createProgressWatchdog({
  name: 'projector',
  logger,
  stallMs: env.WATCHDOG_STALL_MS,
  exitAfterMs: env.WATCHDOG_EXIT_MS,
  // Its own partitions' lag: a standby holds none, and is never stalled by the work of the active member.
  backlog: () => lagProbe.lag(consumer.assignedPartitions()),
  // The watchdog has logged why at fatal level: a fresh process is what can help.
  onStalled: (reason) => shutdown.exit(reason, EXIT_CODES.restart),
});
supplyCheck.start();
logger.info({ topic, groupId: env.KAFKA_GROUP_ID }, 'ready');
