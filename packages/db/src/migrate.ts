import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pg from 'pg';

/**
 * The package's migrations folder, found through the package's own name so that it is the same
 * from this source and from an app's bundle (dist/main.mjs, where import.meta.url is the bundle's).
 */
const MIGRATIONS_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@tributary/db/package.json')),
  'migrations',
);

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(join(dir, file), 'utf8');
      return {
        version: Number(file.slice(0, 3)),
        name: file.slice(4, -4),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    }),
  );
}

/**
 * Applies the numbered SQL files not applied yet, each in its own transaction, under an
 * advisory lock so that concurrent starters do not race. Idempotent. A changed file that was
 * already applied is an error: migrations are append-only.
 */
export async function migrate(
  databaseUrl: string,
  log: (line: string) => void = () => {},
  /** Stop after this version (tests of an upgrade: a database as an older release left it). */
  through = Number.POSITIVE_INFINITY,
): Promise<{ applied: number[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // A connection PostgreSQL closes between two statements (a restart) is an 'error' event: without
  // a listener, an uncaught exception. The next statement fails with it and migrate() rejects.
  client.on('error', () => undefined);
  await client.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(7261626)');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Map<number, string>(
      (
        await client.query<{ version: number; checksum: string }>(
          'SELECT version, checksum FROM schema_migrations',
        )
      ).rows.map((r) => [r.version, r.checksum]),
    );
    for (const m of await loadMigrations()) {
      if (m.version > through) break;
      const prior = done.get(m.version);
      if (prior !== undefined) {
        if (prior !== m.checksum) {
          throw new Error(
            `migration ${m.version}_${m.name} changed after it was applied; add a new migration instead`,
          );
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.version}_${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.version);
      log(`applied migration ${m.version}_${m.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(7261626)').catch(() => {});
    await client.end();
  }
  return { applied };
}
