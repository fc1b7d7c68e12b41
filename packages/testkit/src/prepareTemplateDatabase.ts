import pg from 'pg';
import { databaseUrlFor, quoteIdent } from './databaseUrlFor.ts';
import type { Migrate } from './loadMigrate.ts';

/**
 * Creates `name` and applies the migrations to it once per run, so each test database is a cheap
 * file-level copy (CREATE DATABASE ... TEMPLATE) instead of a fresh migration.
 */
export async function prepareTemplateDatabase(
  serverUrl: string,
  name: string,
  migrate: Migrate | null,
): Promise<void> {
  await withAdmin(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
  });
  if (migrate) await migrate(databaseUrlFor(serverUrl, name));
  await withAdmin(serverUrl, async (client) => {
    // A copy fails while anyone is connected to the template: close what migrate may have left open.
    await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    await client.query(`ALTER DATABASE ${quoteIdent(name)} WITH ALLOW_CONNECTIONS false`);
  });
}

/** Drops every database whose name starts with `prefix` (this run's test databases and its template). */
export async function dropDatabasesWithPrefix(serverUrl: string, prefix: string): Promise<string[]> {
  return withAdmin(serverUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname <> 'postgres'",
      [prefix],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`);
    }
    return rows.map((row) => row.datname);
  });
}

export async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
