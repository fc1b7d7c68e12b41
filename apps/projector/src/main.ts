import { createKafka, ensureTopics, topicName } from '@tributary/bus';
import { createPool, migrate } from '@tributary/db';
import { bootService, serveOps } from '@tributary/runtime';
import { TOPICS } from '@tributary/schema';
import { createBlockConsumer } from './consume/createBlockConsumer.ts';
import { loadEnv } from './env.ts';
import { createBlockProjector } from './project/createBlockProjector.ts';

// Composition root: evm.blocks.v1 -> PostgreSQL query tables.
const env = loadEnv();
const service = bootService({
  name: 'projector',
  logLevel: env.LOG_LEVEL,
  shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS,
});
const { logger, metrics, health, shutdown } = service;

await migrate(env.DATABASE_URL, (line) => logger.info(line));
const pool = createPool({
  connectionString: env.DATABASE_URL,
  max: env.DATABASE_POOL_SIZE,
  application: 'projector',
});
const kafka = createKafka({
  brokers: env.KAFKA_BROKERS,
  clientId: `${env.KAFKA_CLIENT_ID}-projector`,
  logger,
});
const topic = topicName(env.KAFKA_TOPIC_PREFIX, TOPICS.blocks);
await ensureTopics(kafka, [{ topic }]);

const consumer = createBlockConsumer({
  kafka,
  topic,
  groupId: env.KAFKA_GROUP_ID,
  projector: createBlockProjector({ pool, logger, metrics }),
  logger,
  maxBytesPerPartition: env.KAFKA_MAX_BYTES_PER_PARTITION,
  maxTransactionBytes: env.MAX_TRANSACTION_BYTES,
});
health.addCheck('postgres', async () => {
  await pool.query('SELECT 1');
});
health.addCheck('kafka', () => {
  if (!consumer.isConnected()) throw new Error('consumer not connected');
});
// consumer.stop() waits for the in-flight batch (its transaction and offset commit), then leaves the group.
shutdown.register('kafka-consumer', 'intake', () => consumer.stop());
shutdown.register('pg', 'close', () => pool.end());
await consumer.start();
await serveOps(service, env.OPS_HOST, env.OPS_PORT);
logger.info({ topic, groupId: env.KAFKA_GROUP_ID }, 'ready');
