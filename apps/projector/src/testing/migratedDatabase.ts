import { randomBytes } from 'node:crypto';
import { type Pool, createPool, migrate } from '@tributary/db';
import { createLogger, createMetrics } from '@tributary/runtime';
import { type BlockProjector, createBlockProjector } from '../project/createBlockProjector.ts';

const BASE_URL = process.env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';

async function admin(sql: string): Promise<{ n?: number }[]> {
  const pool = createPool({ connectionString: BASE_URL, max: 1 });
  try {
    return (await pool.query(sql)).rows;
  } finally {
    await pool.end();
  }
}

/**
 * A new, migrated database on the test server with a pool of `poolSize` and a silent projector
 * on it; `drop()` closes the pool and drops the database.
 */
export async function migratedDatabase(
  poolSize: number,
): Promise<{ pool: Pool; projector: BlockProjector; drop: () => Promise<void> }> {
  const name = `projector_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  await migrate(url.toString(), () => {});
  const pool = createPool({ connectionString: url.toString(), max: poolSize });
  const projector = createBlockProjector({
    pool,
    logger: createLogger('projector-test', 'silent'),
    metrics: createMetrics('projector-test'),
  });
  const drop = async () => {
    await pool.end();
    // pool.end() resolves before its connections have closed: wait for them, so that FORCE only
    // ever terminates connections a test left open.
    for (let i = 0; i < 50; i++) {
      const open = await admin(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = '${name}'`);
      if (open[0]?.n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  return { pool, projector, drop };
}
