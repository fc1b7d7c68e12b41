import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pool, createPool } from './createPool.ts';

// PostgreSQL going away under a checked-out client (a SIGKILL, a restart, an administrator's
// pg_terminate_backend) must surface as that client's next query failing, never as an `error`
// event nobody listens to, which kills the process.
const URL = process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';
let pool: Pool;
let admin: Pool;

beforeAll(() => {
  pool = createPool({ connectionString: URL, max: 2 });
  admin = createPool({ connectionString: URL, max: 1 });
});
afterAll(async () => {
  await pool.end();
  await admin.end();
});

describe('createPool', () => {
  it('a checked-out client whose connection is terminated between queries: its next query fails, the process lives, the pool goes on', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const client = await pool.connect();
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // The backend is gone and its goodbye (57P01) has reached the idle, checked-out client.
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
        if (rows.length === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 200));
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release();
      expect(uncaught).toEqual([]);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
