import { randomUUID } from 'node:crypto';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from '../createPool.ts';
import { addStream, deliveryOf, queueMismatches, seedStream, tableCounts } from '../testing/deliveryRows.ts';
import { withTransaction } from '../withTransaction.ts';
import {
  insertDeliveries,
  insertDelivery,
  recordAttempt,
  recordDeliveredMany,
  releaseHeldDeliveries,
  setDeliveriesAside,
  setDeliveryStatus,
} from './deliveries.ts';
import {
  countAccountDeliveries,
  countAllDeliveries,
  countQueuedDeliveries,
  countStreamDeliveries,
  deliveryStats,
  foldDeliveryCounts,
} from './deliveryCounts.ts';
import { listHistory, prepareReplay } from './deliveryHistory.ts';
import { createDeliveryDay, dropDeliveryDay } from './deliveryPartitions.ts';
import { expireKeptDeliveries } from './deliveryRetention.ts';
import { deleteStream } from './streams.ts';

// The counters behind /stats, the /history total, x-queue-size and the status command must say
// what a count(*) of the tables says (what retention removed still counts as delivered), after
// every kind of write, before and after their deltas are folded, however writers interleave; and
// the queue of unsettled deliveries (migration 084) must hold exactly the rows not delivered.
let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 8 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/**
 * The counters of a stream equal the table's count, with `removed` (delivered rows retention
 * removed, and their logs, transactions and failed attempts) still counted; checked, then folded
 * and checked again.
 */
async function expectCounted(
  streamId: string,
  removed = { delivered: 0, logs: 0, txs: 0, failedAttempts: 0 },
) {
  for (const fold of [false, true]) {
    if (fold) await foldDeliveryCounts(pool);
    const table = await tableCounts(pool, streamId);
    const expected = {
      ...table,
      delivered: table.delivered + removed.delivered,
      logs: table.logs + removed.logs,
      txs: table.txs + removed.txs,
      failedAttempts: table.failedAttempts + removed.failedAttempts,
    };
    expect((await countStreamDeliveries(pool, [streamId])).get(streamId)).toEqual(expected);
    expect((await countQueuedDeliveries(pool, [streamId])).get(streamId)).toBe(table.pending + table.held);
  }
  expect(await queueMismatches(pool)).toEqual([]);
}

describe('delivery counters', () => {
  it("equal the table's count after inserts, deliveries, failures, replays, releases, drops, expiry and a stream's deletion", async () => {
    const { accountId, streamId } = await seedStream(pool);
    await withTransaction(pool, (c) => createDeliveryDay(c, '2020-06-01', 5_000));
    const at = (n: number) => `2020-06-01T${String(n).padStart(2, '0')}:00:00Z`;
    await expectCounted(streamId);

    // The matcher's block events: new rows, held ones for a stream in error, and a replay of them.
    const events = [1, 2, 3, 4, 5, 6].map((n) => [
      deliveryOf(streamId, n, at(n)),
      deliveryOf(streamId, n, at(n), { confirmed: true, status: n === 6 ? 'held' : 'pending' }),
    ]);
    for (const e of events) await insertDeliveries(pool, e);
    for (const e of events)
      await insertDeliveries(
        pool,
        e.map((d) => ({ ...d, id: randomUUID() })),
      );
    await expectCounted(streamId);
    const ids = (
      await pool.query<{ id: string }>(
        'SELECT id FROM deliveries WHERE stream_id = $1 ORDER BY block_number, confirmed',
        [streamId],
      )
    ).rows.map((r) => r.id);
    const [a, b, c, d, e, f, g] = ids as string[];

    // The sender: a batch delivered, retries, one given up, one set aside, one held.
    await recordDeliveredMany(
      pool,
      [a, b, c].map((id) => ({ deliveryId: id as string, statusCode: 204, latencyMs: 3 })),
    );
    await recordAttempt(pool, {
      deliveryId: d as string,
      statusCode: 503,
      latencyMs: 3,
      error: 'HTTP 503',
      newStatus: 'pending',
    });
    await recordAttempt(pool, {
      deliveryId: d as string,
      statusCode: null,
      latencyMs: 3,
      error: 'timeout',
      newStatus: 'failed',
    });
    await recordAttempt(pool, {
      deliveryId: e as string,
      statusCode: 200,
      latencyMs: 3,
      error: null,
      newStatus: 'delivered',
    });
    await setDeliveriesAside(pool, [f as string], 'bookkeeping failed');
    await setDeliveryStatus(pool, g as string, 'held');
    await expectCounted(streamId);

    // Replays (a delivered one and a failed one) and a re-activation releasing what was held.
    await prepareReplay(pool, accountId, streamId, a as string, 'replay-a');
    await prepareReplay(pool, accountId, streamId, d as string, 'replay-d');
    await releaseHeldDeliveries(pool, streamId, '_resumed');
    await expectCounted(streamId);
    await recordDeliveredMany(
      pool,
      [a, d, g].map((id) => ({ deliveryId: id as string, statusCode: 200, latencyMs: 3 })),
    );
    await expectCounted(streamId);

    // Rows outside any day partition (blocks of a day not made), one of them expired later.
    const early = await insertDelivery(pool, deliveryOf(streamId, 40, '2019-01-02T00:00:00Z'));
    await recordDeliveredMany(pool, [{ deliveryId: early.id, statusCode: 200, latencyMs: 1 }]);
    await pool.query('UPDATE deliveries SET created_at = block_time WHERE id = $1', [early.id]);
    await expectCounted(streamId);

    // The day dropped: its delivered rows leave the table, not the totals.
    const before = await tableCounts(pool, streamId);
    const inDefault = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM deliveries_kept WHERE stream_id = $1 AND status = 'delivered'",
      [streamId],
    );
    const dropped = await withTransaction(pool, (client) =>
      dropDeliveryDay(client, '2020-06-01', {
        failedCutoff: new Date('2020-01-01T00:00:00Z'),
        moveLimit: 100,
        lockTimeoutMs: 5_000,
      }),
    );
    expect(dropped?.removed.delivered).toBe(before.delivered - Number(inDefault.rows[0]?.n));
    const afterDrop = await tableCounts(pool, streamId);
    const removed = {
      delivered: before.delivered - afterDrop.delivered,
      logs: before.logs - afterDrop.logs,
      txs: before.txs - afterDrop.txs,
      failedAttempts: before.failedAttempts - afterDrop.failedAttempts,
    };
    expect(removed.delivered).toBeGreaterThan(0);
    await expectCounted(streamId, removed);

    // Kept rows expiring.
    const expired = await expireKeptDeliveries(pool, {
      deliveredCutoff: new Date('2019-06-01T00:00:00Z'),
      failedCutoff: new Date('2019-06-01T00:00:00Z'),
      limit: 100,
    });
    expect(expired.delivered).toBe(1);
    removed.delivered += 1;
    removed.logs += 2;
    removed.txs += 1;
    await expectCounted(streamId, removed);
    await foldDeliveryCounts(pool);

    // /stats and the history total read the same counters.
    const totals = (await countStreamDeliveries(pool, [streamId])).get(streamId);
    expect(await deliveryStats(pool, accountId, streamId)).toEqual({
      totalWebhooksDelivered: totals?.delivered,
      totalWebhooksFailed: totals?.failedAttempts,
      totalLogsProcessed: totals?.logs,
      totalTxsProcessed: totals?.txs,
      totalTxsInternalProcessed: 0,
    });
    expect((await listHistory(pool, accountId, { limit: 1, streamId })).total).toBe(afterDrop.kept - 1);

    // A deleted stream takes its counters with it, deltas not yet folded included.
    await insertDelivery(pool, deliveryOf(streamId, 50, '2019-01-03T00:00:00Z'));
    await deleteStream(pool, accountId, streamId);
    expect((await countStreamDeliveries(pool, [streamId])).get(streamId)).toMatchObject({
      kept: 0,
      delivered: 0,
    });
    await foldDeliveryCounts(pool);
    const left = await pool.query('SELECT 1 FROM delivery_counts WHERE stream_id = $1', [streamId]);
    expect(left.rows).toEqual([]);
    expect(await queueMismatches(pool)).toEqual([]);
  });

  it('lose nothing to writers and folds running at once', async () => {
    const { accountId, streamId } = await seedStream(pool);
    const other = await addStream(pool, accountId);
    const rows = Array.from({ length: 60 }, (_, n) =>
      deliveryOf(n % 2 === 0 ? streamId : other, 100 + n, '2019-02-01T00:00:00Z'),
    );
    await Promise.all(rows.map((r) => insertDelivery(pool, r)));
    const batches = Array.from({ length: 6 }, (_, k) => rows.slice(k * 10, k * 10 + 10));
    await Promise.all([
      ...batches.map((batch) =>
        recordDeliveredMany(
          pool,
          batch.map((r) => ({ deliveryId: r.id, statusCode: 200, latencyMs: 1 })),
        ),
      ),
      ...rows.slice(0, 20).map((r) =>
        recordAttempt(pool, {
          deliveryId: r.id,
          statusCode: 500,
          latencyMs: 1,
          error: 'HTTP 500',
          newStatus: 'pending',
        }),
      ),
      foldDeliveryCounts(pool),
      foldDeliveryCounts(pool),
      foldDeliveryCounts(pool),
    ]);
    await expectCounted(streamId);
    await expectCounted(other);
    const account = await countAccountDeliveries(pool, accountId);
    const [one, two] = [await tableCounts(pool, streamId), await tableCounts(pool, other)];
    expect(account.kept).toBe(one.kept + two.kept);
    expect(account.delivered).toBe(one.delivered + two.delivered);
    const all = await countAllDeliveries(pool);
    const everything = await pool.query<{ pending: string; held: string; failed: string }>(
      `SELECT count(*) FILTER (WHERE status = 'pending') AS pending, count(*) FILTER (WHERE status = 'held') AS held,
              count(*) FILTER (WHERE status = 'failed') AS failed FROM deliveries`,
    );
    expect([all.pending, all.held, all.failed]).toEqual(
      [everything.rows[0]?.pending, everything.rows[0]?.held, everything.rows[0]?.failed].map(Number),
    );
  });
});
