import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Pool, createPool } from '@tributary/db';
import { findAccountByApiKey } from '@tributary/db/accounts';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The keys command run as an operator runs it, in its own process, on a fresh database; a key is
// checked with the lookup the gateway authenticates with (the gateway's own tests hold that a key
// so found is let in, and a revoked one refused).
const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../cli/keys.ts', import.meta.url));

let db: TestDatabase;
let pool: Pool;

async function keys(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, DATABASE_URL: db.url },
    });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('keys CLI', () => {
  it('creates a key that works, lists it by prefix and revokes it', async () => {
    const created = await keys('create', '--account', 'cli-user', '--label', 'laptop');
    expect(created.code).toBe(0);
    const key = /api key \(shown once, store it now\): (trb_[A-Za-z0-9_-]{32})\n/.exec(created.out)?.[1];
    expect(created.out).toMatch(/^created account cli-user \([0-9a-f-]{36}\)\n/);
    expect(key).toBeDefined();
    expect(await findAccountByApiKey(pool, key!)).toMatchObject({ accountName: 'cli-user', revoked: false });

    const listed = await keys('list');
    const prefix = key!.slice(0, 12);
    expect(listed.out).toContain(`${prefix}…\tcli-user\tlaptop\t`);
    expect(listed.out).not.toContain(key!);

    expect(await keys('revoke', 'trb_nothing-like-it')).toEqual({
      code: 1,
      out: 'no active key matches trb_nothing-like-it\n',
    });
    expect(await keys('revoke', prefix)).toEqual({ code: 0, out: `revoked ${prefix}…\n` });
    expect(await findAccountByApiKey(pool, key!)).toMatchObject({ accountName: 'cli-user', revoked: true });
    expect((await keys('list')).out).toMatch(new RegExp(`${prefix}…\\tcli-user\\tlaptop\\t\\S+\\trevoked `));
  });
});
