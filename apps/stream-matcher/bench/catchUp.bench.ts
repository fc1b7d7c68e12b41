import { randomUUID } from 'node:crypto';
import { createPool } from '@tributary/db';
import { addStreamAddresses, insertStream } from '@tributary/db/streams';
import { createKafka, createProducer, topicsFor } from '@tributary/bus';
import { createLogger, createOutageLog } from '@tributary/runtime';
import type { FullBlockEvent } from '@tributary/schema';
import { TRANSFER_TOPIC } from '@tributary/stream-rules';
import {
  addressTopic,
  createBenchDatabase,
  envNumber,
  randomHex,
  services,
  unique,
  writeResult,
} from '@tributary/testkit/bench';
import { openWebhookQueue } from '@tributary/webhooks';
import { createMatcher } from '../src/consume/createMatcher.ts';
import { createBlockReaders } from '../src/read/createBlockReaders.ts';
import { erc20TransferEventAbi } from '@tributary/evm';

/**
 * The matcher working through a backlog (after downtime, or behind a follower's backfill): blocks
 * evaluated per second from a topic that already holds BENCH_CATCHUP_BLOCKS block events of
 * BENCH_LOGS_PER_BLOCK transfer logs each, against BENCH_STREAMS streams, one in
 * BENCH_MATCH_EVERY blocks matching one of them (its delivery rows are written, as in production;
 * the enqueue goes to Redis). Each block is checked against the stream set's version first.
 */
const blocks = envNumber('BENCH_CATCHUP_BLOCKS', 20_000);
const logsPerBlock = envNumber('BENCH_LOGS_PER_BLOCK', 5);
const streamCount = envNumber('BENCH_STREAMS', 100);
const matchEvery = envNumber('BENCH_MATCH_EVERY', 100);

async function main() {
  const db = await createBenchDatabase();
  const pool = createPool({ connectionString: db.url, max: 4 });
  const prefix = unique('catchup');
  const topicPrefix = `${prefix}.`;
  const brokers = services.kafkaBrokers.split(',');
  const logger = createLogger('catchup-bench', 'error');
  const kafka = createKafka({ clientId: 'bench', brokers, logger });
  const producer = createProducer(kafka, 'plain');
  const topics = topicsFor(topicPrefix);
  const queue = openWebhookQueue({
    redis: { url: services.redisUrl },
    prefix,
    mode: 'failsFast',
    onBroken: (err) => logger.error({ err }, 'the webhook queue lost Redis'),
  });
  let evaluated = 0;
  // Timed from the first block evaluated: the consumer group's join is not part of the rate.
  let firstAt = 0;
  let onEvaluated = () => {};
  const matcher = createMatcher({
    pool,
    logger,
    clients: {
      kafka,
      kafkaOutage: createOutageLog(logger, 'kafka'),
      producer: createProducer(kafka, 'plain'),
      queue,
    },
    kafka: { topicPrefix, groupId: `${prefix}-m` },
    readers: createBlockReaders({ rpcUrls: new Map(), concurrency: 1 }),
    watchdog: { stallMs: 60_000, exitAfterMs: 180_000 },
    reconcileMs: 0,
    budgetMs: 250,
    metrics: {
      blockEvaluated: () => {
        evaluated++;
        if (evaluated === 1) firstAt = performance.now();
        onEvaluated();
      },
      stored: () => {},
      backfillChunk: () => {},
      streamsReloaded: () => {},
      countStreams: () => {},
      blockCompleted: () => {},
      contentsWait: () => {},
      streamSuspended: () => {},
    },
  });
  try {
    const accountId = randomUUID();
    await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
      accountId,
      'bench',
      'secret',
    ]);
    const watched: `0x${string}`[] = [];
    for (let i = 0; i < streamCount; i++) {
      const id = randomUUID();
      const address = randomHex(20);
      watched.push(address);
      await insertStream(pool, {
        id,
        accountId,
        chainIds: [31337],
        config: {
          webhookUrl: 'http://127.0.0.1:9/catch-up',
          description: 'catch-up bench',
          tag: `s${i}`,
          chainIds: ['0x7a69'],
          includeContractLogs: true,
          topic0: ['Transfer(address,address,uint256)'],
          abi: [erc20TransferEventAbi],
        },
      });
      await addStreamAddresses(pool, id, [address]);
    }

    // The backlog, written before the matcher starts.
    await producer.connect();
    const topic = topics.blocks;
    let bytes = 0;
    for (let from = 1; from <= blocks; from += 500) {
      const messages = [];
      for (let number = from; number < Math.min(from + 500, blocks + 1); number++) {
        const match = number % matchEvery === 0;
        const logs = Array.from({ length: logsPerBlock }, (_, i) => ({
          logIndex: i,
          transactionHash: randomHex(32),
          transactionIndex: i,
          address: match && i === 0 ? watched[number % watched.length]! : randomHex(20),
          data: `0x${(1000 + i).toString(16).padStart(64, '0')}` as `0x${string}`,
          topics: [
            TRANSFER_TOPIC,
            addressTopic(randomHex(20)),
            addressTopic(randomHex(20)),
          ] as `0x${string}`[],
        }));
        const event: FullBlockEvent = {
          type: 'new',
          v: 2,
          chainId: 31337,
          block: {
            number,
            hash: randomHex(32),
            parentHash: randomHex(32),
            timestamp: 1_700_000_000 + number,
          },
          transactions: [],
          logs,
          internalTransactions: [],
          transfers: [],
          tokens: [],
          tokenInfo: [],
          accounts: [],
          hasTransactions: false,
          hasInternalTransactions: false,
        };
        const value = JSON.stringify(event);
        bytes += value.length;
        messages.push({ key: '31337', value });
      }
      await producer.send({ topic, messages });
    }

    const done = new Promise<void>((resolve) => {
      onEvaluated = () => {
        if (evaluated >= blocks) resolve();
      };
    });
    await matcher.start();
    await done;
    const seconds = (performance.now() - firstAt) / 1000;
    const deliveries = Number((await pool.query('SELECT count(*) AS n FROM deliveries')).rows[0].n);
    const result = {
      params: { blocks, logsPerBlock, streams: streamCount, matchEvery },
      seconds: Number(seconds.toFixed(2)),
      blocksPerSecond: Math.round((blocks - 1) / seconds),
      averageBlockBytes: Math.round(bytes / blocks),
      deliveriesCreated: deliveries,
    };
    console.log(
      `matcher catch-up (timed from the first block evaluated): ${blocks} blocks (${logsPerBlock} logs each, ${streamCount} streams, ${deliveries} deliveries created) in ${result.seconds} s: ${result.blocksPerSecond} blocks/s`,
    );
    console.log(`written ${writeResult('matcher-catch-up', result)}`);
  } finally {
    await matcher.stopIntake();
    await matcher.close();
    await producer.disconnect().catch(() => undefined);
    const admin = kafka.admin();
    await admin
      .connect()
      .then(() => admin.deleteTopics({ topics: [topics.blocks] }))
      .catch(() => undefined)
      .finally(() => admin.disconnect());
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await pool.end();
    await db.drop();
  }
}

await main();
