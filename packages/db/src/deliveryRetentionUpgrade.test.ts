import { randomUUID } from 'node:crypto';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from './createPool.ts';
import { loadMigrations, migrate } from './migrate.ts';
import { insertDeliveries } from './streams/deliveries.ts';
import { countStreamDeliveries, foldDeliveryCounts } from './streams/deliveryCounts.ts';
import { deliveryOf, seedStream, tableCounts } from './testing/deliveryRows.ts';

// A running deployment upgrades: migrations 072 (partitioned deliveries) and 073 (counters) apply
// to a database whose deliveries a previous release wrote, keep every row and attempt, and leave
// each row where a replay of its block finds it.
let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
  await migrate(db.url, () => {}, 71);
  pool = createPool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const DAY = 86_400_000;

describe('migrations 072 and 073 on a database with deliveries', () => {
  it('keep every delivery and attempt, each in its block day, counted, and found again by a replay of its block', async () => {
    const { streamId } = await seedStream(pool);
    const now = Date.now();
    // Blocks of today, of ten days ago, of sixty days ago (before any partition made), and a row
    // whose body carries no block time (it takes its creation's).
    const rows = [
      { n: 1, at: new Date(now - 60_000), status: 'pending' },
      { n: 2, at: new Date(now - 10 * DAY), status: 'delivered' },
      { n: 3, at: new Date(now - 10 * DAY), status: 'failed' },
      { n: 4, at: new Date(now - 60 * DAY), status: 'held' },
      { n: 5, at: undefined, status: 'delivered' },
    ].map((r) => ({
      ...r,
      legacy: deliveryOf(streamId, r.n, (r.at ?? new Date(now - 2 * DAY)).toISOString()),
    }));
    for (const { legacy, at, status } of rows) {
      const body = at ? legacy.body : JSON.stringify({ confirmed: false, block: { number: '5' } });
      await pool.query(
        `INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, confirmed, body, status, logs_count,
                                 txs_count, job_id, created_at)
         VALUES ($1, $2, 31337, $3, decode($4, 'hex'), false, $5, $6, 2, 1, $7, $8)`,
        [
          legacy.id,
          streamId,
          legacy.blockNumber,
          legacy.blockHash.slice(2),
          body,
          status,
          legacy.jobId,
          at ?? new Date(now - 2 * DAY),
        ],
      );
      await pool.query(
        'INSERT INTO delivery_attempts (delivery_id, attempt, status_code, latency_ms, error) VALUES ($1, 1, $2, 7, $3)',
        [legacy.id, status === 'delivered' ? 200 : 500, status === 'delivered' ? null : 'HTTP 500'],
      );
    }

    expect(await migrate(db.url, () => {}, 73)).toEqual({ applied: [72, 73] });

    const stored = await pool.query<{ id: string; block_time: Date; part: string }>(
      'SELECT id, block_time, tableoid::regclass::text AS part FROM deliveries ORDER BY block_number',
    );
    const dayOf = (d: Date) => d.toISOString().slice(0, 10).replaceAll('-', '');
    expect(stored.rows.map((r) => [r.id, r.block_time.getTime(), r.part])).toEqual(
      rows.map(({ legacy, at, n }) => {
        const time = at ? Math.floor(at.getTime() / 1000) * 1000 : now - 2 * DAY;
        return [legacy.id, time, n === 4 ? 'deliveries_kept' : `deliveries_p${dayOf(new Date(time))}`];
      }),
    );
    const attempts = await pool.query<{ delivery_id: string; stream_id: string; same_day: boolean }>(
      `SELECT a.delivery_id, a.stream_id, a.block_time = d.block_time AS same_day
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id ORDER BY d.block_number`,
    );
    expect(attempts.rows).toEqual(
      rows.map(({ legacy }) => ({ delivery_id: legacy.id, stream_id: streamId, same_day: true })),
    );
    expect((await pool.query("SELECT 1 FROM pg_class WHERE relname LIKE '%unpartitioned%'")).rows).toEqual(
      [],
    );

    // Counted once, as the table holds them.
    const counted = (await countStreamDeliveries(pool, [streamId])).get(streamId);
    expect(counted).toEqual(await tableCounts(pool, streamId));
    await foldDeliveryCounts(pool);
    expect((await countStreamDeliveries(pool, [streamId])).get(streamId)).toEqual(counted);

    // The later migrations too (082 adds backfill_id to the rows kept): then this release's matcher
    // meets the rows a previous release wrote.
    await migrate(db.url, () => {});
    for (const { legacy } of rows.filter((r) => r.at)) {
      const again = await insertDeliveries(pool, [{ ...legacy, id: randomUUID() }]);
      expect([...again.values()]).toMatchObject([{ id: legacy.id, created: false }]);
    }

    // Applied again by hand (idempotent): nothing changes.
    const sql = (await loadMigrations()).filter((m) => m.version === 72 || m.version === 73);
    for (const m of sql) await pool.query(m.sql);
    expect((await countStreamDeliveries(pool, [streamId])).get(streamId)).toEqual(counted);
    expect((await pool.query('SELECT count(*)::int AS n FROM deliveries')).rows[0]).toEqual({
      n: rows.length,
    });
  });
});
