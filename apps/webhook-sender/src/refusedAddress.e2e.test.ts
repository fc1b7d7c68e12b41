import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import { type TestDatabase, createTestDatabase, uniqueName } from '@tributary/testkit';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTestServers,
  enqueueTestDeliveries,
  insertTestAccount,
  insertTestDelivery,
  insertTestStream,
  openDeliveryQueue,
  startSenderProcess,
  until,
} from './testing/senderFixtures.ts';

let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let port = 0;
let reached = 0;
let sender: ChildProcess | undefined;
const queuePrefix = uniqueName('q');

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  receiver = createServer((req, res) => {
    reached++;
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
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

describe('a sender that refuses private addresses', () => {
  it('never reaches a loopback receiver, by name or literal, and history says only that the address is not allowed', async () => {
    const accountId = await insertTestAccount(pool, 's');
    // localhost is resolved by the system when the connection is made; the literal is not resolved.
    const urls = [`http://localhost:${port}/name`, `http://[::ffff:127.0.0.1]:${port}/mapped`];
    const streams = await Promise.all(
      urls.map((webhookUrl) => insertTestStream(pool, { accountId, webhookUrl, tag: 't' })),
    );
    let n = 0;
    for (const streamId of streams) {
      const id = await insertTestDelivery(pool, streamId, ++n);
      await enqueueTestDeliveries(pool, queue, [{ deliveryId: id, jobId: id }]);
    }
    sender = startSenderProcess({
      databaseUrl: db.url,
      queuePrefix,
      topicPrefix: `${queuePrefix}.`,
      env: { ALLOW_PRIVATE_WEBHOOK_URLS: 'false', RETRY_SCHEDULE_MS: '600000' },
    });
    const rows = async () =>
      (
        await pool.query<{ status: string; attempts: number; last_error: string | null }>(
          'SELECT status, attempts, last_error FROM deliveries ORDER BY block_number',
        )
      ).rows;
    await until(
      async () => (await rows()).every((r) => r.attempts > 0),
      'an attempt of each delivery',
      30_000,
    );
    expect(await rows()).toEqual(
      Array(2).fill({ status: 'pending', attempts: 1, last_error: 'refused: the address is not allowed' }),
    );
    expect(reached).toBe(0);
  });
});
