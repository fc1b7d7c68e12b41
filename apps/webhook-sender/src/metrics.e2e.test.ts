import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Pool, createPool } from '@tributary/db';
import { type TestDatabase, createTestDatabase, freePort, uniqueName } from '@tributary/testkit';
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

// The sender's own metrics, scraped from the real process: attempts and their latency by outcome,
// the queue by state, deliveries by status and streams by status.
let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let receiver: Server;
let sender: ChildProcess | undefined;
let opsPort: number;
const queuePrefix = uniqueName('q');

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  // /ok answers 200; /down answers 503 (its deliveries are retried, then given up).
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : 503).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  queue = openDeliveryQueue(queuePrefix);
  opsPort = await freePort();
});

afterAll(async () => {
  if (sender && sender.exitCode === null) {
    sender.kill('SIGTERM');
    await exitOf(sender);
  }
  await closeTestServers({ queue, receiver, pool, db });
});

/** The samples of one metric, as `labels -> value` (labels without the service label). */
async function samples(name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = line.match(/^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/);
    if (!m || m[1] !== name) continue;
    const labels = (m[2] ?? '')
      .split(',')
      .filter((l) => l && !l.startsWith('service='))
      .join(',');
    out.set(labels, Number(m[3]));
  }
  return out;
}

describe('the sender metrics', () => {
  it('count attempts by outcome with their latency, and report the queue, deliveries and streams', async () => {
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const accountId = await insertTestAccount(pool, 's');
    const ok = await insertTestStream(pool, { accountId, webhookUrl: `${base}/ok`, tag: 'ok' });
    const down = await insertTestStream(pool, { accountId, webhookUrl: `${base}/down`, tag: 'down' });
    const delivered = [1, 2, 3].map((n) => insertTestDelivery(pool, ok, n));
    const failing = insertTestDelivery(pool, down, 4);
    const ids = [...(await Promise.all(delivered)), await failing];
    await enqueueTestDeliveries(
      pool,
      queue,
      ids.map((id) => ({ deliveryId: id, jobId: `job_${id}` })),
    );
    sender = startSenderProcess({
      databaseUrl: db.url,
      queuePrefix,
      topicPrefix: `${queuePrefix}.`,
      env: {
        OPS_PORT: String(opsPort),
        RETRY_SCHEDULE_MS: '50',
        SUCCESS_RATE_THRESHOLD: '0',
        RELAY_INTERVAL_MS: '100',
      },
    });
    await until(
      async () =>
        (
          await pool.query(
            `SELECT 1 FROM deliveries WHERE status IN ('delivered', 'failed') AND id = ANY($1::uuid[])`,
            [ids],
          )
        ).rowCount === ids.length,
      'every delivery delivered or failed',
      30_000,
    );

    expect(await samples('tributary_webhook_attempts_total')).toEqual(
      new Map([
        ['outcome="delivered"', 3],
        ['outcome="retry"', 1],
        ['outcome="gave_up"', 1],
      ]),
    );
    const latency = await samples('tributary_webhook_attempt_duration_seconds_count');
    expect(latency.get('outcome="delivered"')).toBe(3);
    expect(latency.get('outcome="gave_up"')).toBe(1);
    expect(await samples('tributary_deliveries')).toEqual(
      new Map([
        ['status="pending"', 0],
        ['status="held"', 0],
        ['status="failed"', 1],
      ]),
    );
    expect((await samples('tributary_streams')).get('status="active"')).toBe(2);
    const jobs = await samples('tributary_webhook_queue_jobs');
    expect(jobs.get('state="waiting"')).toBe(0);
    expect(jobs.get('state="active"')).toBe(0);
    expect(await samples('tributary_webhook_endpoints_saturated')).toEqual(new Map([['', 0]]));
    expect(await samples('tributary_deliveries_oldest_pending_seconds')).toEqual(new Map([['', 0]]));
    // The relay's passes, each timed, the last of them over no pending row.
    const passes = async () => (await samples('tributary_relay_pass_duration_seconds_count')).get('') ?? 0;
    const before = await passes();
    // The second pass from here began after every delivery had settled.
    await until(
      async () => (await passes()) > before + 1,
      'a relay pass after every delivery settled',
      10_000,
    );
    expect(await samples('tributary_relay_pass_pending_rows')).toEqual(new Map([['', 0]]));
    expect((await samples('tributary_relay_pass_duration_seconds_sum')).get('')).toBeGreaterThan(0);
  }, 60_000);
});
