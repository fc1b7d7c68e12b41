import { createPool } from '@tributary/db';
import { createTestDatabase, type TestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresActivityBetween } from '../soak/postgresActivityBetween.ts';
import { readPostgresActivity } from '../soak/readPostgresActivity.ts';

// The soak's read of PostgreSQL's activity, against the real server: the catalog views it reads
// exist in this version, and what the database does shows up in them.
describe('readPostgresActivity', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    pool = createPool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('sees a checkpoint, dead tuples, HOT updates, block reads and a running vacuum of its own database', async () => {
    const before = await readPostgresActivity(pool);
    expect(before.blockBytes).toBeGreaterThanOrEqual(1024);
    expect(before.running).toEqual([]);
    await pool.query('CREATE TABLE churn (id int PRIMARY KEY, body text)');
    await pool.query(`INSERT INTO churn SELECT i, repeat('x', 200) FROM generate_series(1, 5000) i`);
    await pool.query('DELETE FROM churn WHERE id % 2 = 0');
    await pool.query(`UPDATE churn SET body = 'y' WHERE id <= 10`);
    await pool.query('CHECKPOINT');
    // Statistics reach the shared counters when a backend is idle, at most once a second.
    const after = await vi.waitFor(
      async () => {
        const now = await readPostgresActivity(pool);
        expect(now.deadTuples).toBeGreaterThanOrEqual(2500);
        return now;
      },
      { timeout: 15_000, interval: 250 },
    );
    expect(after.autovacuums).toHaveProperty('churn', 0);
    const activity = postgresActivityBetween(before, after);
    expect(activity.checkpointsRequested).toBeGreaterThanOrEqual(1);
    expect(activity.checkpoints).toBeGreaterThanOrEqual(1);
    expect(activity.bufferHitPercent).toBeGreaterThan(0);
    expect(activity.deadTuples).toBeGreaterThanOrEqual(2500);
    expect(activity.autovacuumed).toEqual([]);
    // No index names body: those updates stayed HOT.
    expect(activity.updates).toEqual([{ table: 'churn', all: 5, hot: 5 }]);

    // A vacuum slowed to a page per 100 ms is seen running, with its phase, until it is cancelled.
    const vacuumer = await pool.connect();
    try {
      await vacuumer.query(`SET vacuum_cost_delay = '100ms'`);
      await vacuumer.query('SET vacuum_cost_limit = 1');
      const pid = (await vacuumer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const vacuum = vacuumer.query('VACUUM churn').catch((e: Error) => e);
      const running = await vi.waitFor(
        async () => {
          const now = await readPostgresActivity(pool);
          expect(now.running.map((r) => r.table)).toContain('churn');
          return now.running.find((r) => r.table === 'churn')!;
        },
        { timeout: 15_000, interval: 100 },
      );
      expect(running.phase).toMatch(/heap|index|initializing/);
      expect(postgresActivityBetween(after, await readPostgresActivity(pool)).vacuumsRunning.length).toBe(1);
      await pool.query('SELECT pg_cancel_backend($1)', [pid]);
      expect(await vacuum).toBeInstanceOf(Error);
    } finally {
      vacuumer.release();
    }
  });
});
