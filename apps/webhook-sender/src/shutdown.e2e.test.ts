import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:http';
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

let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let url: string;
const queuePrefix = uniqueName('q');
const topicPrefix = `${uniqueName('t')}.`;
const arrived: { id: string; at: number }[] = [];
const answered: string[] = [];
let delayMs = 1_500;

function startSender(): ChildProcess {
  return startSenderProcess({
    databaseUrl: db.url,
    queuePrefix,
    topicPrefix,
    env: { SENDER_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '10000', SHUTDOWN_DEADLINE_MS: '15000' },
  });
}

const until = (probe: () => boolean | Promise<boolean>, what: string) => untilWithin(probe, what, 30_000);

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  receiver = createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    arrived.push({ id, at: Date.now() });
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        answered.push(id);
        res.end('ok');
      }, delayMs),
    );
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  queue = openDeliveryQueue(queuePrefix);
});

afterAll(async () => {
  await closeTestServers({ queue, receiver, pool, db });
});

describe('webhook-sender shutdown', () => {
  it('finishes and records the delivery in flight on SIGTERM, exits 0, and a restart sends the rest', async () => {
    const accountId = await insertTestAccount(pool, 's');
    const streamId = await insertTestStream(pool, { accountId, webhookUrl: url, tag: 't' });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const id = await insertTestDelivery(pool, streamId, n);
      ids.push(id);
      await enqueueTestDeliveries(pool, queue, [{ deliveryId: id, jobId: `${streamId}_${n}` }]);
    }
    const statuses = async () =>
      (
        await pool.query<{ id: string; status: string; attempts: number }>(
          'SELECT id, status, attempts FROM deliveries WHERE stream_id = $1',
          [streamId],
        )
      ).rows;

    const first = startSender();
    await until(() => arrived.length === 1, 'the first webhook to be in flight');
    expect(answered).toHaveLength(0);
    first.kill('SIGTERM');
    // Exit 0 is the orderly path; the deadline would force 70.
    expect(await exitOf(first)).toBe(0);
    expect(answered).toEqual([arrived[0]!.id]);
    const afterStop = await statuses();
    expect(afterStop.filter((d) => d.status === 'delivered')).toEqual([
      { id: arrived[0]!.id, status: 'delivered', attempts: 1 },
    ]);
    expect(afterStop.filter((d) => d.status === 'pending')).toHaveLength(2);
    const attempts = await pool.query(
      'SELECT status_code, error FROM delivery_attempts WHERE delivery_id = $1',
      [arrived[0]!.id],
    );
    expect(attempts.rows).toEqual([{ status_code: 200, error: null }]);

    delayMs = 0;
    const second = startSender();
    try {
      await until(async () => (await statuses()).every((d) => d.status === 'delivered'), 'the rest');
    } finally {
      second.kill('SIGTERM');
    }
    expect(await exitOf(second)).toBe(0);
    expect(arrived.map((a) => a.id).sort()).toEqual([...ids].sort());
    expect((await statuses()).every((d) => d.attempts === 1)).toBe(true);
  });
});
