import { randomUUID } from 'node:crypto';
import { type Pool, createPool } from '@tributary/db';
import {
  countStreamDeliveries,
  deliveriesRetainedSince,
  insertStream,
  listDeliveryDays,
  withDeliveryMaintenanceLock,
} from '@tributary/db/streams';
import { createLogger } from '@tributary/runtime';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTestDelivery } from '../testing/senderFixtures.ts';
import {
  type DeliveryMaintenance,
  type MaintenancePass,
  createDeliveryMaintenance,
  utcDay,
} from './createDeliveryMaintenance.ts';

// The sender's upkeep of the deliveries, on a test clock: no test waits for a day to pass.
let db: TestDatabase;
let pool: Pool;
let streamId: string;
let clock = new Date('2030-05-01T06:00:00Z');
const passes: MaintenancePass[] = [];
let maintenance: DeliveryMaintenance;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 4 });
  const accountId = randomUUID();
  streamId = randomUUID();
  await pool.query("INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, 'a', 's')", [accountId]);
  await insertStream(pool, {
    id: streamId,
    accountId,
    chainIds: [31337],
    config: { webhookUrl: 'http://127.0.0.1:9/h', description: 'd', tag: 't', chainIds: ['0x7a69'] },
  });
  // Its timers never fire in a test: each step is called.
  maintenance = createDeliveryMaintenance({
    pool,
    logger: createLogger('maintenance', 'silent'),
    policy: { deliveredDays: 30, failedDays: 90 },
    passEveryMs: 3_600_000,
    foldEveryMs: 3_600_000,
    now: () => clock,
    onPass: (pass) => passes.push(pass),
  });
});

afterAll(async () => {
  await maintenance?.stop();
  await pool?.end();
  await db?.drop();
});

/** A delivery of a block timestamped `at`, with the outcome the sender recorded. */
async function delivery(n: number, at: string, status: 'pending' | 'delivered' | 'failed'): Promise<string> {
  const id = await insertTestDelivery(pool, streamId, n, Math.floor(Date.parse(at) / 1000));
  if (status !== 'pending')
    await pool.query(
      `WITH d AS (UPDATE deliveries SET status = $2, attempts = 1 WHERE id = $1 RETURNING id, block_time, stream_id)
       INSERT INTO delivery_attempts (delivery_id, block_time, stream_id, attempt, status_code, latency_ms)
       SELECT id, block_time, stream_id, 1, $3, 5 FROM d`,
      [id, status, status === 'delivered' ? 200 : 500],
    );
  return id;
}

describe('the delivery maintenance', () => {
  it('makes the days ahead of its clock, drops each day once its time is up, and keeps what must be kept', async () => {
    // The days the migration made (the real clock's) are years behind this one: they go.
    const made = await listDeliveryDays(pool);
    const first = await maintenance.pass();
    expect(first?.created).toEqual(['2030-05-01', '2030-05-02', '2030-05-03', '2030-05-04']);
    expect(first?.dropped.map((d) => d.day)).toEqual(made);

    const delivered = await delivery(1, '2030-05-01T10:00:00Z', 'delivered');
    const failed = await delivery(2, '2030-05-01T11:00:00Z', 'failed');
    const pending = await delivery(3, '2030-05-01T12:00:00Z', 'pending');

    // A month on: the first of May is past the 30 days delivered webhooks are kept, the second is not yet.
    clock = new Date('2030-06-01T06:00:00Z');
    const month = await maintenance.pass();
    expect(month?.created).toEqual(['2030-06-01', '2030-06-02', '2030-06-03', '2030-06-04']);
    expect(month?.dropped).toEqual([
      {
        day: '2030-05-01',
        removed: { delivered: 1, held: 0, failed: 0 },
        kept: { pending: 1, held: 0, failed: 1 },
      },
    ]);
    expect(await listDeliveryDays(pool)).not.toContain('2030-05-01');
    expect(await listDeliveryDays(pool)).toContain('2030-05-02');
    const left = await pool.query<{ id: string }>('SELECT id FROM deliveries WHERE stream_id = $1', [
      streamId,
    ]);
    expect(left.rows.map((r) => r.id).sort()).toEqual([failed, pending].sort());
    expect(left.rows).not.toContainEqual({ id: delivered });
    expect((await deliveriesRetainedSince(pool))?.toISOString()).toBe('2030-05-02T00:00:00.000Z');

    // Three months on: the failed delivery's 90 days are up; the pending one stays, whatever its age.
    clock = new Date('2030-08-01T06:00:00Z');
    const quarter = await maintenance.pass();
    expect(quarter?.dropped.map((d) => d.day)).toEqual([
      '2030-05-02',
      '2030-05-03',
      '2030-05-04',
      '2030-06-01',
      '2030-06-02',
      '2030-06-03',
      '2030-06-04',
    ]);
    expect(quarter?.expired).toEqual({ delivered: 0, held: 0, failed: 1 });
    const kept = await pool.query<{ id: string }>('SELECT id FROM deliveries WHERE stream_id = $1', [
      streamId,
    ]);
    expect(kept.rows).toEqual([{ id: pending }]);
    expect(await listDeliveryDays(pool)).toEqual(['2030-08-01', '2030-08-02', '2030-08-03', '2030-08-04']);
    expect(passes).toEqual([first, month, quarter]);

    // What was delivered stays counted once its row is gone; what is there now is counted as it is.
    expect(await maintenance.fold()).toBeGreaterThan(0);
    expect(await maintenance.fold()).toBe(0);
    expect((await countStreamDeliveries(pool, [streamId])).get(streamId)).toMatchObject({
      kept: 1,
      pending: 1,
      failed: 0,
      delivered: 1,
      failedAttempts: 1,
    });
  });

  it('does nothing while another sender holds the maintenance lock', async () => {
    clock = new Date('2030-09-01T06:00:00Z');
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let entered = () => {};
    const holding = new Promise<void>((r) => {
      entered = r;
    });
    const other = withDeliveryMaintenanceLock(pool, async () => {
      entered();
      await held;
    });
    await holding;
    expect(await maintenance.pass()).toBeUndefined();
    expect(await maintenance.fold()).toBeUndefined();
    expect(await listDeliveryDays(pool)).not.toContain(utcDay(clock));
    release();
    await other;
    expect((await maintenance.pass())?.created).toContain('2030-09-01');
  });
});
