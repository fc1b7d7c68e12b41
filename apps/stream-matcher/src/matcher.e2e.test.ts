import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type Pool,
  addStreamAddresses,
  createPool,
  insertStream,
  migrate,
  releaseHeldDeliveries,
  setStreamStatus,
} from '@tributary/db';
import { DEAD_LETTER_TOPIC } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import { type FullBlockEvent, type StreamChange, TOPICS } from '@tributary/schema';
import { TRANSFER_TOPIC } from '@tributary/stream-rules';
import { WEBHOOK_QUEUE, enqueueDelivery, signWebhook } from '@tributary/webhooks';
import { Queue } from 'bullmq';
import { Kafka, type Producer, logLevel } from 'kafkajs';
import Moralis from 'moralis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Matcher, createMatcher } from './consume/createMatcher.ts';
import { createBlockReaders } from './read/createBlockReaders.ts';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:56379';
const RPC_URL = process.env['RPC_URL'] ?? 'http://127.0.0.1:58545';
const KAFKA_BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(',');
const unique = `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
const dbName = `streams_e2e_${unique}`;
const topicPrefix = `t-${unique}.`;
const queuePrefix = `q-${unique}`;
const CHAIN = 31337;

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const topicOf = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}` as `0x${string}`;
const ALICE = addr(0xa11ce);
const BOB = addr(0xb0b);

const transferAbi = {
  anonymous: false,
  inputs: [
    { indexed: true, name: 'from', type: 'address' },
    { indexed: true, name: 'to', type: 'address' },
    { indexed: false, name: 'value', type: 'uint256' },
  ],
  name: 'Transfer',
  type: 'event',
};

interface Hit {
  body: string;
  headers: IncomingHttpHeaders;
}

/** One receiver on 127.0.0.1; each test uses its own path and scripts its answers. */
const hits = new Map<string, Hit[]>();
const answers = new Map<string, number[]>();
let receiverServer: Server;
let receiverBase: string;

let pool: Pool;
let matcher: Matcher;
let sender: ChildProcess;
let producer: Producer;
let queue: Queue;
let accountId: string;
const secret = `secret-${unique}`;
let blockCounter = 1000;

async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function transferBlock(
  token: string,
  value: bigint,
  type: 'new' | 'confirmed',
  n = blockCounter++,
): FullBlockEvent {
  const txHash = h(0x7000 + n);
  return {
    type,
    v: 1,
    chainId: CHAIN,
    block: { number: n, hash: h(n), parentHash: h(n - 1), timestamp: Math.floor(Date.now() / 1000) + 5 },
    transactions: [
      {
        hash: txHash,
        transactionIndex: 0,
        from: ALICE,
        to: token as `0x${string}`,
        value: '0',
        gas: '60000',
        gasPrice: '1000000000',
        nonce: n,
        input: '0xa9059cbb',
        type: 2,
        v: '0x1',
        r: h(1),
        s: h(2),
        receipt: {
          cumulativeGasUsed: '51000',
          gasUsed: '51000',
          contractAddress: null,
          status: 1,
          root: null,
        },
      },
    ],
    logs: [
      {
        logIndex: 0,
        transactionHash: txHash,
        transactionIndex: 0,
        address: token as `0x${string}`,
        data: `0x${value.toString(16).padStart(64, '0')}` as `0x${string}`,
        topics: [TRANSFER_TOPIC, topicOf(ALICE), topicOf(BOB)],
      },
    ],
    internalTransactions: [],
    transfers: [],
    tokens: [
      {
        address: token as `0x${string}`,
        name: 'Token',
        symbol: 'TOK',
        decimals: 6,
        totalSupply: '1000000',
        readAtBlock: n - 1,
      },
    ],
    tokenInfo: [],
    accounts: [],
    hasTransactions: true,
    hasInternalTransactions: false,
  };
}

async function publishBlock(event: FullBlockEvent) {
  await producer.send({
    topic: `${topicPrefix}${TOPICS.blocks}`,
    messages: [{ key: String(event.chainId), value: JSON.stringify(event) }],
  });
}

async function publishChange(streamId: string) {
  const change: StreamChange = { v: 1, streamId, kind: 'upsert', at: Date.now() };
  await producer.send({
    topic: `${topicPrefix}${TOPICS.streamChanges}`,
    messages: [{ key: streamId, value: JSON.stringify(change) }],
  });
}

/** Stores a stream watching `token` (as the gateway would) and waits until the matcher has it. */
async function createStream(path: string, token: string, extra: Record<string, unknown> = {}) {
  const id = randomUUID();
  await insertStream(pool, {
    id,
    accountId,
    chainIds: [CHAIN],
    config: {
      webhookUrl: `${receiverBase}/${path}`,
      description: path,
      tag: `tag-${path}`,
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [transferAbi],
      ...extra,
    },
  });
  await addStreamAddresses(pool, id, [token]);
  await publishChange(id);
  await waitFor(() => matcher.streamStatus(id) === 'active' || undefined, 'the matcher to load the stream');
  return id;
}

const deliveriesOf = async (streamId: string) =>
  (
    await pool.query<{ status: string; attempts: number; confirmed: boolean }>(
      'SELECT status, attempts, confirmed FROM deliveries WHERE stream_id = $1 ORDER BY created_at',
      [streamId],
    )
  ).rows;

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(DATABASE_URL);
  url.pathname = `/${dbName}`;
  const dbUrl = url.toString();
  await migrate(dbUrl);
  pool = createPool({ connectionString: dbUrl, max: 5 });
  accountId = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    accountId,
    'e2e',
    secret,
  ]);

  receiverServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').slice(1);
      const list = hits.get(path) ?? [];
      list.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      hits.set(path, list);
      const script = answers.get(path) ?? [];
      res.statusCode = script.length > 1 ? script.shift()! : (script[0] ?? 200);
      res.end();
    });
  });
  await new Promise<void>((r) => receiverServer.listen(0, '127.0.0.1', r));
  receiverBase = `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}`;

  const kafka = new Kafka({ clientId: 'e2e', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING });
  producer = kafka.producer();
  await producer.connect();
  queue = new Queue(WEBHOOK_QUEUE, {
    connection: { url: REDIS_URL, maxRetriesPerRequest: null },
    prefix: queuePrefix,
  });

  matcher = createMatcher({
    pool,
    logger: createLogger('matcher-test', 'silent'),
    kafka: { brokers: KAFKA_BROKERS, clientId: 'matcher-test', topicPrefix, groupId: `m-${unique}` },
    redisUrl: REDIS_URL,
    queuePrefix,
    readers: createBlockReaders({ rpcUrls: new Map([[CHAIN, RPC_URL]]), concurrency: 4 }),
  });
  await matcher.start();

  // The real webhook-sender process, through its own composition root.
  sender = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: fileURLToPath(new URL('../../webhook-sender/', import.meta.url)),
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      REDIS_URL,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_TOPIC_PREFIX: topicPrefix,
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      WEBHOOK_QUEUE_PREFIX: queuePrefix,
      RETRY_SCHEDULE_MS: '100,200',
      WEBHOOK_TIMEOUT_MS: '2000',
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      SENDER_CONCURRENCY: '10',
      OPS_PORT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  await Moralis.start({ apiKey: 'e2e-api-key', streamsSecret: secret } as Parameters<
    typeof Moralis.start
  >[0]);
}, 90_000);

afterAll(async () => {
  if (sender && sender.exitCode === null) {
    const exited = new Promise((r) => sender.once('exit', r));
    sender.kill('SIGTERM');
    await exited;
  }
  await matcher?.stopIntake();
  await matcher?.close();
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await producer?.disconnect();
  await new Promise<void>((r) => receiverServer?.close(() => r()));
  await pool?.end();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}, 60_000);

describe('stream-matcher + webhook-sender', () => {
  it('a poison message goes to the dead-letter topic and the blocks after it still arrive; a failing insert is retried, never skipped', async () => {
    const token = addr(0xd1e);
    const id = await createStream('poison', token);
    // A real PostgreSQL error on every new delivery row, until the constraint is dropped.
    await pool.query('ALTER TABLE deliveries ADD CONSTRAINT reject_all CHECK (false) NOT VALID');
    await producer.send({
      topic: `${topicPrefix}${TOPICS.blocks}`,
      messages: [{ key: String(CHAIN), value: '{"type":"new","v":1' }],
    });
    const event = transferBlock(token, 77n, 'new');
    await publishBlock(event);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await deliveriesOf(id)).toEqual([]);
    expect(hits.get('poison')).toBeUndefined();
    await pool.query('ALTER TABLE deliveries DROP CONSTRAINT reject_all');
    const got = await waitFor(() => hits.get('poison'), 'the webhook after the failures');
    expect(got.map((x) => JSON.parse(x.body).block.number)).toEqual([String(event.block.number)]);

    const kafka = new Kafka({ clientId: 'e2e-dl', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING });
    const reader = kafka.consumer({ groupId: `dl-${unique}` });
    await reader.connect();
    await reader.subscribe({ topic: `${topicPrefix}${DEAD_LETTER_TOPIC}`, fromBeginning: true });
    const letter = await new Promise<{ value: string; headers: Record<string, string> }>((resolve) => {
      void reader.run({
        eachMessage: async ({ message }) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
          resolve({ value: String(message.value), headers });
        },
      });
    });
    await reader.disconnect();
    expect(letter.value).toBe('{"type":"new","v":1');
    expect(letter.headers).toMatchObject({
      'x-source-topic': `${topicPrefix}${TOPICS.blocks}`,
      'x-consumer': `m-${unique}`,
      'x-reason': 'message is not JSON',
    });
  });

  it('delivers unconfirmed and confirmed webhooks with the exact signed body; ignores others', async () => {
    const token = addr(0x70c0);
    const id = await createStream('basic', token);
    const event = transferBlock(token, 2_500_000n, 'new');
    await publishBlock(transferBlock(addr(0xbeef), 1n, 'new')); // not watched
    await publishBlock(event);
    await publishBlock({ ...event, type: 'confirmed' });
    await publishBlock(event); // a replayed message enqueues nothing twice

    const got = await waitFor(
      () => ((hits.get('basic')?.length ?? 0) >= 2 ? hits.get('basic') : undefined),
      'two webhooks',
    );
    const tx = event.transactions[0]!;
    const expected = (confirmed: boolean) => ({
      confirmed,
      chainId: '0x7a69',
      abi: [transferAbi],
      streamId: id,
      tag: 'tag-basic',
      retries: 0,
      block: {
        number: String(event.block.number),
        hash: event.block.hash,
        timestamp: String(event.block.timestamp),
      },
      logs: [
        {
          logIndex: '0',
          transactionHash: tx.hash,
          address: token,
          data: event.logs[0]!.data,
          topic0: TRANSFER_TOPIC,
          topic1: topicOf(ALICE),
          topic2: topicOf(BOB),
          topic3: null,
        },
      ],
      txs: [],
      txsInternal: [],
      erc20Transfers: [
        {
          transactionHash: tx.hash,
          logIndex: '0',
          contract: token,
          from: ALICE,
          to: BOB,
          value: '2500000',
          tokenName: 'Token',
          tokenSymbol: 'TOK',
          tokenDecimals: '6',
          valueWithDecimals: '2.5',
          possibleSpam: false,
        },
      ],
      erc20Approvals: [],
      nftTransfers: [],
      nftApprovals: { ERC721: [], ERC1155: [] },
      nftTokenApprovals: [],
      nativeBalances: [],
    });
    const bodies = got.map((g) => JSON.parse(g.body));
    const byConfirmed = (c: boolean) => got[bodies.findIndex((b) => b.confirmed === c)]!;
    for (const confirmed of [false, true]) {
      const hit = byConfirmed(confirmed);
      expect(JSON.parse(hit.body)).toEqual(expected(confirmed));
      // The bytes survive the SDK's parse + JSON.stringify unchanged (its verifySignature depends on it).
      expect(JSON.stringify(JSON.parse(hit.body))).toBe(hit.body);
      expect(hit.headers['x-signature']).toBe(signWebhook(hit.body, secret));
      const ts = hit.headers['webhook-timestamp'] as string;
      const mac = createHmac('sha256', secret)
        .update(`${hit.headers['webhook-id']}.${ts}.${hit.body}`)
        .digest('base64');
      expect(hit.headers['webhook-signature']).toBe(`v1,${mac}`);
      expect(hit.headers['content-type']).toBe('application/json');
      expect(
        Moralis.Streams.verifySignature({
          body: JSON.parse(hit.body),
          signature: hit.headers['x-signature'] as string,
        }),
      ).toBe(true);
      const decoded = Moralis.Streams.parsedLogs<{ from: string; to: string; value: { toString(): string } }>(
        JSON.parse(hit.body),
      );
      expect(decoded.map((d) => [d.from.toLowerCase(), d.to.toLowerCase(), d.value.toString()])).toEqual([
        [ALICE, BOB, '2500000'],
      ]);
    }
    // Let a duplicate, if any, arrive before counting.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(hits.get('basic')).toHaveLength(2);
    expect(await deliveriesOf(id)).toEqual([
      { status: 'delivered', attempts: 1, confirmed: false },
      { status: 'delivered', attempts: 1, confirmed: true },
    ]);
  });

  it('delivers only blocks after the follower checkpoint at creation, whatever their timestamps', async () => {
    const token = addr(0x01d);
    const old = transferBlock(token, 1n, 'new');
    // The follower had published `old` when the stream was created: it is history to the stream.
    await pool.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES ($1, $2, $3)
       ON CONFLICT (chain_id) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash`,
      [CHAIN, old.block.number, Buffer.from(old.block.hash.slice(2), 'hex')],
    );
    const id = await createStream('old', token);
    const fresh = transferBlock(token, 2n, 'new');
    fresh.block.timestamp -= 3_600; // a chain clock behind ours does not matter
    await publishBlock(old);
    await publishBlock(fresh);
    await waitFor(() => hits.get('old')?.length, 'the fresh block');
    await new Promise((r) => setTimeout(r, 500));
    expect(hits.get('old')!.map((x) => JSON.parse(x.body).block.hash)).toEqual([fresh.block.hash]);
    expect(await deliveriesOf(id)).toHaveLength(1);
  });

  it('retries after a 500 with retries=1, signed again, same webhook-id', async () => {
    const token = addr(0x5000);
    const id = await createStream('retry', token);
    answers.set('retry', [500, 200]);
    await publishBlock(transferBlock(token, 7n, 'new'));
    const got = await waitFor(
      () => ((hits.get('retry')?.length ?? 0) >= 2 ? hits.get('retry') : undefined),
      'the retry',
    );
    const [first, second] = got.map((g) => JSON.parse(g.body));
    expect(first.retries).toBe(0);
    expect(second.retries).toBe(1);
    expect({ ...second, retries: 0 }).toEqual(first);
    expect(got[1]!.headers['x-signature']).toBe(signWebhook(got[1]!.body, secret));
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    await waitFor(async () => (await deliveriesOf(id))[0]?.status === 'delivered', 'delivered');
    const attempts = await pool.query(
      'SELECT a.attempt, a.status_code FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.stream_id = $1 ORDER BY a.attempt',
      [id],
    );
    expect(attempts.rows).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 200 },
    ]);
  });

  it('a failing receiver drives the stream to error; webhooks are held; active resumes them', async () => {
    const token = addr(0xe770);
    const id = await createStream('failing', token);
    answers.set('failing', [500]);
    // 3 attempts per delivery (schedule 100ms, 200ms): 11 deliveries give 33 failed attempts (< 70%).
    for (let i = 0; i < 11; i++) await publishBlock(transferBlock(token, BigInt(i + 1), 'new'));
    const row = await waitFor(
      async () =>
        (await pool.query('SELECT status, status_message FROM streams WHERE id = $1', [id])).rows.find(
          (r) => r.status === 'error',
        ),
      'error state',
      30_000,
    );
    expect(row.status_message).toMatch(/success rate fell below 70%/);
    await waitFor(
      async () => (await deliveriesOf(id)).every((d) => d.status !== 'pending'),
      'no pending deliveries',
      30_000,
    );
    // The matcher learns of the error (change event from the sender) and holds new webhooks.
    await waitFor(() => matcher.streamStatus(id) === 'error' || undefined, 'the matcher to see the error');
    const before = hits.get('failing')!.length;
    await publishBlock(transferBlock(token, 99n, 'new'));
    await waitFor(async () => (await deliveriesOf(id)).length === 12 || undefined, 'the held delivery');
    expect((await deliveriesOf(id))[11]!.status).toBe('held');
    await new Promise((r) => setTimeout(r, 500));
    expect(hits.get('failing')!.length).toBe(before);

    // Re-activation (what POST /streams/evm/{id}/status {status:"active"} does).
    answers.set('failing', [200]);
    await setStreamStatus(pool, accountId, id, 'active', 'Stream is active');
    const held = await releaseHeldDeliveries(pool, id, '_resume_test');
    expect(held.length).toBeGreaterThanOrEqual(1);
    for (const d of held) await enqueueDelivery(queue, d, `${d}_resume_test`);
    await waitFor(
      async () =>
        (await deliveriesOf(id)).filter((d) => d.status === 'delivered').length === held.length || undefined,
      'resumed deliveries',
    );
    const values = hits
      .get('failing')!
      .slice(before)
      .map((x) => JSON.parse(x.body).logs[0].data);
    expect(values).toContain(`0x${(99).toString(16).padStart(64, '0')}`);
  });
});
