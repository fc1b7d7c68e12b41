import { randomBytes } from 'node:crypto';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from '../createPool.ts';
import { deliveryOf, queueMismatches, seedStream } from '../testing/deliveryRows.ts';
import { withTransaction } from '../withTransaction.ts';
import { insertDeliveries, recordAttempt, recordDeliveredMany } from './deliveries.ts';
import { PENDING_JOBS_SQL, listPendingJobs } from './deliveryJobs.ts';
import { createDeliveryDay } from './deliveryPartitions.ts';

// The unsettled deliveries live in a queue of their own (migration 084), so that what a day's
// partition holds can grow all day without the relay's walk or a delivery's outcome growing
// with it: the walk reads the queue, and an outcome is a HOT update that adds no index entry.
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

const DAY = '2021-07-08';
const PARTITION = 'deliveries_p20210708';

/** A webhook body of a block with `logs` logs: about 250 bytes each, as the hosted format writes them. */
const bodyWith = (logs: number) =>
  JSON.stringify({
    confirmed: false,
    logs: Array.from({ length: logs }, (_, i) => ({
      logIndex: String(i),
      transactionHash: `0x${randomBytes(32).toString('hex')}`,
      address: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      data: `0x${'0'.repeat(40)}${randomBytes(12).toString('hex')}`,
      topic0: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    })),
  });

/** `n` pending deliveries of the day to one stream, stored as the matcher stores a block's. */
async function fillDay(n: number, firstBlock: number, logs = 0): Promise<string[]> {
  const { streamId } = await seedStream(pool);
  const ids: string[] = [];
  for (let k = 0; k < n; k += 100) {
    const list = Array.from({ length: Math.min(100, n - k) }, (_, j) => {
      const d = deliveryOf(streamId, firstBlock + k + j, `${DAY}T10:00:00Z`);
      return logs > 0 ? { ...d, body: bodyWith(logs) } : d;
    });
    await insertDeliveries(pool, list);
    ids.push(...list.map((d) => d.id));
  }
  return ids;
}

/** The partition's updates and HOT updates so far, once the writer's statistics are flushed. */
async function updatesOf(expected: number): Promise<{ updates: number; hot: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await pool.query<{ upd: string; hot: string }>(
      'SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = $1',
      [PARTITION],
    );
    const updates = Number(rows[0]?.upd ?? 0);
    if (updates >= expected) return { updates, hot: Number(rows[0]?.hot ?? 0) };
    if (Date.now() > deadline)
      throw new Error(`the statistics show ${updates} of ${expected} updates after 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface PlanNode {
  'Relation Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The buffers each relation's scans touched in a plan, their subplans' own left out. */
function scansOf(node: PlanNode, out = new Map<string, number>()): Map<string, number> {
  const buffers = (n: PlanNode) => (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0);
  const name = node['Relation Name'];
  if (name) {
    const own = buffers(node) - (node.Plans ?? []).reduce((sum, child) => sum + buffers(child), 0);
    out.set(name, (out.get(name) ?? 0) + own);
  }
  for (const child of node.Plans ?? []) scansOf(child, out);
  return out;
}

describe('the delivery queue', () => {
  beforeAll(async () => {
    await withTransaction(pool, (client) => createDeliveryDay(client, DAY, 5_000));
  });

  it("keeps a delivery's outcome on its page: the day's updates are HOT, and no index names what they change", async () => {
    const { rows: indexed } = await pool.query<{ index: string }>(
      `SELECT i.indexrelid::regclass::text AS index FROM pg_index i
        WHERE i.indrelid = $1::regclass
          AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                        AND a.attname IN ('status', 'attempts', 'last_error', 'delivered_at', 'job_id', 'job_at'))
               OR pg_get_expr(i.indpred, i.indrelid) ~ '(status|attempts|last_error|delivered_at|job_id|job_at)')`,
      [PARTITION],
    );
    expect(indexed).toEqual([]);

    // Bodies of 60 logs (15 KB, as a soak's blocks make them): out of the row, into TOAST.
    const ids = await fillDay(400, 1, 60);
    const { rows: sizes } = await pool.query<{ main: string; toast: string }>(
      `SELECT pg_relation_size(c.oid) AS main, pg_relation_size(c.reltoastrelid) AS toast
         FROM pg_class c WHERE c.relname = $1`,
      [PARTITION],
    );
    expect(Number(sizes[0]!.main) / ids.length).toBeLessThan(1_000);
    expect(Number(sizes[0]!.toast) / ids.length).toBeGreaterThan(1_000);
    // The sender's writes, one batch a transaction as it makes them: a retry of 40, the deliveries
    // of the others, then the retried ones' deliveries.
    const client = await pool.connect();
    const delivered = async (list: string[]) => {
      for (let k = 0; k < list.length; k += 20)
        await recordDeliveredMany(
          client,
          list.slice(k, k + 20).map((id) => ({ deliveryId: id, statusCode: 200, latencyMs: 1 })),
        );
      await client.query('SELECT pg_stat_force_next_flush()');
    };
    try {
      for (const id of ids.slice(0, 40))
        await recordAttempt(client, {
          deliveryId: id,
          statusCode: 503,
          latencyMs: 1,
          error: 'HTTP 503',
          newStatus: 'pending',
        });
      await delivered(ids.slice(40));
      // Each row's first outcome: a page keeps half its room (fillfactor 50) for a new version of
      // each of its rows, all of them updated by one statement of the sender; the body stays in
      // TOAST. That room does not depend on the old versions being pruned, which a snapshot older
      // than them anywhere in the cluster (a long statement in another database) defers: with one
      // open, the retried rows' second outcomes below find no room and are not HOT.
      const first = await updatesOf(400);
      expect(first.updates).toBe(400);
      expect(first.hot / first.updates).toBeGreaterThan(0.9);
      const { rows: after } = await pool.query<{ main: string }>(
        'SELECT pg_relation_size($1::regclass) AS main',
        [PARTITION],
      );
      expect(Number(after[0]!.main)).toBe(Number(sizes[0]!.main));
      await delivered(ids.slice(0, 40));
      expect((await updatesOf(440)).updates).toBe(440);
    } finally {
      client.release();
    }
    expect(await queueMismatches(pool)).toEqual([]);
  });

  it("walks the pending deliveries without reading the day's delivered ones", async () => {
    const delivered = await fillDay(3_000, 10_000);
    for (let k = 0; k < delivered.length; k += 500)
      await recordDeliveredMany(
        pool,
        delivered.slice(k, k + 500).map((id) => ({ deliveryId: id, statusCode: 200, latencyMs: 1 })),
      );
    const [pending] = await fillDay(1, 20_000);
    const page = await listPendingJobs(pool, { afterId: undefined, limit: 1_000, graceMs: 0 });
    expect(page.map((p) => p.deliveryId)).toEqual([pending]);
    // The relay's statement as it runs, with the buffers each scan touched: on the day's side, the
    // pages of that one delivery, whatever the 3,000 delivered rows of the day left behind (no
    // vacuum ran); on the queue's, once autovacuum took what the deliveries left (2,000 changes
    // wake it there, migration 084), a page or two.
    await pool.query('VACUUM delivery_queue');
    const { rows } = await pool.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${PENDING_JOBS_SQL}`,
      ['00000000-0000-0000-0000-000000000000', 1_000, 0],
    );
    const scans = scansOf(rows[0]!['QUERY PLAN'][0]!.Plan);
    expect(scans.get('deliveries_p20210708')).toBeLessThan(8);
    expect(scans.get('delivery_queue')).toBeLessThan(8);
  });
});
