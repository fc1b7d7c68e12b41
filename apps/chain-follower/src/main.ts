import { kafkaReplication } from '@tributary/config';
import {
  createProducer,
  createKafka,
  ensureTopics,
  hoursToMs,
  kafkaClientLogger,
  topicsFor,
} from '@tributary/bus';
import { createPool } from '@tributary/db';
import { bootService, createOutageLog, serveOps, watchPool } from '@tributary/runtime';
import { createStreamDemand } from './demand/createStreamDemand.ts';
import { loadEnv, rpcSettingsOf } from './env.ts';
import { chainSettings } from './follow/chainSettings.ts';
import { createChainFollower } from './follow/createChainFollower.ts';
import { createHeadWatcher } from './fetch/createHeadWatcher.ts';
import { createRpc } from './rpc/createRpc.ts';
import { createRpcMetrics } from './rpc/createRpcMetrics.ts';
import { createBlockPublisher } from './publish/createBlockPublisher.ts';

// Composition root: one follower for CHAIN_ID.
const env = loadEnv();
const replication = kafkaReplication(env);
const service = bootService({
  name: 'chain-follower',
  logLevel: env.LOG_LEVEL,
  shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS,
});
const { logger, metrics, health, shutdown } = service;

const { chain, confirmations, pollIntervalMs } = chainSettings(env);
const chainName = chain?.names[0] ?? null;
if (!chain) {
  logger.warn(
    { chainId: env.CHAIN_ID, confirmations, pollIntervalMs },
    'chain not in the chain table nor EXTRA_CHAINS: the gateway will not resolve it; default depth and polling',
  );
}

const pool = createPool({
  connectionString: env.DATABASE_URL,
  max: env.DATABASE_POOL_SIZE,
  application: 'chain-follower',
  timeouts: {
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  },
});
watchPool(service, pool);
// kafkajs logs every failed connection of a broker restart: one outage line instead, ended by
// the next publish that reaches the broker.
const kafkaOutage = createOutageLog(logger, 'kafka');
const kafka = createKafka({
  brokers: env.KAFKA_BROKERS,
  clientId: `${env.KAFKA_CLIENT_ID}-follower-${env.CHAIN_ID}`,
  logger: kafkaClientLogger(logger, kafkaOutage),
});
const topics = topicsFor(env.KAFKA_TOPIC_PREFIX);
const topic = topics.blocks;
const producer = createProducer(kafka, 'ordered');
let producerConnected = false;
producer.on(producer.events.CONNECT, () => {
  producerConnected = true;
});
producer.on(producer.events.DISCONNECT, () => {
  producerConnected = false;
});
const rpc = createRpc({
  urls: env.RPC_URLS.length > 0 ? env.RPC_URLS : [env.RPC_URL],
  ...rpcSettingsOf(env),
  logger,
  onCall: createRpcMetrics(metrics),
});
const heads = createHeadWatcher({
  pollIntervalMs,
  ...(env.WS_URL ? { wsUrl: env.WS_URL } : {}),
  logger,
});

health.addCheck('kafka', () => {
  if (!producerConnected) throw new Error('producer not connected');
});
health.addCheck('rpc', async () => {
  await rpc.client.getBlockNumber({ cacheTime: 0 });
});

await serveOps(service, env.OPS_HOST, env.OPS_PORT);
await service.untilUp('kafka (topics)', () =>
  ensureTopics(
    kafka,
    [{ topic, numPartitions: env.KAFKA_TOPIC_PARTITIONS, retentionMs: hoursToMs(env.KAFKA_RETENTION_HOURS) }],
    { replication, logger },
  ),
);
await service.untilUp('kafka (producer)', () => producer.connect());
const follower = createChainFollower({
  rpc,
  pool,
  publisher: createBlockPublisher({
    producer,
    topic,
    compression: env.KAFKA_COMPRESSION,
    maxRequestBytes: env.KAFKA_MAX_REQUEST_BYTES,
    onPublished: () => kafkaOutage.ok(),
  }),
  heads,
  demand: createStreamDemand({ pool, chainId: env.CHAIN_ID, logger }),
  logger,
  metrics,
  options: {
    chainId: env.CHAIN_ID,
    confirmations,
    startBlock: env.START_BLOCK,
    accountKinds: env.FETCH_ACCOUNT_KINDS,
    rangeBlocks: env.RANGE_BLOCKS,
    maxRangeBlocks: env.MAX_RANGE_BLOCKS,
    rangeTargetLogs: env.RANGE_TARGET_LOGS,
    rpcConcurrency: env.RPC_CONCURRENCY,
    maxBatchBlocks: env.MAX_BATCH_BLOCKS,
    headBatchBlocks: env.HEAD_BATCH_BLOCKS,
    reorgWindow: env.REORG_WINDOW ?? Math.max(128, confirmations * 2),
    progressIntervalMs: env.PROGRESS_INTERVAL_MS,
    haltRecheckMs: env.HALT_RECHECK_MS,
  },
});

// Not ready while following is halted (another chain behind RPC_URL, a reorg deeper than the window):
// the reason is in /readyz, the log and the tributary_follower_chain_mismatch / tributary_follower_deep_reorg gauges.
health.addCheck('chain', () => {
  const { halt, failing } = follower.status();
  if (halt) throw new Error(halt.message);
  if (failing) throw new Error(`following fails the same way every time: ${failing}`);
});

const stop = new AbortController();
// A failure here leaves through the shutdown (its deadline, an exit code that asks for a restart);
// the drain step below waits for this promise.
const running = follower.run(stop.signal).catch((err: unknown) => shutdown.fail('follower failed', err));
shutdown.register('follower', 'intake', () => stop.abort());
shutdown.register('follower-drain', 'drain', () => running);
shutdown.register('pg', 'close', () => pool.end());
shutdown.register('kafka-producer', 'close', () => producer.disconnect());
shutdown.register('heads', 'close', () => heads.close());
logger.info({ chainId: env.CHAIN_ID, chain: chainName, topic, confirmations, pollIntervalMs }, 'ready');
