import type { ChildProcess } from 'node:child_process';
import { type IncomingHttpHeaders, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import { createTestDatabase, type TestDatabase, uniqueName } from '@tributary/testkit';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTestServers,
  exitOf,
  insertTestAccount,
  enqueueTestDeliveries,
  insertTestDelivery,
  insertTestStream,
  openDeliveryQueue,
  startSenderProcess,
  until as untilWithin,
} from './testing/senderFixtures.ts';

// Deliveries enqueued together (as the matcher enqueues a block event's) travel as one batch job.
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let base: string;
let accountId: string;
const queuePrefix = uniqueName('q');
const SECRET = 'batch-secret';
const received: { path: string; raw: string; headers: IncomingHttpHeaders }[] = [];
const flakyFailures = new Set<string>();
const held: ServerResponse[] = [];
let holdSlow = true;
const senders: ChildProcess[] = [];

function startSender(): ChildProcess {
  const child = startSenderProcess({
    databaseUrl: db.url,
    queuePrefix,
    topicPrefix: `${queuePrefix}.`,
    env: {
      SENDER_CONCURRENCY: '4',
      WEBHOOK_TIMEOUT_MS: '20000',
      RETRY_SCHEDULE_MS: '200,200',
      // A killed sender's jobs come back soon.
      LOCK_DURATION_MS: '2000',
      STALLED_INTERVAL_MS: '500',
    },
  });
  senders.push(child);
  return child;
}

const until = (probe: () => boolean | Promise<boolean>, what: string) => untilWithin(probe, what, 60_000);
const stream = (path: string) =>
  insertTestStream(pool, { accountId, webhookUrl: `${base}${path}`, tag: path });
let block = 0;
const delivery = (streamId: string) => insertTestDelivery(pool, streamId, ++block);

const rowsOf = async (ids: string[]) =>
  (
    await pool.query<{ id: string; status: string; attempts: number }>(
      'SELECT id, status, attempts FROM deliveries WHERE id = ANY($1::uuid[]) ORDER BY id',
      [ids],
    )
  ).rows;
const sentTo = (id: string) => received.filter((r) => r.headers['webhook-id'] === id);

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const id = String(req.headers['webhook-id']);
      received.push({ path, raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      if (path === '/flaky' && !flakyFailures.has(id)) {
        flakyFailures.add(id);
        res.statusCode = 500;
        res.end();
        return;
      }
      if (path === '/slow' && holdSlow) {
        held.push(res);
        return;
      }
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  queue = openDeliveryQueue(queuePrefix);
  accountId = await insertTestAccount(pool, SECRET);
});

afterAll(async () => {
  for (const s of senders) {
    if (s.exitCode === null && s.signalCode === null) {
      s.kill('SIGTERM');
      await exitOf(s);
    }
  }
  await closeTestServers({ queue, receiver, pool, db });
});

describe('batch jobs', () => {
  it('deliver every member once, signed; a failing member is retried on schedule as a job of its own', async () => {
    const ok = await stream('/ok');
    const flaky = await stream('/flaky');
    const okIds = [await delivery(ok), await delivery(ok), await delivery(ok)];
    const flakyId = await delivery(flaky);
    const ids = [...okIds, flakyId];
    await enqueueTestDeliveries(
      pool,
      queue,
      ids.map((id) => ({ deliveryId: id, jobId: `job_${id}` })),
    );
    expect(await queue.getWaitingCount()).toBe(1); // one job for the four

    const sender = startSender();
    await until(async () => (await rowsOf(ids)).every((d) => d.status === 'delivered'), 'every delivery');
    sender.kill('SIGTERM');
    await exitOf(sender);

    // Each request's exact body and x-signature: keccak256 of the body followed by SECRET, worked
    // out with viem and with js-sha3. Blocks 1 to 3 went to /ok once each; block 4 to /flaky twice.
    const signed = (id: string) => sentTo(id).map((r) => [r.raw, r.headers['x-signature']]);
    expect(okIds.map(signed)).toEqual([
      [
        [
          '{"confirmed":false,"block":{"number":"1"},"retries":0}',
          '0x71c1f6a01e86d91405e7f9118b151db44cb885a829c10e5dc008076b91c78887',
        ],
      ],
      [
        [
          '{"confirmed":false,"block":{"number":"2"},"retries":0}',
          '0xa96340d318bad2bbebf0186e0d2745fc45ab9091338d07117e465b8fc503e41e',
        ],
      ],
      [
        [
          '{"confirmed":false,"block":{"number":"3"},"retries":0}',
          '0xe5ada58212cb31929a0c9297a4231885e49be038084c29f8bc01338de2065700',
        ],
      ],
    ]);
    expect(signed(flakyId)).toEqual([
      [
        '{"confirmed":false,"block":{"number":"4"},"retries":0}',
        '0x02992e5a49a46713ff951adbbedfb14f4f46f02e536511086428a7a6ef6948f9',
      ],
      [
        '{"confirmed":false,"block":{"number":"4"},"retries":1}',
        '0x80e80ba387b80e810d6941d428041d20e463164700310ca28701e5a401b12689',
      ],
    ]);
    const attempts = await pool.query(
      'SELECT attempt, status_code, error FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [flakyId],
    );
    expect(attempts.rows).toEqual([
      { attempt: 1, status_code: 500, error: 'HTTP 500' },
      { attempt: 2, status_code: 200, error: null },
    ]);
    expect((await rowsOf([flakyId]))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('a sender killed mid-batch: another runs the batch again, sending only what was not delivered', async () => {
    const fast = await stream('/fast');
    const slow = await stream('/slow');
    const fastIds = [await delivery(fast), await delivery(fast)];
    const slowId = await delivery(slow);
    const ids = [...fastIds, slowId];
    await enqueueTestDeliveries(
      pool,
      queue,
      ids.map((id) => ({ deliveryId: id, jobId: `job_${id}` })),
    );

    const first = startSender();
    // The fast members are delivered and recorded; the slow one is in flight.
    await until(async () => sentTo(slowId).length === 1, 'the slow request');
    await until(
      async () => (await rowsOf(fastIds)).every((d) => d.status === 'delivered'),
      'the fast deliveries',
    );
    first.kill('SIGKILL');
    await exitOf(first);
    holdSlow = false;
    for (const res of held.splice(0)) res.destroy();

    const second = startSender();
    await until(async () => (await rowsOf(ids)).every((d) => d.status === 'delivered'), 'every delivery');
    second.kill('SIGTERM');
    await exitOf(second);

    for (const id of fastIds) expect(sentTo(id)).toHaveLength(1);
    const slowRequests = sentTo(slowId);
    expect(slowRequests).toHaveLength(2);
    // The same delivery both times: the receiver can tell the repeat by its webhook-id.
    expect(slowRequests.every((r) => r.headers['webhook-id'] === slowId)).toBe(true);
    expect((await rowsOf([slowId]))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
