import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import {
  type RedisServer,
  type TestDatabase,
  createTestDatabase,
  freePort,
  startRedisServer,
  uniqueName,
} from '@tributary/testkit';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enqueueTestDeliveries,
  exitOf,
  insertTestAccount,
  insertTestDelivery,
  insertTestStream,
  startSenderProcess,
  until,
} from './testing/senderFixtures.ts';

// A sender that starts while Redis is away (a host reboot brings the services up first; Redis
// restarts while the sender restarts) waits for it, then delivers: its queue clients are not left
// with a connection that failed once and never tries again.
let db: TestDatabase;
let pool: Pool;
let receiver: Server;
let redis: RedisServer | undefined;
let sender: ChildProcess | undefined;
const received: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  if (sender && sender.exitCode === null && sender.signalCode === null) {
    sender.kill('SIGTERM');
    await exitOf(sender);
  }
  await redis?.kill();
  receiver?.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
  await pool?.end();
  await db?.drop();
});

describe('a sender started before Redis', () => {
  it('is not ready while Redis is away, then delivers once it comes', async () => {
    const redisPort = await freePort();
    const opsPort = await freePort();
    const queuePrefix = uniqueName('q');
    sender = startSenderProcess({
      databaseUrl: db.url,
      queuePrefix,
      topicPrefix: uniqueName('t'),
      env: {
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        OPS_PORT: String(opsPort),
        RELAY_INTERVAL_MS: '500',
      },
    });
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => undefined);
      return res?.status;
    };
    await until(async () => (await readyz()) !== undefined, 'the ops port', 30_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await readyz()).toBe(503);
    expect(sender.exitCode).toBeNull();

    redis = await startRedisServer({ port: redisPort });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const accountId = await insertTestAccount(pool, 's');
    const streamId = await insertTestStream(pool, { accountId, webhookUrl: url, tag: 't' });
    const queue = openTestWebhookQueue(redis.url, queuePrefix);
    try {
      // One enqueued as the matcher does, one whose job is missing (the relay's part).
      const enqueued = await insertTestDelivery(pool, streamId, 1);
      await enqueueTestDeliveries(pool, queue, [{ deliveryId: enqueued, jobId: `job_${enqueued}` }]);
      const orphan = await insertTestDelivery(pool, streamId, 2);
      await pool.query(
        `UPDATE deliveries SET job_id = 'never-enqueued', job_at = now() - interval '1 hour' WHERE id = $1`,
        [orphan],
      );
      await until(() => received.length >= 2, 'both webhooks', 60_000);
      await until(async () => (await readyz()) === 200, 'readiness', 30_000);
    } finally {
      await queue.close();
    }
  }, 120_000);
});
