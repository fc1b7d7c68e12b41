import { randomUUID } from 'node:crypto';
import { type Pool, createPool } from '@tributary/db';
import { insertStream, setStreamStatus } from '@tributary/db/streams';
import { createLogger } from '@tributary/runtime';
import { createTestDatabase, type TestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTerminationSweep } from './startTerminationSweep.ts';

let db: TestDatabase;
let pool: Pool;
let accountId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  accountId = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    accountId,
    'a',
    's',
  ]);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function stream(status: string, errorSecondsAgo: number | null): Promise<string> {
  const id = randomUUID();
  await insertStream(pool, {
    id,
    accountId,
    chainIds: [31337],
    config: { webhookUrl: 'http://127.0.0.1:9/h', description: 'd', tag: 't', chainIds: ['0x7a69'] },
  });
  await pool.query(
    `UPDATE streams SET status = $2, error_since = CASE WHEN $3::int IS NULL THEN NULL ELSE now() - $3::int * interval '1 second' END WHERE id = $1`,
    [id, status, errorSecondsAgo],
  );
  return id;
}

const stateOf = async (id: string) =>
  (
    await pool.query<{ status: string; status_message: string }>(
      'SELECT status, status_message FROM streams WHERE id = $1',
      [id],
    )
  ).rows[0];

async function until(probe: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 20_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('termination sweep', () => {
  it('terminates streams in error for longer than TERMINATE_AFTER_MS, for good', async () => {
    const stale = await stream('error', 3_600);
    const fresh = await stream('error', 0);
    const active = await stream('active', null);
    const announced: string[] = [];
    const stop = startTerminationSweep({
      pool,
      logger: createLogger('sweep', 'silent'),
      afterMs: 2_000,
      everyMs: 100,
      onTerminated: (id) => {
        announced.push(id);
      },
    });
    try {
      await until(async () => announced.includes(stale), 'the stale stream to be terminated');
      expect(await stateOf(stale)).toEqual({
        status: 'terminated',
        status_message: 'Stream was terminated after staying in error for too long',
      });
      // Two seconds in error are not over yet for the other one.
      const freshNow = await stateOf(fresh);
      if (!announced.includes(fresh)) expect(freshNow?.status).toBe('error');
      await until(async () => announced.includes(fresh), 'the second stream to reach TERMINATE_AFTER_MS');
      expect((await stateOf(fresh))?.status).toBe('terminated');
      expect(await stateOf(active)).toEqual({ status: 'active', status_message: 'Stream is active' });
      expect(announced.filter((id) => id === stale)).toHaveLength(1);
    } finally {
      stop();
    }
    // Final: neither re-activation nor pausing changes a terminated stream.
    expect(await setStreamStatus(pool, accountId, stale, 'active', 'Stream is active')).toBeUndefined();
    expect(await setStreamStatus(pool, accountId, stale, 'paused', 'Stream is paused')).toBeUndefined();
    expect((await stateOf(stale))?.status).toBe('terminated');
  });
});
