import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import { createTestDatabase, type TestDatabase, uniqueName } from '@tributary/testkit';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTestServers,
  insertTestAccount,
  enqueueTestDeliveries,
  insertTestDelivery,
  insertTestStream,
  openDeliveryQueue,
  startSenderProcess,
} from './testing/senderFixtures.ts';

let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let base: string;
let sender: ChildProcess | undefined;
const queuePrefix = uniqueName('q');
const bodies = new Map<string, string[]>();
let hangingNow = 0;
let hangingMax = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://receiver').pathname;
      const list = bodies.get(path) ?? [];
      list.push(Buffer.concat(chunks).toString('utf8'));
      bodies.set(path, list);
      if (path === '/hang') {
        hangingNow++;
        hangingMax = Math.max(hangingMax, hangingNow);
        res.on('close', () => hangingNow--);
        return; // never answers
      }
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  queue = openDeliveryQueue(queuePrefix);
});

afterAll(async () => {
  if (sender && sender.exitCode === null) {
    const exited = new Promise((r) => sender?.once('exit', r));
    sender.kill('SIGTERM');
    await exited;
  }
  await closeTestServers({ queue, receiver, pool, db });
});

describe('one endpoint that never answers', () => {
  it('holds at most ENDPOINT_CONCURRENCY worker slots, however many URLs of its origin; the other endpoints are served meanwhile', async () => {
    const accountId = await insertTestAccount(pool, 's');
    const stream = (path: string) =>
      insertTestStream(pool, { accountId, webhookUrl: `${base}${path}`, tag: path });
    // Three URLs of one origin (`?n=` variants): one endpoint, not three.
    const hangs = [await stream('/hang?n=1'), await stream('/hang?n=2'), await stream('/hang?n=3')];
    const ok = await stream('/ok');
    let n = 0;
    const deliver = async (streamId: string) => {
      const id = await insertTestDelivery(pool, streamId, ++n);
      await enqueueTestDeliveries(pool, queue, [{ deliveryId: id, jobId: id }]);
    };
    for (const hang of hangs) await deliver(hang);
    for (let i = 0; i < 6; i++) await deliver(ok);

    sender = startSenderProcess({
      databaseUrl: db.url,
      queuePrefix,
      topicPrefix: `${queuePrefix}.`,
      env: {
        SENDER_CONCURRENCY: '4',
        ENDPOINT_CONCURRENCY: '1',
        WEBHOOK_TIMEOUT_MS: '800',
        RETRY_SCHEDULE_MS: '600000',
      },
    });
    const rows = async (streamIds: string | string[]) =>
      (
        await pool.query<{ status: string; attempts: number; last_error: string | null }>(
          'SELECT status, attempts, last_error FROM deliveries WHERE stream_id = ANY($1)',
          [[streamIds].flat()],
        )
      ).rows;
    const deadline = Date.now() + 30_000;
    // Until every delivery has had its attempt (the ok ones may finish after the last hang times out).
    const attempted = async () =>
      (await rows(hangs)).every((r) => r.attempts > 0) &&
      (await rows(ok)).every((r) => r.status === 'delivered');
    while (!(await attempted()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await rows(ok)).toEqual(Array(6).fill({ status: 'delivered', attempts: 1, last_error: null }));
    expect(await rows(hangs)).toEqual(
      Array(3).fill({ status: 'pending', attempts: 1, last_error: 'timeout after 800 ms' }),
    );
    // One at a time, each sent once, as a first attempt (being put off is not an attempt).
    expect(hangingMax).toBe(1);
    expect(bodies.get('/hang')?.map((b) => JSON.parse(b).retries)).toEqual([0, 0, 0]);
    expect(bodies.get('/ok')).toHaveLength(6);
  });
});
