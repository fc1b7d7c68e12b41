import { blockEventCodec, createProducer, createKafka, ensureTopics } from '@tributary/bus';
import { type Pool, createPool } from '@tributary/db';
import { createAccountWithKey } from '@tributary/db/accounts';
import { insertStream } from '@tributary/db/streams';
import { type Registry, createLogger, createMetrics } from '@tributary/runtime';
import { type BlockEvent, TOPICS } from '@tributary/schema';
import { createTestDatabase, getTestSettings, uniqueName } from '@tributary/testkit';
import type { Kafka, Producer } from 'kafkajs';
import {
  type ChainFollower,
  type FollowerOptions,
  createChainFollower,
} from '../follow/createChainFollower.ts';
import { createStreamDemand } from '../demand/createStreamDemand.ts';
import { createHeadWatcher } from '../fetch/createHeadWatcher.ts';
import { type Rpc, type RpcOptions, createRpc } from '../rpc/createRpc.ts';
import { type BlockPublisher, createBlockPublisher } from '../publish/createBlockPublisher.ts';
import { loadEnv, rpcSettingsOf } from '../env.ts';

export interface RunningFollower {
  follower: ChainFollower;
  metrics: Registry;
  stop(): Promise<void>;
}

/**
 * The follower (in-process) against a given anvil, publishing to a unique Kafka topic, with its
 * state in a fresh migrated database. Everything is real; the harness only wires the factories.
 * (Cross-service tests, with the projector and the gateway, live in packages/e2e.)
 */
export async function createFollowerHarness(opts: {
  rpcUrl: string;
  options?: Partial<FollowerOptions>;
  /** The follower's RPC (URLs, timeouts, rate) when not the node's own URL; the harness reads the chain at rpcUrl. */
  followerRpc?: Partial<Omit<RpcOptions, 'logger'>> & Pick<RpcOptions, 'urls'>;
  /** A fault around the real publisher (it publishes to Kafka, then fails, say). */
  wrapPublisher?: (publisher: BlockPublisher) => BlockPublisher;
}) {
  const settings = getTestSettings();
  const db = await createTestDatabase();
  const pool: Pool = createPool({ connectionString: db.url, max: 5 });
  const logger = createLogger('pipeline-test', process.env['TEST_LOG_LEVEL'] ?? 'error');
  const kafka: Kafka = createKafka({ brokers: settings.kafkaBrokers, clientId: uniqueName('test') });
  const topic = `${uniqueName('t')}.${TOPICS.blocks}`;
  await ensureTopics(kafka, [{ topic }]);
  const producer: Producer = createProducer(kafka, 'ordered');
  await producer.connect();
  const defaults = loadEnv({});
  const rpc: Rpc = createRpc({ ...rpcSettingsOf(defaults), urls: [opts.rpcUrl], timeoutMs: 10_000 });
  const followerRpc: Rpc = opts.followerRpc
    ? createRpc({ ...rpcSettingsOf(defaults), ...opts.followerRpc, logger })
    : rpc;
  const options: FollowerOptions = {
    chainId: 31337,
    confirmations: 2,
    startBlock: 0,
    accountKinds: true,
    rangeBlocks: 50,
    maxRangeBlocks: 500,
    rangeTargetLogs: defaults.RANGE_TARGET_LOGS,
    rpcConcurrency: 2,
    maxBatchBlocks: 200,
    headBatchBlocks: 20,
    reorgWindow: 64,
    progressIntervalMs: 60_000,
    haltRecheckMs: defaults.HALT_RECHECK_MS,
    ...opts.options,
  };

  /** A follower on the harness's node, or on another (`rpcUrl`) with the same state and topic. */
  function startFollower(
    overrides: Partial<FollowerOptions> = {},
    node: { rpcUrl?: string } = {},
  ): RunningFollower {
    const heads = createHeadWatcher({ pollIntervalMs: 50, logger });
    const metrics = createMetrics('chain-follower-test');
    const follower = createChainFollower({
      rpc: node.rpcUrl
        ? createRpc({ ...rpcSettingsOf(defaults), urls: [node.rpcUrl], timeoutMs: 10_000 })
        : followerRpc,
      pool,
      publisher: (opts.wrapPublisher ?? ((p) => p))(
        createBlockPublisher({
          producer,
          topic,
          compression: 'gzip',
          maxRequestBytes: defaults.KAFKA_MAX_REQUEST_BYTES,
        }),
      ),
      heads,
      demand: createStreamDemand({ pool, chainId: options.chainId, logger }),
      logger,
      metrics,
      options: { ...options, ...overrides },
    });
    const controller = new AbortController();
    const running = follower.run(controller.signal);
    return {
      follower,
      metrics,
      async stop() {
        controller.abort();
        await running;
        await heads.close();
      },
    };
  }

  /** Waits until the follower's checkpoint is the node's head (with the node's hash). */
  async function waitFollowed(f: RunningFollower, timeoutMs = 30_000) {
    await waitFor(
      async () => {
        const head = await rpc.client.getBlock({ blockTag: 'latest' });
        return f.follower.status().checkpoint === Number(head.number);
      },
      timeoutMs,
      'follower to reach the head',
    );
  }

  let accountId: string | undefined;
  /**
   * Stores a stream on the harness's chain, as the gateway does (it starts after the follower's
   * checkpoint): what it reads decides what the follower fetches from then on.
   */
  async function addStream(config: Record<string, unknown>): Promise<string> {
    accountId ??= (await createAccountWithKey(pool, { accountName: uniqueName('acct') })).accountId;
    const id = crypto.randomUUID();
    await insertStream(pool, {
      id,
      accountId,
      chainIds: [options.chainId],
      config: {
        webhookUrl: 'http://127.0.0.1:9/hook',
        description: 'follower test',
        tag: 'follower-test',
        chainIds: [`0x${options.chainId.toString(16)}`],
        ...config,
      },
    });
    return id;
  }

  /** Every event on the topic, in order (read with a throwaway group). */
  async function readEvents(): Promise<BlockEvent[]> {
    const admin = kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const total = ends.reduce((n, e) => n + Number(e.high), 0);
    const events: BlockEvent[] = [];
    const consumer = kafka.consumer({ groupId: uniqueName('reader') });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    if (total === 0) done();
    await consumer.run({
      eachMessage: async ({ message }) => {
        events.push(blockEventCodec.decode(message.value));
        if (events.length >= total) done();
      },
    });
    await finished;
    await consumer.disconnect();
    return events;
  }

  return {
    pool,
    rpc,
    topic,
    kafka,
    startFollower,
    waitFollowed,
    readEvents,
    addStream,
    async close() {
      await producer.disconnect();
      await pool.end();
      await db.drop();
    },
  };
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
