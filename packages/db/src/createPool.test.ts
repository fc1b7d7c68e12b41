import { classifyFailure } from '@tributary/runtime';
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

/** Resolves once PostgreSQL has no backend `pid` any more (it ended the session). */
async function sessionGone(pid: number): Promise<void> {
  for (;;) {
    const { rows } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (rows.length === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('createPool session limits', () => {
  it('a statement that runs past the statement timeout is cancelled (57014), a failure a later try can clear', async () => {
    const limited = createPool({ connectionString: URL, max: 1, timeouts: { statementTimeoutMs: 200 } });
    try {
      const failed = await limited.query('SELECT pg_sleep(30)').then(
        () => undefined,
        (err: unknown) => err,
      );
      expect((failed as { code?: string } | undefined)?.code).toBe('57014');
      expect(classifyFailure(failed).kind).toBe('transient');
      expect(classifyFailure(failed).why).toMatch(
        /^PostgreSQL 57014 \(query_canceled\): canceling statement due to statement timeout/,
      );
      // The connection goes on serving.
      expect((await limited.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      await limited.end();
    }
  });

  it(
    'a transaction left idle past its limit: PostgreSQL ends the session, the next statement fails as transient',
    {
      timeout: 20_000,
    },
    async () => {
      const limited = createPool({
        connectionString: URL,
        max: 1,
        timeouts: { idleInTransactionTimeoutMs: 200 },
      });
      try {
        const client = await limited.connect();
        await client.query('BEGIN');
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await sessionGone(pid);
        const failed = await client.query('SELECT 1').then(
          () => undefined,
          (err: unknown) => err,
        );
        client.release(failed as Error);
        expect(failed).toBeInstanceOf(Error);
        expect(classifyFailure(failed).kind).toBe('transient');
        expect((await limited.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      } finally {
        await limited.end();
      }
    },
  );

  it('without settings, a minute for a statement and for a wait inside a transaction', async () => {
    const { rows } = await pool.query<{ statement: string; idle: string }>(
      "SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle",
    );
    expect(rows[0]).toEqual({ statement: '1min', idle: '1min' });
  });
});
