import { randomBytes } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChainRegistry } from '@tributary/chains';
import { type Pool, createPool, migrate, withTransaction } from '@tributary/db';
import { createAccountWithKey } from '@tributary/db/accounts';
import {
  createDeliveryDay,
  dropDeliveryDay,
  insertDelivery,
  recordAttempt,
  recordDeliveredMany,
  terminateStaleErrorStreams,
} from '@tributary/db/streams';
import { erc20TransferEventAbi } from '@tributary/evm';
import { createLogger, createHealth, createMetrics } from '@tributary/runtime';
import { createKafka, topicsFor } from '@tributary/bus';
import type { Consumer } from 'kafkajs';
import type { Router } from 'express';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Moralis from 'moralis';
import { keccak256, stringToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app/createApp.ts';
import { createHttpServer } from '../app/createHttpServer.ts';
import { appSettingsOf, loadEnv } from '../env.ts';
import { type TestStreamServices, createTestStreamServices } from '../testing/createTestStreamServices.ts';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:56379';
const KAFKA_BROKERS = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(',');
const unique = `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

/** A real webhook receiver on 127.0.0.1 whose answer the test chooses. */
async function startReceiver() {
  const received: Received[] = [];
  const state = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.statusCode = state.status;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { received, state, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let pool: Pool;
let redis: Redis;
let baseUrl: string;
let server: Server;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let services: TestStreamServices;
let keyA: string;
let keyB: string;
let secretA: string;
const changes: { key: string; value: Record<string, unknown> }[] = [];
let consumer: Consumer;
const dbName = `streams_gw_${unique}`;

/** The test webhook a stream's URL gets before the stream is stored, as the wire contract writes it. */
const TEST_WEBHOOK_BODY =
  '{"abi":[],"block":{"hash":"","number":"","timestamp":""},"txs":[],"txsInternal":[],"tag":"","streamId":"","logs":[],"chainId":"","confirmed":true,"retries":0,"erc20Approvals":[],"erc20Transfers":[],"nftApprovals":{"ERC721":[],"ERC1155":[]},"nftTokenApprovals":[],"nftTransfers":[],"nativeBalances":[]}';

/** x-signature as a receiver checks it: keccak256 of the body followed by the secret (viem's hash, not ours). */
const signatureOf = (body: string, secret: string) => keccak256(stringToBytes(body + secret));

function streamBody(overrides: Record<string, unknown> = {}) {
  return {
    webhookUrl: receiver.url,
    description: 'transfers',
    tag: 'tag-1',
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
    ...overrides,
  };
}

async function call(method: string, path: string, body?: unknown, key = keyA) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(DATABASE_URL);
  url.pathname = `/${dbName}`;
  await migrate(url.toString());
  pool = createPool({ connectionString: url.toString(), max: 5 });
  const a = await createAccountWithKey(pool, { accountName: `a-${unique}` });
  const b = await createAccountWithKey(pool, { accountName: `b-${unique}` });
  keyA = a.key;
  keyB = b.key;
  secretA = (await pool.query('SELECT webhook_secret FROM accounts WHERE id = $1', [a.accountId])).rows[0]
    .webhook_secret;

  receiver = await startReceiver();
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const logger = createLogger('gateway-test', 'silent');
  const chains = createChainRegistry();
  services = await createTestStreamServices(pool, REDIS_URL, { logger });
  const topicPrefix = services.topicPrefix;
  const defaults = appSettingsOf(loadEnv({ DATABASE_URL: url.toString(), NODE_ENV: 'test' }));
  const app = createApp({
    pool,
    redis,
    logger,
    metrics: createMetrics('gateway-test'),
    health: createHealth(),
    chains,
    cursorSecret: 'test-cursor-secret-0123456789',
    ...defaults,
    rateLimit: { ...defaults.rateLimit, limit: 0, keyPrefix: `q-${unique}:ratelimit:` },
    authFailures: { ...defaults.authFailures, limit: 0, keyPrefix: `q-${unique}:authfail:` },
    mountStreams: (router: Router) => services.mount(router),
  });
  server = createHttpServer(app).listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const kafka = createKafka({ clientId: 'gateway-test', brokers: KAFKA_BROKERS, logger });
  const kadmin = kafka.admin();
  await kadmin.connect();
  await kadmin.createTopics({
    topics: [{ topic: topicsFor(topicPrefix).streamChanges }],
    waitForLeaders: true,
  });
  await kadmin.disconnect();
  consumer = kafka.consumer({ groupId: `g-${unique}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: topicsFor(topicPrefix).streamChanges, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      changes.push({ key: String(message.key), value: JSON.parse(String(message.value)) });
    },
  });
}, 60_000);

afterAll(async () => {
  await consumer?.disconnect();
  await new Promise<void>((r) => server?.close(() => r()));
  await services?.close();
  await receiver?.close();
  redis?.disconnect();
  await pool?.end();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}, 30_000);

describe('stream routes', () => {
  it('creates a stream after a signed test webhook, echoes the body and publishes a change', async () => {
    receiver.received.length = 0;
    const body = streamBody();
    const res = await call('PUT', '/streams/evm', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...body,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'active',
      statusMessage: 'Stream is active',
    });
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0]!;
    expect(hook.body).toBe(TEST_WEBHOOK_BODY);
    expect(hook.headers['x-signature']).toBe(signatureOf(TEST_WEBHOOK_BODY, secretA));
    expect(hook.headers['content-type']).toBe('application/json');
    const seen = await waitFor(() => changes.find((c) => c.key === res.body['id']), 'the change event');
    expect(seen.value).toMatchObject({ v: 1, streamId: res.body['id'], kind: 'upsert' });
    const got = await call('GET', `/streams/evm/${res.body['id']}`);
    expect(got).toEqual({ status: 200, body: res.body });
  });

  it('answers 422 naming every bad field', async () => {
    const res = await call('PUT', '/streams/evm', {
      ...streamBody(),
      webhookUrl: 'not a url',
      includeContractLogs: undefined,
      chainIds: ['0x7a69', '0xdeadbeef'],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Validation Failed',
      details: { webhookUrl: { message: expect.any(String) } },
    });
    const rules = await call('PUT', '/streams/evm', {
      ...streamBody(),
      includeContractLogs: false,
      chainIds: ['0x7a69', '0xdeadbeef'],
      topic0: ['Transfer(address,address,uint256)', 'Approval(address,address,uint256)'],
    });
    expect(rules.status).toBe(422);
    expect(Object.keys(rules.body['details']).sort()).toEqual([
      'chainIds.1',
      'includeContractLogs',
      'topic0.1',
    ]);
  });

  it('refuses to store a stream whose webhook URL fails the test webhook', async () => {
    const before = (await call('GET', '/streams/evm?limit=100')).body['total'];
    receiver.state.status = 500;
    try {
      const res = await call('PUT', '/streams/evm', streamBody());
      expect(res).toEqual({
        status: 400,
        body: { message: `Could not POST to ${receiver.url}. Please check your webhook URL.` },
      });
    } finally {
      receiver.state.status = 200;
    }
    // Unreachable: the same answer, with nothing about why.
    const closed = 'http://127.0.0.1:9/hook';
    expect(await call('PUT', '/streams/evm', streamBody({ webhookUrl: closed }))).toEqual({
      status: 400,
      body: { message: `Could not POST to ${closed}. Please check your webhook URL.` },
    });
    expect((await call('GET', '/streams/evm?limit=100')).body['total']).toBe(before);
  });

  it('hides a stream from other accounts', async () => {
    const created = await call('PUT', '/streams/evm', streamBody());
    const id = created.body['id'];
    expect((await call('GET', `/streams/evm/${id}`, undefined, keyB)).status).toBe(404);
    expect((await call('POST', `/streams/evm/${id}`, { tag: 'x' }, keyB)).status).toBe(404);
    expect((await call('DELETE', `/streams/evm/${id}`, {}, keyB)).status).toBe(404);
    expect((await call('GET', '/streams/evm?limit=10', undefined, keyB)).body).toEqual({
      result: [],
      total: 0,
    });
  });

  it('lists with a required limit and a cursor, without duplicates', async () => {
    expect((await call('GET', '/streams/evm')).status).toBe(400);
    expect((await call('GET', '/streams/evm?limit=101')).status).toBe(400);
    const all = (await call('GET', '/streams/evm?limit=100')).body;
    expect(all['cursor']).toBeUndefined();
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await call('GET', `/streams/evm?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).body;
      ids.push(...page['result'].map((s: { id: string }) => s.id));
      cursor = page['cursor'];
    } while (cursor);
    expect(ids).toEqual(all['result'].map((s: { id: string }) => s.id));
  });

  it('updates partially, sends a test webhook and pauses / re-activates', async () => {
    const created = (await call('PUT', '/streams/evm', streamBody())).body;
    receiver.received.length = 0;
    const updated = await call('POST', `/streams/evm/${created['id']}`, { tag: 'tag-2', description: 'new' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created, tag: 'tag-2', description: 'new' });
    expect(receiver.received).toHaveLength(1);
    const paused = await call('POST', `/streams/evm/${created['id']}/status`, { status: 'paused' });
    expect(paused.body).toMatchObject({ status: 'paused', statusMessage: 'Stream is paused' });
    expect(receiver.received).toHaveLength(1);
    const active = await call('POST', `/streams/evm/${created['id']}/status`, { status: 'active' });
    expect(active.body).toMatchObject({ status: 'active', statusMessage: 'Stream is active' });
    expect(receiver.received).toHaveLength(2);
    expect((await call('POST', `/streams/evm/${created['id']}/status`, { status: 'error' })).status).toBe(
      422,
    );
  });

  it('reads a "__proto__" key of an update as a plain (unknown, ignored) key', async () => {
    const created = (await call('PUT', '/streams/evm', streamBody())).body;
    // Raw text: in an object literal "__proto__" would set the prototype rather than a key.
    const res = await fetch(`${baseUrl}/streams/evm/${created['id']}`, {
      method: 'POST',
      headers: { 'x-api-key': keyA, 'content-type': 'application/json' },
      body: '{"__proto__":{"demo":true,"allAddresses":true},"description":"new"}',
    });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: { ...created, description: 'new' },
    });
  });

  it('adds 50,000 addresses in one call, lists, removes and replaces them', async () => {
    const id = (await call('PUT', '/streams/evm', streamBody())).body['id'];
    const addresses = Array.from({ length: 50_000 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    const added = await call('POST', `/streams/evm/${id}/address`, { address: addresses });
    expect(added.status).toBe(200);
    expect(added.body['streamId']).toBe(id);
    expect(added.body['address']).toHaveLength(50_000);
    const page = await call('GET', `/streams/evm/${id}/address?limit=2`);
    expect(page.body).toMatchObject({
      result: [{ address: addresses[0] }, { address: addresses[1] }],
      total: 50_000,
      cursor: expect.any(String),
    });
    const next = await call('GET', `/streams/evm/${id}/address?limit=2&cursor=${page.body['cursor']}`);
    expect(next.body['result']).toEqual([{ address: addresses[2] }, { address: addresses[3] }]);
    const removed = await call('DELETE', `/streams/evm/${id}/address`, { address: addresses[0] });
    expect(removed.body).toEqual({ streamId: id, address: addresses[0] });
    expect((await call('GET', `/streams/evm/${id}/address?limit=1`)).body['total']).toBe(49_999);
    const upper = `0x${'AB'.repeat(20)}`;
    await call('PATCH', `/streams/evm/${id}/address`, { address: [upper] });
    expect((await call('GET', `/streams/evm/${id}/address?limit=10`)).body).toEqual({
      result: [{ address: upper.toLowerCase() }],
      total: 1,
    });
    expect((await call('POST', `/streams/evm/${id}/address`, { address: '0x123' })).status).toBe(400);
    await waitFor(
      () => changes.find((c) => c.key === id && c.value['kind'] === 'addresses'),
      'addresses change',
    );
  });

  it('lists history with payloads, replays a delivery and counts stats', async () => {
    const id = (await call('PUT', '/streams/evm', streamBody())).body['id'];
    const body = JSON.stringify({
      confirmed: false,
      chainId: '0x7a69',
      abi: [],
      streamId: id,
      tag: 'tag-1',
      retries: 0,
      block: { number: '5', hash: `0x${'5'.repeat(64)}`, timestamp: '1' },
      logs: [],
      txs: [],
      txsInternal: [],
      erc20Transfers: [],
      erc20Approvals: [],
      nftTransfers: [],
      nftApprovals: { ERC721: [], ERC1155: [] },
      nftTokenApprovals: [],
      nativeBalances: [],
    });
    const d = await insertDelivery(pool, {
      id: crypto.randomUUID(),
      streamId: id,
      chainId: 31337,
      blockNumber: 5,
      blockHash: `0x${'5'.repeat(64)}`,
      blockTimestamp: 1,
      confirmed: false,
      body,
      status: 'pending',
      logsCount: 0,
      txsCount: 0,
    });
    await pool.query(`UPDATE deliveries SET status = 'failed', attempts = 8 WHERE id = $1`, [d.id]);
    const history = await call('GET', `/history?limit=10&streamId=${id}`);
    expect(history.body).toMatchObject({
      total: 1,
      result: [
        {
          id: d.id,
          streamId: id,
          tag: 'tag-1',
          webhookUrl: receiver.url,
          status: 'failed',
          payload: JSON.parse(body),
        },
      ],
    });
    expect((await call('GET', `/history?limit=10&streamId=${id}`, undefined, keyB)).body).toEqual({
      result: [],
      total: 0,
      retainedSince: null,
    });
    const replay = await call('POST', `/history/replay/${id}/${d.id}`);
    expect(replay.body).toMatchObject({ id: d.id, status: 'pending' });
    const jobs = await services.deps.deliveryQueue.getJobs(['waiting']);
    expect(jobs.map((j) => j.data)).toContainEqual({ v: 1, deliveryId: d.id });
    expect((await call('POST', `/history/replay/${id}/${d.id}`, undefined, keyB)).status).toBe(404);
    expect((await call('GET', `/stats/${id}`)).body).toEqual({
      totalWebhooksDelivered: 0,
      totalWebhooksFailed: 0,
      totalLogsProcessed: 0,
      totalTxsProcessed: 0,
      totalTxsInternalProcessed: 0,
    });
    expect((await call('GET', '/stats')).status).toBe(200);
  });

  it('says how far back the history reaches once retention removed a day, and still lists and replays what it kept', async () => {
    const id = (await call('PUT', '/streams/evm', streamBody())).body['id'] as string;
    await withTransaction(pool, (client) => createDeliveryDay(client, '2020-02-20', 5_000));
    const timestamp = Math.floor(Date.parse('2020-02-20T10:00:00Z') / 1000);
    const ids: string[] = [];
    for (const n of [7, 8]) {
      const hash = `0x${String(n).repeat(64)}`;
      const stored = await insertDelivery(pool, {
        id: crypto.randomUUID(),
        streamId: id,
        chainId: 31337,
        blockNumber: n,
        blockHash: hash,
        blockTimestamp: timestamp,
        confirmed: false,
        body: JSON.stringify({
          confirmed: false,
          chainId: '0x7a69',
          abi: [],
          streamId: id,
          tag: 'tag-1',
          retries: 0,
          block: { number: String(n), hash, timestamp: String(timestamp) },
          logs: [],
          txs: [],
        }),
        status: 'pending',
        logsCount: 3,
        txsCount: 1,
      });
      ids.push(stored.id);
    }
    await recordDeliveredMany(pool, [{ deliveryId: ids[0] as string, statusCode: 200, latencyMs: 4 }]);
    await recordAttempt(pool, {
      deliveryId: ids[1] as string,
      statusCode: 500,
      latencyMs: 4,
      error: 'HTTP 500',
      newStatus: 'failed',
    });
    expect((await call('GET', `/history?limit=10&streamId=${id}`)).body).toMatchObject({
      total: 2,
      retainedSince: null,
    });

    // The day's time is up: its delivered webhook goes, its failed one is kept.
    await withTransaction(pool, (client) =>
      dropDeliveryDay(client, '2020-02-20', {
        failedCutoff: new Date(0),
        moveLimit: 100,
        lockTimeoutMs: 5_000,
      }),
    );
    const history = await call('GET', `/history?limit=10&streamId=${id}`);
    expect(history.body).toMatchObject({
      total: 1,
      retainedSince: '2020-02-21T00:00:00.000Z',
      result: [{ id: ids[1], status: 'failed', attempts: 1, errorMessage: 'HTTP 500' }],
    });
    expect(history.body['result']).toHaveLength(1);
    expect((await call('POST', `/history/replay/${id}/${ids[1]}`)).body).toMatchObject({
      id: ids[1],
      status: 'pending',
    });
    // What was delivered is still counted.
    expect((await call('GET', `/stats/${id}`)).body).toEqual({
      totalWebhooksDelivered: 1,
      totalWebhooksFailed: 1,
      totalLogsProcessed: 3,
      totalTxsProcessed: 1,
      totalTxsInternalProcessed: 0,
    });
  });

  it('answers 404 for a replayed delivery id that is not a uuid (it reached the uuid cast: 500)', async () => {
    const id = (await call('PUT', '/streams/evm', streamBody())).body['id'];
    for (const delivery of ['-'.repeat(36), 'a'.repeat(36), 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaa-', 'x']) {
      expect(await call('POST', `/history/replay/${id}/${delivery}`)).toEqual({
        status: 404,
        body: { message: 'Delivery not found' },
      });
    }
  });

  it('a stream left in error is terminated for good: it cannot be re-activated or paused', async () => {
    const created = (await call('PUT', '/streams/evm', streamBody())).body;
    const id = created['id'] as string;
    // The sender's health check put it in error an hour ago; its sweep runs with a 1 s limit.
    await pool.query(
      `UPDATE streams SET status = 'error', status_message = 'Stream is in error', error_since = now() - interval '1 hour' WHERE id = $1`,
      [id],
    );
    expect(await terminateStaleErrorStreams(pool, 1_000)).toContain(id);
    const read = await call('GET', `/streams/evm/${id}`);
    expect(read.body).toEqual({
      ...created,
      status: 'terminated',
      statusMessage: 'Stream was terminated after staying in error for too long',
    });
    receiver.received.length = 0;
    for (const status of ['active', 'paused']) {
      const res = await call('POST', `/streams/evm/${id}/status`, { status });
      expect(res).toEqual({
        status: 422,
        body: {
          message: 'Validation Failed',
          details: { status: { message: 'a terminated stream cannot change status' } },
        },
      });
    }
    expect(receiver.received).toHaveLength(0);
    expect((await call('GET', `/streams/evm/${id}`)).body['status']).toBe('terminated');
  });

  it('deletes a stream and answers 404 afterwards', async () => {
    const created = (await call('PUT', '/streams/evm', streamBody())).body;
    const deleted = await call('DELETE', `/streams/evm/${created['id']}`, {});
    expect(deleted).toEqual({ status: 200, body: created });
    expect((await call('GET', `/streams/evm/${created['id']}`)).status).toBe(404);
    await waitFor(
      () => changes.find((c) => c.key === created['id'] && c.value['kind'] === 'delete'),
      'delete change',
    );
  });
});

/** The axios instance the SDK's core imports (ESM), the one every SDK call goes through. */
async function sdkAxios() {
  const fromMoralis = createRequire(createRequire(import.meta.url).resolve('moralis'));
  const fromCore = createRequire(fromMoralis.resolve('@moralisweb3/common-core'));
  const axiosDir = dirname(fromCore.resolve('axios/package.json'));
  return (await import(pathToFileURL(join(axiosDir, 'index.js')).href)).default as {
    interceptors: { request: { use(f: (config: { url?: string }) => unknown): void } };
    request(config: Record<string, unknown>): Promise<{ status: number; data: Record<string, unknown> }>;
  };
}

/** The SDK hard-codes its streams host: point the SDK's own axios at us. */
async function redirectSdk(target: string): Promise<void> {
  const axios = await sdkAxios();
  axios.interceptors.request.use((config: { url?: string }) => {
    config.url = config.url?.replace('https://api.moralis-streams.com', target);
    return config;
  });
}

describe('the official SDK against the stream routes', () => {
  it('adds, reads, lists, updates, pauses, manages addresses and deletes a stream', async () => {
    await redirectSdk(baseUrl);
    await Moralis.start({ apiKey: keyA });
    const created = await Moralis.Streams.add({
      webhookUrl: receiver.url,
      description: 'sdk',
      tag: 'sdk-tag',
      chains: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
    });
    const id = created.toJSON().id;
    expect(created.toJSON()).toMatchObject({ description: 'sdk', tag: 'sdk-tag', status: 'active' });
    expect((await Moralis.Streams.getById({ id })).toJSON().tag).toBe('sdk-tag');
    const all = await Moralis.Streams.getAll({ limit: 100 });
    expect(all.result.map((s) => s.toJSON().id)).toContain(id);
    const updated = await Moralis.Streams.update({ id, tag: 'sdk-tag-2', chains: ['0x7a69'] });
    expect(updated.toJSON().tag).toBe('sdk-tag-2');
    expect((await Moralis.Streams.updateStatus({ id, status: 'paused' })).toJSON().status).toBe('paused');
    const address = '0x' + 'c'.repeat(40);
    await Moralis.Streams.addAddress({ id, address: [address] });
    const listed = await Moralis.Streams.getAddresses({ id, limit: 10 });
    expect(listed.result.map((r) => r.address?.lowercase)).toEqual([address]);
    await Moralis.Streams.deleteAddress({ id, address });
    expect((await Moralis.Streams.getAddresses({ id, limit: 10 })).result).toEqual([]);
    await Moralis.Streams.delete({ id });
    expect((await call('GET', `/streams/evm/${id}`)).status).toBe(404);
  });

  it("asks for a backfill through the SDK's axios: the extra route beside the SDK's", async () => {
    // The SDK was started and pointed at this gateway by the test before.
    await pool.query(
      `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES (31337, 10, $1)
       ON CONFLICT (chain_id) DO NOTHING`,
      [Buffer.alloc(32, 1)],
    );
    const { chainIds: _, ...body } = streamBody();
    const id = (await Moralis.Streams.add({ ...body, chains: ['0x7a69'] })).toJSON().id;
    const axios = await sdkAxios();
    const asked = await axios.request({
      method: 'POST',
      url: `https://api.moralis-streams.com/streams/evm/${id}/backfill`,
      headers: { 'x-api-key': keyA },
      data: { chainId: '0x7a69', fromBlock: 1, toBlock: 10, dryRun: true },
    });
    expect(asked.status).toBe(200);
    expect(asked.data).toMatchObject({
      streamId: id,
      fromBlock: 1,
      toBlock: 10,
      dryRun: true,
      status: 'running',
    });
    const read = await axios.request({
      method: 'GET',
      url: `https://api.moralis-streams.com/streams/evm/${id}/backfill/${asked.data['id']}`,
      headers: { 'x-api-key': keyA },
    });
    expect(read.data['id']).toBe(asked.data['id']);
    // The SDK's own routes answer as before.
    expect((await Moralis.Streams.getById({ id })).toJSON().id).toBe(id);
  });
});
