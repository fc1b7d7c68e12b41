import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPool } from '@tributary/db';
import { addStreamAddresses, insertStream } from '@tributary/db/streams';
import { type FullBlockEvent, TOPICS } from '@tributary/schema';
import { createKafka } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import {
  addressTopic,
  createBenchDatabase,
  envNumber,
  percentile,
  randomHex,
  services,
  sleep,
  spawnApp,
  stopChild,
  unique,
  writeResult,
} from '@tributary/testkit/bench';
import { TRANSFER_TOPIC0, erc20TransferEventAbi } from '@tributary/evm';

/**
 * Block seen -> unconfirmed webhook answered: block events go into Kafka stamped with their
 * produce time; the real stream-matcher and webhook-sender processes turn them into webhooks;
 * the receiver (127.0.0.1, this process) measures arrival minus produce time. Every block carries
 * one probe transfer (one probe stream) and BENCH_BG_PER_BLOCK background transfers for as many
 * background streams, at BENCH_BLOCKS_PER_SECOND: 10 x 20 = 200 background deliveries/s.
 */
const seconds = envNumber('BENCH_SECONDS', 120);
const blocksPerSecond = envNumber('BENCH_BLOCKS_PER_SECOND', 10);
const bgPerBlock = envNumber('BENCH_BG_PER_BLOCK', 20);

async function main() {
  const db = await createBenchDatabase();
  const pool = createPool({ connectionString: db.url, max: 2 });
  const prefix = unique('lat');
  const topicPrefix = `${prefix}.`;
  const kafka = createKafka({
    clientId: 'bench',
    brokers: services.kafkaBrokers.split(','),
    logger: createLogger('bench', 'silent'),
  });
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  const queue = openTestWebhookQueue(services.redisUrl, prefix);
  const producedAt = new Map<number, number>();
  const probe: number[] = [];
  const background: number[] = [];
  let measuring = false;
  let firstProbe = false;

  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      res.end();
      const n = Number(
        (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { block: { number: string } }).block.number,
      );
      const at = producedAt.get(n);
      if (req.url === '/probe') firstProbe = true;
      if (!measuring || at === undefined) return;
      (req.url === '/probe' ? probe : background).push(now - at);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const children: ReturnType<typeof spawnApp>[] = [];

  try {
    const accountId = randomUUID();
    await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
      accountId,
      'bench',
      'secret',
    ]);
    const stream = async (path: string, address: string) => {
      const id = randomUUID();
      await insertStream(pool, {
        id,
        accountId,
        chainIds: [31337],
        config: {
          webhookUrl: `${base}/${path}`,
          description: 'latency bench',
          tag: path,
          chainIds: ['0x7a69'],
          includeContractLogs: true,
          topic0: ['Transfer(address,address,uint256)'],
          abi: [erc20TransferEventAbi],
        },
      });
      await addStreamAddresses(pool, id, [address]);
    };
    const probeAddress = randomHex(20);
    await stream('probe', probeAddress);
    const bgAddresses = Array.from({ length: bgPerBlock }, () => randomHex(20));
    for (const [i, a] of bgAddresses.entries()) await stream(`bg/${i}`, a);
    await producer.connect();
    const common = {
      DATABASE_URL: db.url,
      REDIS_URL: services.redisUrl,
      KAFKA_BROKERS: services.kafkaBrokers,
      KAFKA_TOPIC_PREFIX: topicPrefix,
      WEBHOOK_QUEUE_PREFIX: prefix,
      OPS_PORT: '0',
      LOG_LEVEL: 'error',
    };
    children.push(
      spawnApp('stream-matcher', {
        ...common,
        MATCHER_GROUP_ID: `${prefix}-m`,
        RPC_URL: services.rpcUrl,
      }),
      spawnApp('webhook-sender', {
        ...common,
        SENDER_CONCURRENCY: '50',
        ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      }),
    );

    let n = 1;
    const token = randomHex(20);
    const send = async () => {
      const number = n++;
      const logs = [probeAddress, ...bgAddresses].map((to, i) => ({
        logIndex: i,
        transactionHash: randomHex(32),
        transactionIndex: i,
        address: token,
        data: `0x${(1000 + i).toString(16).padStart(64, '0')}` as `0x${string}`,
        topics: [TRANSFER_TOPIC0, addressTopic(randomHex(20)), addressTopic(to)] as `0x${string}`[],
      }));
      const event: FullBlockEvent = {
        type: 'new',
        v: 2,
        chainId: 31337,
        block: {
          number,
          hash: randomHex(32),
          parentHash: randomHex(32),
          timestamp: Math.floor(Date.now() / 1000) + 1,
        },
        transactions: [],
        logs,
        internalTransactions: [],
        transfers: [],
        tokens: [
          { address: token, name: 'Bench', symbol: 'BEN', decimals: 6, totalSupply: '0', readAtBlock: 0 },
        ],
        tokenInfo: [],
        accounts: [],
        hasTransactions: false,
        hasInternalTransactions: false,
      };
      producedAt.set(number, Date.now());
      await producer.send({
        topic: `${topicPrefix}${TOPICS.blocks}`,
        messages: [{ key: '31337', value: JSON.stringify(event) }],
      });
    };

    // Start-up: blocks until the first probe webhook arrives (services loaded and connected).
    const startDeadline = Date.now() + 120_000;
    while (!firstProbe && Date.now() < startDeadline) {
      await send();
      await sleep(500);
    }
    if (!firstProbe) throw new Error('no webhook within 120 s of start');
    await sleep(2_000);
    measuring = true;
    const interval = 1000 / blocksPerSecond;
    const end = Date.now() + seconds * 1000;
    let next = Date.now();
    while (Date.now() < end) {
      await send();
      next += interval;
      await sleep(Math.max(0, next - Date.now()));
    }
    await sleep(3_000);
    measuring = false;

    const sorted = (l: number[]) => [...l].sort((a, b) => a - b);
    const p = sorted(probe);
    const b = sorted(background);
    const blocksSent = n - 1;
    const result = {
      params: {
        seconds,
        blocksPerSecond,
        bgPerBlock,
        backgroundDeliveriesPerSecond: blocksPerSecond * bgPerBlock,
      },
      targets: { p50Ms: 50, p99Ms: 250 },
      probe: {
        samples: p.length,
        p50Ms: percentile(p, 50),
        p90Ms: percentile(p, 90),
        p99Ms: percentile(p, 99),
        maxMs: p[p.length - 1],
      },
      background: { samples: b.length, p50Ms: percentile(b, 50), p99Ms: percentile(b, 99) },
      blocksSent,
    };
    console.log(
      `block produced -> unconfirmed webhook answered, ${blocksPerSecond * bgPerBlock} background deliveries/s: probe p50 ${result.probe.p50Ms} ms, p99 ${result.probe.p99Ms} ms (${p.length} samples); background p50 ${result.background.p50Ms} ms, p99 ${result.background.p99Ms} ms (${b.length})`,
    );
    console.log(`written ${writeResult('webhook-latency', result)}`);
  } finally {
    for (const c of children) await stopChild(c, 20_000);
    await producer.disconnect().catch(() => undefined);
    const admin = kafka.admin();
    await admin
      .connect()
      .then(() =>
        admin.deleteTopics({
          topics: [`${topicPrefix}${TOPICS.blocks}`, `${topicPrefix}${TOPICS.streamChanges}`],
        }),
      )
      .catch(() => undefined)
      .finally(() => admin.disconnect());
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await new Promise<void>((r) => receiver.close(() => r()));
    await pool.end();
    await db.drop();
  }
}

await main();
