import { TOPICS } from '@tributary/schema';
import type { ChildProcess } from 'node:child_process';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import { type TestDatabase, createTestDatabase, uniqueName } from '@tributary/testkit';
import { createKafka } from '@tributary/bus';
import { createLogger } from '@tributary/runtime';
import type { Queue } from 'bullmq';
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

// PostgreSQL is the source of truth for webhooks: when Redis loses the queue (restarted without
// its data, flushed, failed over), the sender's relay finds the pending deliveries whose job is
// gone and enqueues them again. Nothing is lost, nothing is sent twice.
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let sender: ChildProcess | undefined;
const queuePrefix = uniqueName('q');
const received: { raw: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  queue = openDeliveryQueue(queuePrefix);
});

afterAll(async () => {
  if (sender && sender.exitCode === null) {
    sender.kill('SIGTERM');
    await exitOf(sender);
  }
  await closeTestServers({ queue, receiver, pool, db });
});

describe('the queue lost with Redis', () => {
  it('every pending delivery is enqueued again and sent once; held and delivered ones are not sent', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const accountId = await insertTestAccount(pool, 's');
    const streamId = await insertTestStream(pool, { accountId, webhookUrl: url, tag: 't' });
    let block = 0;
    const pending: string[] = [];
    for (let i = 0; i < 60; i++) pending.push(await insertTestDelivery(pool, streamId, ++block));
    await enqueueTestDeliveries(
      pool,
      queue,
      pending.map((id) => ({ deliveryId: id, jobId: `job_${id}` })),
    );
    // One more, two attempts into its retry schedule: it goes on from there.
    const retrying = await insertTestDelivery(pool, streamId, ++block);
    await pool.query(`UPDATE deliveries SET attempts = 2, job_id = 'gone-retry' WHERE id = $1`, [retrying]);
    const heldId = await insertTestDelivery(pool, streamId, ++block);
    const deliveredId = await insertTestDelivery(pool, streamId, ++block);
    await pool.query(`UPDATE deliveries SET status = 'held' WHERE id = $1`, [heldId]);
    await pool.query(`UPDATE deliveries SET status = 'delivered' WHERE id = $1`, [deliveredId]);
    expect(await queue.getWaitingCount()).toBe(2); // batch jobs of 50 and 10

    // Redis loses everything (what a restart without persistence does).
    await queue.obliterate({ force: true });
    expect(await queue.getWaitingCount()).toBe(0);

    sender = startSenderProcess({
      databaseUrl: db.url,
      queuePrefix,
      topicPrefix: `${queuePrefix}.`,
      env: { RELAY_INTERVAL_MS: '200', RELAY_GRACE_MS: '0', RETRY_SCHEDULE_MS: '100,100,100,100' },
    });
    const all = [...pending, retrying];
    await until(
      async () =>
        (
          await pool.query(`SELECT 1 FROM deliveries WHERE id = ANY($1::uuid[]) AND status = 'delivered'`, [
            all,
          ])
        ).rowCount === all.length,
      'every pending delivery delivered',
      60_000,
    );
    // A moment for anything sent twice to arrive.
    await new Promise((r) => setTimeout(r, 1_000));
    const ids = received.map((r) => String(r.headers['webhook-id']));
    expect(ids.sort()).toEqual([...all].sort());
    const retried = received.find((r) => r.headers['webhook-id'] === retrying);
    expect(JSON.parse(retried!.raw).retries).toBe(2);
    const rows = await pool.query<{ id: string; status: string; job_id: string }>(
      'SELECT id, status, job_id FROM deliveries WHERE id = ANY($1::uuid[])',
      [[heldId, deliveredId, retrying]],
    );
    expect(Object.fromEntries(rows.rows.map((r) => [r.id, [r.status, r.job_id]]))).toEqual({
      [heldId]: ['held', null],
      [deliveredId]: ['delivered', null],
      [retrying]: ['delivered', `${retrying}_relay`],
    });
  }, 90_000);

  it('a poison job goes to the dead-letter topic with the reason, is failed once and not retried', async () => {
    await queue.add('deliver', { v: 9, what: 'not a webhook job' }, { jobId: 'poison', attempts: 1_000_000 });
    await until(
      async () => (await queue.getJobState('poison')) === 'failed',
      'the poison job to fail',
      20_000,
    );
    const job = await queue.getJob('poison');
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/^invalid job data: /);

    const kafka = createKafka({
      clientId: 'dl-reader',
      brokers: (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:59092').split(','),
      logger: createLogger('dl-reader', 'silent'),
    });
    const reader = kafka.consumer({ groupId: `${queuePrefix}-dl` });
    await reader.connect();
    await reader.subscribe({ topic: `${queuePrefix}.${TOPICS.deadLetters}`, fromBeginning: true });
    const letter = await new Promise<{ key: string; value: string; headers: Record<string, string> }>(
      (resolve) => {
        void reader.run({
          eachMessage: async ({ message }) => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
            resolve({ key: String(message.key), value: String(message.value), headers });
          },
        });
      },
    );
    await reader.disconnect();
    expect(letter.key).toBe('deliver');
    expect(JSON.parse(letter.value)).toEqual({ v: 9, what: 'not a webhook job' });
    expect(letter.headers).toMatchObject({
      'x-source-topic': 'bullmq:webhooks',
      'x-source-offset': 'poison',
      'x-consumer': 'webhook-sender',
      'x-reason': job?.failedReason,
    });
  });
});
