import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import { type TestDatabase, createTestDatabase, getTestSettings, uniqueName } from '@tributary/testkit';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTestServers,
  enqueueTestDeliveries,
  exitOf,
  insertTestAccount,
  insertTestDelivery,
  insertTestStream,
  openDeliveryQueue,
  startSenderProcess,
  until,
} from './testing/senderFixtures.ts';

// A stream's maxRequestsPerSecond, with two senders sharing the queue: no request reaches the
// receiver before its turn (turns are 1000 / limit ms apart on Redis's clock, which the receiver
// reads too), and the backlog the limit makes is never counted as failures.
const LIMIT = 4;
const DELIVERIES = 12;
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let redis: Redis;
const senders: ChildProcess[] = [];
const queuePrefix = uniqueName('q');
/** Redis's clock (ms) when each request arrived. */
const arrivals: number[] = [];

const redisNow = async () => {
  const [sec, micro] = await redis.time();
  return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
};

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  redis = new Redis(getTestSettings().redisUrl, { maxRetriesPerRequest: 1 });
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      arrivals.push(await redisNow());
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  queue = openDeliveryQueue(queuePrefix);
});

afterAll(async () => {
  for (const s of senders) {
    if (s.exitCode === null && s.signalCode === null) {
      s.kill('SIGTERM');
      await exitOf(s);
    }
  }
  await redis?.quit();
  await closeTestServers({ queue, receiver, pool, db });
});

describe('maxRequestsPerSecond across two senders', () => {
  it('sends each request at or after its turn, and counts no failure', async () => {
    const accountId = await insertTestAccount(pool, 's');
    const port = (receiver.address() as AddressInfo).port;
    const streamId = await insertTestStream(pool, {
      accountId,
      webhookUrl: `http://127.0.0.1:${port}/limited`,
      tag: 't',
      maxRequestsPerSecond: LIMIT,
    });
    const ids: string[] = [];
    for (let n = 1; n <= DELIVERIES; n++) ids.push(await insertTestDelivery(pool, streamId, n));
    // Two batch jobs: both senders start on them at once.
    await enqueueTestDeliveries(
      pool,
      queue,
      ids.map((id) => ({ deliveryId: id, jobId: id })),
      DELIVERIES / 2,
    );
    for (let i = 0; i < 2; i++) {
      senders.push(
        startSenderProcess({
          databaseUrl: db.url,
          queuePrefix,
          topicPrefix: `${queuePrefix}.`,
          env: { SENDER_CONCURRENCY: '8', RETRY_SCHEDULE_MS: '600000' },
        }),
      );
    }
    await until(
      async () =>
        (
          await pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM deliveries WHERE stream_id = $1 AND status = 'delivered'`,
            [streamId],
          )
        ).rows[0]!.n === DELIVERIES,
      'every delivery delivered',
      120_000,
    );
    // Turns are taken only by these deliveries' first attempts: the first was at next - N * interval.
    const interval = 1000 / LIMIT;
    const next = Number(await redis.get(`${queuePrefix}:rps:${streamId}`));
    const first = next - DELIVERIES * interval;
    const sorted = [...arrivals].sort((a, b) => a - b);
    expect(sorted).toHaveLength(DELIVERIES);
    sorted.forEach((at, k) => {
      expect(at, `request ${k} came before its turn`).toBeGreaterThanOrEqual(first + k * interval - 1);
    });
    // Waiting for a turn is not an attempt, let alone a failure.
    const rows = await pool.query<{ attempts: number; failed: number }>(
      `SELECT d.attempts, (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.status_code IS DISTINCT FROM 200) AS failed
         FROM deliveries d WHERE d.stream_id = $1`,
      [streamId],
    );
    expect(rows.rows).toEqual(Array(DELIVERIES).fill({ attempts: 1, failed: 0 }));
    const stream = await pool.query<{ success_rate: number; status: string }>(
      'SELECT success_rate, status FROM streams WHERE id = $1',
      [streamId],
    );
    expect(stream.rows[0]).toEqual({ success_rate: 100, status: 'active' });
  });
});
