import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from '../createPool.ts';
import { deliveryOf, partitionsOf, queueMismatches, seedStream } from '../testing/deliveryRows.ts';
import { withTransaction } from '../withTransaction.ts';
import {
  type NewDelivery,
  deliveryKey,
  getDeliveriesToSend,
  insertDeliveries,
  insertDelivery,
  recordAttempt,
  recordDeliveredMany,
  setDeliveryStatus,
} from './deliveries.ts';
import { countStreamDeliveries, deliveryStats } from './deliveryCounts.ts';
import { listHistory, prepareReplay } from './deliveryHistory.ts';
import { listPendingJobs } from './deliveryJobs.ts';
import { createDeliveryDay, dropDeliveryDay, listDeliveryDays } from './deliveryPartitions.ts';
import { deliveriesRetainedSince, expireKeptDeliveries } from './deliveryRetention.ts';

// Deliveries live in one partition per UTC day of their block's time. These tests make days in
// the past (no clock is waited for), fill them as the matcher and the sender do, and drop them.
let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 4 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const makeDay = (day: string) => withTransaction(pool, (client) => createDeliveryDay(client, day, 5_000));
const dropDay = (day: string, failedCutoff: string, moveLimit = 1_000) =>
  withTransaction(pool, (client) =>
    dropDeliveryDay(client, day, { failedCutoff: new Date(failedCutoff), moveLimit, lockTimeoutMs: 5_000 }),
  );
/** Stores each delivery as its own block's (insertDeliveries answers one row per stream and kind); returns their ids. */
const insertEach = async (list: NewDelivery[]) => {
  const ids: string[] = [];
  for (const d of list) ids.push((await insertDelivery(pool, d)).id);
  return ids;
};
const exists = async (table: string) =>
  (await pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table])).rows[0]?.t !== null;
const attemptsOf = async (deliveryId: string) =>
  (
    await pool.query<{ status_code: number | null; part: string }>(
      `SELECT status_code, tableoid::regclass::text AS part FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [deliveryId],
    )
  ).rows;

describe('delivery partitions', () => {
  it("makes a day's partitions once, and leaves a day to the default partition while it holds rows of it", async () => {
    expect(await makeDay('2031-03-04')).toBe('created');
    expect(await makeDay('2031-03-04')).toBe('exists');
    expect(await exists('deliveries_p20310304')).toBe(true);
    expect(await exists('delivery_attempts_p20310304')).toBe(true);
    // A block timestamped on a day with no partition yet (ahead of the clock) goes to the default one...
    const { streamId } = await seedStream(pool);
    const ahead = await insertDelivery(pool, deliveryOf(streamId, 1, '2031-05-05T10:00:00Z'));
    expect((await partitionsOf(pool, streamId)).get(ahead.id)).toBe('deliveries_kept');
    // ...which keeps that day: a partition for it would have to take its rows.
    expect(await makeDay('2031-05-05')).toBe('blocked');
    const days = await listDeliveryDays(pool);
    expect(days).toContain('2031-03-04');
    expect(days).not.toContain('2031-05-05');
  });

  it('keeps one delivery per block and kind across a partition boundary, and after the day is dropped', async () => {
    const { streamId } = await seedStream(pool);
    await makeDay('2020-01-10');
    await makeDay('2020-01-11');
    const lastSecond = '2020-01-10T23:59:59Z';
    const nextDay = '2020-01-11T00:00:00Z';
    const blockEvents = () => [
      deliveryOf(streamId, 1, lastSecond),
      deliveryOf(streamId, 1, lastSecond, { confirmed: true }),
      deliveryOf(streamId, 2, nextDay),
      deliveryOf(streamId, 2, nextDay, { confirmed: true }),
    ];
    const first = [
      await insertDeliveries(pool, blockEvents().slice(0, 2)),
      await insertDeliveries(pool, blockEvents().slice(2)),
    ];
    const ids = first.flatMap((m) => [...m.values()].map((d) => d.id));
    expect(first.flatMap((m) => [...m.values()].map((d) => d.created))).toEqual([true, true, true, true]);
    const parts = await partitionsOf(pool, streamId);
    expect(ids.map((id) => parts.get(id))).toEqual([
      'deliveries_p20200110',
      'deliveries_p20200110',
      'deliveries_p20200111',
      'deliveries_p20200111',
    ]);

    // The same block events again (a replay, a re-publish by admin backfill), with new ids, on
    // whatever day they come: the rows already there, nothing new.
    const replayed = [
      await insertDeliveries(pool, blockEvents().slice(0, 2)),
      await insertDeliveries(pool, blockEvents().slice(2)),
    ];
    expect(replayed.flatMap((m) => [...m.values()].map((d) => [d.id, d.created]))).toEqual(
      ids.map((id) => [id, false]),
    );
    const single = await insertDelivery(pool, deliveryOf(streamId, 2, nextDay));
    expect(single).toMatchObject({ id: ids[2], created: false });
    expect((await partitionsOf(pool, streamId)).size).toBe(4);

    // Block 1's unconfirmed webhook failed; its day is dropped and the row kept. A replay of the
    // block still meets it: no second delivery under a new webhook-id.
    const failedId = ids[0] as string;
    await setDeliveryStatus(pool, failedId, 'failed');
    expect(await dropDay('2020-01-10', '2019-01-01T00:00:00Z')).toBeDefined();
    expect((await partitionsOf(pool, streamId)).get(failedId)).toBe('deliveries_kept');
    const afterDrop = await insertDeliveries(pool, [deliveryOf(streamId, 1, lastSecond)]);
    expect(afterDrop.get(deliveryKey(streamId, false))).toEqual({
      id: failedId,
      status: 'failed',
      created: false,
      jobId: 'job-1-false',
    });
    expect(await insertDelivery(pool, deliveryOf(streamId, 1, lastSecond))).toMatchObject({
      id: failedId,
      created: false,
    });
  });

  it('drops a day: delivered rows go with their attempts; pending, held and failed ones stay with theirs for the relay, replay and history', async () => {
    const { accountId, streamId } = await seedStream(pool);
    await makeDay('2020-02-03');
    const at = (hour: number) => `2020-02-03T${String(hour).padStart(2, '0')}:00:00Z`;
    const [delivered, pending, held, failed, failedLongAgo, failedLate] = await insertEach([
      deliveryOf(streamId, 10, at(1)),
      deliveryOf(streamId, 11, at(2)),
      deliveryOf(streamId, 12, at(3), { status: 'held' }),
      deliveryOf(streamId, 13, at(4)),
      deliveryOf(streamId, 14, at(5)),
      deliveryOf(streamId, 15, at(20)),
    ]);
    await recordDeliveredMany(pool, [{ deliveryId: delivered as string, statusCode: 200, latencyMs: 5 }]);
    for (const id of [failed, failedLongAgo, failedLate] as string[])
      await recordAttempt(pool, {
        deliveryId: id,
        statusCode: 500,
        latencyMs: 5,
        error: 'HTTP 500',
        newStatus: 'failed',
      });
    // Written when its block was new: its time is up on the failed setting.
    await pool.query('UPDATE deliveries SET created_at = block_time WHERE id = $1', [failedLongAgo]);

    const dropped = await dropDay('2020-02-03', at(12));
    expect(dropped).toEqual({
      day: '2020-02-03',
      removed: { delivered: 1, held: 0, failed: 1 },
      kept: { pending: 1, held: 1, failed: 2 },
    });
    expect(await exists('deliveries_p20200203')).toBe(false);
    // The queue of unsettled deliveries went with the partition: only the kept rows are in it.
    expect(await queueMismatches(pool)).toEqual([]);
    expect(await exists('delivery_attempts_p20200203')).toBe(false);
    expect(await listDeliveryDays(pool)).not.toContain('2020-02-03');
    const parts = await partitionsOf(pool, streamId);
    expect([...parts.keys()].sort()).toEqual([pending, held, failed, failedLate].sort());
    expect(new Set(parts.values())).toEqual(new Set(['deliveries_kept']));
    expect(await attemptsOf(delivered as string)).toEqual([]);
    expect(await attemptsOf(failedLongAgo as string)).toEqual([]);
    expect(await attemptsOf(failed as string)).toEqual([
      { status_code: 500, part: 'delivery_attempts_kept' },
    ]);

    // The relay still finds the pending one, under its job.
    const page = await listPendingJobs(pool, { afterId: undefined, limit: 1_000, graceMs: 0 });
    expect(page.filter((p) => p.deliveryId === pending)).toEqual([
      { deliveryId: pending, jobId: 'job-11-false', attempts: 0, backfill: false },
    ]);
    // A replay still finds the failed one, and the sender reads it.
    expect(await prepareReplay(pool, accountId, streamId, failed as string, 'replayed')).toMatchObject({
      id: failed,
      status: 'pending',
    });
    expect((await getDeliveriesToSend(pool, [failed as string])).get(failed as string)).toMatchObject({
      status: 'pending',
      jobId: 'replayed',
    });
    // The next attempt of a kept row is recorded beside its first.
    await recordDeliveredMany(pool, [{ deliveryId: failed as string, statusCode: 200, latencyMs: 5 }]);
    expect((await attemptsOf(failed as string)).map((a) => a.status_code)).toEqual([500, 200]);
    // History lists what is kept, and says how far back it reaches.
    const history = await listHistory(pool, accountId, { limit: 10, streamId });
    expect(history.total).toBe(4);
    expect(history.items.map((i) => i.id).sort()).toEqual([pending, held, failed, failedLate].sort());
    expect((await deliveriesRetainedSince(pool))?.toISOString()).toBe('2020-02-04T00:00:00.000Z');
    // What was delivered stays counted; what is there now is counted as it is.
    expect(await deliveryStats(pool, accountId, streamId)).toEqual({
      totalWebhooksDelivered: 2,
      totalWebhooksFailed: 3,
      totalLogsProcessed: 4,
      totalTxsProcessed: 2,
      totalTxsInternalProcessed: 0,
    });
    expect((await countStreamDeliveries(pool, [streamId])).get(streamId)).toMatchObject({
      kept: 4,
      pending: 1,
      held: 1,
      failed: 1,
    });
  });

  it('leaves a day with more rows to keep than the move limit, and drops it once its held and failed rows expired', async () => {
    const { streamId } = await seedStream(pool);
    await makeDay('2020-03-05');
    await insertDeliveries(
      pool,
      [20, 21, 22].map((n) => deliveryOf(streamId, n, '2020-03-05T08:00:00Z', { status: 'held' })),
    );
    expect(await dropDay('2020-03-05', '2020-01-01T00:00:00Z', 2)).toBeUndefined();
    expect(await exists('deliveries_p20200305')).toBe(true);
    expect(await dropDay('2020-03-05', '2099-01-01T00:00:00Z', 2)).toEqual({
      day: '2020-03-05',
      removed: { delivered: 0, held: 3, failed: 0 },
      kept: { pending: 0, held: 0, failed: 0 },
    });
    expect((await partitionsOf(pool, streamId)).size).toBe(0);
    expect(await queueMismatches(pool)).toEqual([]);
  });

  it("keeps a moved row's backfill and its number in an ordered stream", async () => {
    const { streamId } = await seedStream(pool);
    await makeDay('2020-04-06');
    const [backfilled, numbered] = await insertEach([
      { ...deliveryOf(streamId, 60, '2020-04-06T01:00:00Z'), backfillId: '7' },
      { ...deliveryOf(streamId, 61, '2020-04-06T02:00:00Z', { confirmed: true }), numbered: true },
    ]);
    await pool.query('UPDATE deliveries SET sequence = 1 WHERE id = $1', [numbered]);
    const columns = () =>
      pool.query<{ id: string; backfill_id: string; sequence: string | null; part: string }>(
        `SELECT id, backfill_id, sequence, tableoid::regclass::text AS part FROM deliveries
          WHERE stream_id = $1 ORDER BY block_number`,
        [streamId],
      );
    expect((await dropDay('2020-04-06', '2020-01-01T00:00:00Z'))?.kept.pending).toBe(2);
    expect((await columns()).rows).toEqual([
      { id: backfilled, backfill_id: '7', sequence: null, part: 'deliveries_kept' },
      { id: numbered, backfill_id: '0', sequence: '1', part: 'deliveries_kept' },
    ]);
    const page = await listPendingJobs(pool, { afterId: undefined, limit: 1_000, graceMs: 0 });
    expect(page.filter((p) => p.deliveryId === backfilled).map((p) => p.backfill)).toEqual([true]);
    expect(await queueMismatches(pool)).toEqual([]);
  });

  it('expires rows of the default partition on their own settings, never a pending one', async () => {
    const { streamId } = await seedStream(pool);
    // Blocks of 2019: no day partition, the default one takes them.
    const [oldDelivered, newDelivered, oldFailed, newFailed, oldPending] = await insertEach([
      deliveryOf(streamId, 30, '2019-04-01T00:00:00Z'),
      deliveryOf(streamId, 31, '2019-04-01T00:00:00Z'),
      deliveryOf(streamId, 32, '2019-04-01T00:00:00Z'),
      deliveryOf(streamId, 33, '2019-04-01T00:00:00Z'),
      deliveryOf(streamId, 34, '2019-04-01T00:00:00Z'),
    ]);
    await recordDeliveredMany(
      pool,
      [oldDelivered, newDelivered].map((id) => ({ deliveryId: id as string, statusCode: 200, latencyMs: 1 })),
    );
    for (const id of [oldFailed, newFailed] as string[])
      await recordAttempt(pool, {
        deliveryId: id,
        statusCode: null,
        latencyMs: 1,
        error: 'timeout',
        newStatus: 'failed',
      });
    // Those written when their block was new; the others were written now (a devnet's clock far
    // behind, a follower catching up): they count from now.
    await pool.query('UPDATE deliveries SET created_at = block_time WHERE id = ANY($1::uuid[])', [
      [oldDelivered, oldFailed, oldPending],
    ]);
    const cutoffs = {
      deliveredCutoff: new Date('2019-05-01T00:00:00Z'),
      failedCutoff: new Date('2019-04-15T00:00:00Z'),
    };
    expect(await expireKeptDeliveries(pool, { ...cutoffs, limit: 100 })).toEqual({
      delivered: 1,
      held: 0,
      failed: 1,
    });
    expect([...(await partitionsOf(pool, streamId)).keys()].sort()).toEqual(
      [newDelivered, newFailed, oldPending].sort(),
    );
    expect(await attemptsOf(oldDelivered as string)).toEqual([]);
    expect(await attemptsOf(oldFailed as string)).toEqual([]);
    expect(await queueMismatches(pool)).toEqual([]);
    expect(await expireKeptDeliveries(pool, { ...cutoffs, limit: 100 })).toEqual({
      delivered: 0,
      held: 0,
      failed: 0,
    });
    expect((await countStreamDeliveries(pool, [streamId])).get(streamId)).toMatchObject({
      kept: 3,
      pending: 1,
      failed: 1,
      delivered: 2,
      failedAttempts: 2,
    });
  });
});
