import { type Pool, createPool } from '@tributary/db';
import { createTestDatabase as copyTemplate, getTestSettings } from '@tributary/testkit';

/** The servers of this test run (from the testkit's global setup). */
export const TEST_DATABASE_URL = process.env['DATABASE_URL'] ?? getTestSettings().databaseUrl;
export const TEST_REDIS_URL = process.env['REDIS_URL'] ?? getTestSettings().redisUrl;

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/** A fresh migrated database for one test file (a copy of the run's template) with a pool on it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const db = await copyTemplate();
  const pool = createPool({ connectionString: db.url, max: 5, application: 'gateway-test' });
  // DROP ... WITH (FORCE) below may still find a client whose socket is closing.
  pool.on('error', () => {});
  return {
    url: db.url,
    pool,
    async drop() {
      await pool.end();
      await db.drop();
    },
  };
}
