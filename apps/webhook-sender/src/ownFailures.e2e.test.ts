import { TOPICS } from '@tributary/schema';
import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import { acknowledgeDeadLetters } from '@tributary/db/ops';
import {
  createTestDatabase,
  freePort,
  getTestSettings,
  type TestDatabase,
  uniqueName,
} from '@tributary/testkit';
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
  until as untilWithin,
} from './testing/senderFixtures.ts';

// The sender's own failures (not the receiver's): recording an outcome in PostgreSQL failing the
// same way every time is set aside with its reason; failing while PostgreSQL is busy is retried.
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let base: string;
let accountId: string;
let opsPort: number;
let sender: ChildProcess;
const queuePrefix = uniqueName('q');
const posts: string[] = [];

const until = (probe: () => boolean | Promise<boolean>, what: string) => untilWithin(probe, what, 60_000);
let block = 0;
const statusOf = async (id: string) =>
  (
    await pool.query<{ status: string; last_error: string | null }>(
      'SELECT status, last_error FROM deliveries WHERE id = $1',
      [id],
    )
  ).rows[0];
const readiness = async () =>
  (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).json() as Promise<{
    status: string;
    checks: Record<string, { ok: boolean; error?: string }>;
  }>;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts.push(String(req.headers['webhook-id']));
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  queue = openDeliveryQueue(queuePrefix);
  accountId = await insertTestAccount(pool, 'own-failures');
  opsPort = await freePort();
  sender = startSenderProcess({
    databaseUrl: db.url,
    queuePrefix,
    topicPrefix: `${queuePrefix}.`,
    env: { OPS_PORT: String(opsPort), RETRY_SCHEDULE_MS: '200,200' },
  });
  await until(
    async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => null))?.ok === true,
    'the sender',
  );
});

afterAll(async () => {
  if (sender && sender.exitCode === null && sender.signalCode === null) {
    sender.kill('SIGTERM');
    await exitOf(sender);
  }
  await closeTestServers({ queue, receiver, pool, db });
});

/** Fails every `UPDATE` that records the delivery `id` as delivered with SQLSTATE `code` while `failing` holds a row. */
async function failRecording(id: string, code: string) {
  await pool.query(`
    CREATE TABLE IF NOT EXISTS failing (id uuid PRIMARY KEY, code text NOT NULL);
    CREATE OR REPLACE FUNCTION fail_recording() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE c text;
    BEGIN
      SELECT code INTO c FROM failing WHERE id = NEW.id;
      IF c IS NOT NULL AND NEW.status = 'delivered' THEN
        RAISE EXCEPTION 'recording % refused', NEW.id USING ERRCODE = c;
      END IF;
      RETURN NEW;
    END $$;
    DROP TRIGGER IF EXISTS fail_recording ON deliveries;
    CREATE TRIGGER fail_recording BEFORE UPDATE ON deliveries FOR EACH ROW EXECUTE FUNCTION fail_recording();`);
  await pool.query('INSERT INTO failing (id, code) VALUES ($1, $2)', [id, code]);
}

/** The letters on the test's dead-letter topic, once there are at least `atLeast` of them. */
async function deadLetters(atLeast = 0): Promise<{ value: string; reason: string }[]> {
  const kafka = createKafka({
    clientId: 'own-failures',
    brokers: getTestSettings().kafkaBrokers,
    logger: createLogger('own-failures', 'silent'),
  });
  const admin = kafka.admin();
  await admin.connect();
  const topic = `${queuePrefix}.${TOPICS.deadLetters}`;
  let total = 0;
  await until(async () => {
    const ends = await admin.fetchTopicOffsets(topic).catch(() => []);
    total = ends.reduce((n, e) => n + Number(e.high), 0);
    return total >= atLeast;
  }, 'dead letters on the topic');
  await admin.disconnect();
  if (total === 0) return [];
  const reader = kafka.consumer({ groupId: uniqueName('dl') });
  await reader.connect();
  await reader.subscribe({ topic, fromBeginning: true });
  const seen: { value: string; reason: string }[] = [];
  await reader.run({
    eachMessage: async ({ message }) => {
      seen.push({ value: String(message.value), reason: String(message.headers?.['x-reason']) });
    },
  });
  await until(() => seen.length >= total, 'the dead letters');
  await reader.disconnect();
  return seen;
}

describe("the sender's own failures", () => {
  it('recording an outcome failing while PostgreSQL is busy (serialization failures) is retried until it is recorded', async () => {
    const streamId = await insertTestStream(pool, { accountId, webhookUrl: `${base}/busy`, tag: 'busy' });
    const id = await insertTestDelivery(pool, streamId, ++block);
    await failRecording(id, '40001');
    await enqueueTestDeliveries(pool, queue, [{ deliveryId: id, jobId: `job_${id}` }]);
    await until(
      () => posts.filter((p) => p === id).length >= 2,
      'the webhook, sent again after its record failed',
    );
    expect((await statusOf(id))?.status).toBe('pending');
    await pool.query('DELETE FROM failing WHERE id = $1', [id]);
    await until(async () => (await statusOf(id))?.status === 'delivered', 'the delivery recorded');
    expect(await deadLetters()).toEqual([]);
    expect((await readiness()).status).toBe('ok');
  });

  it('recording an outcome failing the same way every time (a check violation) sets that delivery aside with its reason; the others of its batch are delivered', async () => {
    const streamId = await insertTestStream(pool, { accountId, webhookUrl: `${base}/broken`, tag: 'broken' });
    const ids = [
      await insertTestDelivery(pool, streamId, ++block),
      await insertTestDelivery(pool, streamId, ++block),
      await insertTestDelivery(pool, streamId, ++block),
    ];
    const broken = ids[1]!;
    await failRecording(broken, '23514');
    await enqueueTestDeliveries(
      pool,
      queue,
      ids.map((id) => ({ deliveryId: id, jobId: `job_${id}` })),
    );
    await until(async () => (await statusOf(broken))?.status === 'failed', 'the broken delivery set aside');
    await until(
      async () =>
        (await Promise.all(ids.map(statusOf))).filter((s) => s?.status === 'delivered').length === 2,
      'the other deliveries',
    );
    expect((await statusOf(broken))?.last_error).toMatch(
      /^delivery failed for good: PostgreSQL 23514 \(check_violation\): recording .* refused/,
    );
    const letters = await deadLetters(1);
    expect(letters.map((l) => [JSON.parse(l.value), l.reason])).toEqual([
      [{ deliveryId: broken }, (await statusOf(broken))?.last_error],
    ]);
    const ready = await readiness();
    expect(ready.checks['dead-letters']?.error).toMatch(/^1 message\(s\) set aside on the dead-letter topic/);
    await acknowledgeDeadLetters(pool);
    expect((await readiness()).status).toBe('ok');
  });
});
