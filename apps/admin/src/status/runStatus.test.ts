import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '@tributary/db';
import { requestBackfill } from '@tributary/db/chain';
import { insertDelivery, insertStream } from '@tributary/db/streams';
import { TOPICS } from '@tributary/schema';
import {
  createKafkaTopic,
  createTestDatabase,
  freePort,
  getTestSettings,
  startAnvil,
  type StartedAnvil,
  type TestDatabase,
  uniqueName,
} from '@tributary/testkit';
import { createKafka } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatus } from './runStatus.ts';
import { loadStatusEnv } from './statusEnv.ts';

// A deployment with something wrong in every part, on the real servers: a follower 20 blocks
// behind a real anvil, tables behind the follower, a consumer group behind the topic, jobs that no
// worker takes, a service that is not ready and one that does not answer. Nothing moves between
// the two looks, so each is reported, and the command exits 1.
const settings = getTestSettings();
let anvil: StartedAnvil;
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let ready: Server;
let notReady: Server;
let env: NodeJS.ProcessEnv;
let backfillId: string;
const prefix = `${uniqueName('status')}.`;
const queuePrefix = uniqueName('q');

const listen = async (status: number, body: object) => {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
};
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  anvil = await startAnvil();
  await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x1e'] }), // 30 blocks
  });
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 2 });
  await pool.query(
    `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash) VALUES (31337, 10, '\\x00')`,
  );
  for (const n of [1, 2, 3, 4])
    await pool.query(
      `INSERT INTO blocks (chain_id, number, hash, parent_hash, timestamp) VALUES (31337, $1, $2, '\\x00', now())`,
      [n, Buffer.from([n])],
    );
  const accountId = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    accountId,
    'a',
    's',
  ]);
  const streamId = randomUUID();
  await insertStream(pool, {
    id: streamId,
    accountId,
    chainIds: [31337],
    config: { webhookUrl: 'http://127.0.0.1:9/h', description: 'd', tag: 't', chainIds: ['0x7a69'] },
  });
  for (const [n, status] of [
    [1, 'pending'],
    [2, 'pending'],
    [3, 'held'],
  ] as const)
    await insertDelivery(pool, {
      id: randomUUID(),
      streamId,
      chainId: 31337,
      blockNumber: n,
      blockHash: `0x${n.toString(16).padStart(64, '0')}`,
      blockTimestamp: 1_700_000_000 + n,
      confirmed: false,
      body: '{}',
      status,
      logsCount: 0,
      txsCount: 0,
    });

  // An operator's backfill request the follower has not finished: shown, not a problem by itself.
  backfillId = (await requestBackfill(pool, { chainId: 31337, fromBlock: 2, toBlock: 8 })).id;

  // Five block events; the matcher's group committed two of them, the projector's none.
  const topic = await createKafkaTopic(`${prefix}${TOPICS.blocks}`);
  const kafka = createKafka({
    clientId: 'status-test',
    brokers: settings.kafkaBrokers,
    logger: createLogger('status-test', 'silent'),
  });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [1, 2, 3, 4, 5].map((i) => ({ value: String(i) })) });
  await producer.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  await admin.setOffsets({ groupId: `${prefix}matcher`, topic, partitions: [{ partition: 0, offset: '2' }] });
  await admin.disconnect();

  // Two jobs and no worker.
  queue = openTestWebhookQueue(settings.redisUrl, queuePrefix);
  await queue.add('deliver', { v: 1, deliveryId: randomUUID() });
  await queue.add('deliver', { v: 1, deliveryId: randomUUID() });

  ready = await listen(200, { status: 'ok', checks: {} });
  notReady = await listen(503, {
    status: 'fail',
    checks: { kafka: { ok: true }, watchdog: { ok: false, error: 'no progress for 61 s' } },
  });
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: settings.redisUrl,
    KAFKA_BROKERS: settings.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    WEBHOOK_QUEUE_PREFIX: queuePrefix,
    RPC_URL: anvil.rpcUrl,
    CHAIN_ID: '31337',
    STATUS_GROUPS: `${prefix}projector,${prefix}matcher`,
    STATUS_SERVICES: `gateway=${urlOf(ready)},projector=${urlOf(notReady)},chain-follower=http://127.0.0.1:${await freePort()}`,
  };
}, 120_000);

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  ready?.close();
  notReady?.close();
  await pool?.end();
  await db?.drop();
  await anvil?.stop();
});

/** Runs the command as a user would (asynchronously: the services above answer from this process). */
function statusCommand(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/status.ts', ...args],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { PATH: process.env['PATH'] ?? '', ...env, ...extraEnv },
        timeout: 60_000,
      },
      (err, stdout, stderr) => resolve({ status: err ? Number(err.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('the status command', () => {
  it('reports every part and names what is stuck', async () => {
    const result = await runStatus(loadStatusEnv(env), 300);
    const s = result.snapshot;
    expect(s.chains).toEqual([
      expect.objectContaining({ chainId: 31337, head: 30, checkpoint: 10, projected: 4 }),
    ]);
    expect(s.consumers.map((c) => [c.group, c.lag])).toEqual([
      [`${prefix}projector`, 5],
      [`${prefix}matcher`, 3],
    ]);
    expect(s.queue).toMatchObject({ waiting: 2, active: 0 });
    expect(s.deliveries).toMatchObject({ pending: 2, held: 1, failed: 0 });
    expect(s.streams).toEqual({ active: 1 });
    expect(s.unreadable).toEqual([]);
    expect(result.problems).toEqual([
      'projector is not ready: watchdog: no progress for 61 s',
      expect.stringMatching(/^chain-follower does not answer at http:\/\/127\.0\.0\.1:\d+: no answer/),
      'chain 31337: the follower is stuck at block 10, 20 behind the head',
      'chain 31337: the query tables are stuck at block 4, 6 behind the follower',
      `consumer group ${prefix}projector: 5 messages behind and no offset committed meanwhile`,
      `consumer group ${prefix}matcher: 3 messages behind and no offset committed meanwhile`,
      'webhook queue: 2 jobs waiting and no worker taking them',
    ]);
    expect(result.text).toContain('chain 31337: head 30, follower at 10, 20 behind, tables at 4');
    expect(result.text).toContain('deliveries: 2 pending, 1 held, 0 failed');
    expect(result.text).toContain(
      `backfill ${backfillId} on chain 31337: blocks 2 to 8, 0 of 7 re-published`,
    );
    expect(result.text).toContain('STUCK: 7 problem(s)');
  });

  it('the command exits 1 when something is stuck, with the same report as JSON', async () => {
    const run = await statusCommand(['--window', '0', '--json']);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as { problems: string[]; deliveries: { pending: number } };
    expect(report.deliveries.pending).toBe(2);
    expect(report.problems).toContain('projector is not ready: watchdog: no progress for 61 s');
  });

  it('refuses a bad window with exit 2 and the usage', async () => {
    const run = await statusCommand(['--window', 'soon']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: pnpm status');
  });
});

describe('the status command prints what services say', () => {
  it('with their terminal escapes and line breaks shown as text, never obeyed', async () => {
    const hostile = await listen(503, {
      status: 'fail',
      checks: {
        redis: { ok: false, error: 'down\u001b[2J\u001b]0;owned\u0007\nOK: nothing is stuck\u009b1m' },
      },
    });
    try {
      const services = { STATUS_SERVICES: `gateway=${urlOf(hostile)}` };
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
      const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
      const text = await statusCommand(['--window', '0'], services);
      expect(text.stdout).not.toMatch(controls);
      expect(text.stdout).toContain(
        'service gateway: NOT READY (redis: down\\u001b[2J\\u001b]0;owned\\u0007\\u000aOK: nothing is stuck\\u009b1m)',
      );
      const json = await statusCommand(['--window', '0', '--json'], services);
      expect(json.stdout).not.toMatch(controls);
      const parsed = JSON.parse(json.stdout) as { services: { detail?: string }[] };
      expect(parsed.services[0]?.detail).toBe(
        'redis: down\u001b[2J\u001b]0;owned\u0007\nOK: nothing is stuck\u009b1m',
      );
    } finally {
      hostile.close();
    }
  });
});
