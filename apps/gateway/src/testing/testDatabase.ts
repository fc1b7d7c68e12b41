import { randomBytes } from 'node:crypto';
import { type Pool, createPool, migrate } from '@tributary/db';
import pg from 'pg';

/** The servers the tests run against (the dev servers unless the environment names others). */
export const TEST_DATABASE_URL =
  process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';
export const TEST_REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:56379';

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/** A fresh database for one test file, migrated with the real migrations. */
export async function createTestDatabase(prefix = 'gw'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const pool = createPool({ connectionString: url.toString(), max: 5, application: 'gateway-test' });
  // DROP ... WITH (FORCE) below may still find a client whose socket is closing.
  pool.on('error', () => {});
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
