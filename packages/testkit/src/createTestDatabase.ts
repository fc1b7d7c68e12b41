import { randomBytes } from 'node:crypto';
import { databaseUrlFor, quoteIdent } from './databaseUrlFor.ts';
import { withAdmin } from './prepareTemplateDatabase.ts';
import { testDatabasePrefix } from './testDatabasePrefix.ts';
import { getTestSettings, type TestSettings } from './testSettings.ts';

/** How long a drop waits for the database's connections to close by themselves. */
const DRAIN_MS = 2_000;

export interface TestDatabase {
  name: string;
  /** DATABASE_URL of the new database. */
  url: string;
  /** Drops it now (the run's teardown drops any left over). */
  drop: () => Promise<void>;
}

/**
 * A fresh database for one test: a copy of the run's migrated template (milliseconds), or an empty
 * database with `{ migrated: false }` or when no migrations exist yet.
 */
export async function createTestDatabase(
  options: { migrated?: boolean; settings?: TestSettings } = {},
): Promise<TestDatabase> {
  const settings = options.settings ?? getTestSettings();
  const name = `${testDatabasePrefix(settings.runId)}${randomBytes(6).toString('hex')}`;
  const template = options.migrated === false ? null : settings.templateDatabase;
  await withAdmin(settings.databaseUrl, (client) =>
    client.query(
      template
        ? `CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}`
        : `CREATE DATABASE ${quoteIdent(name)}`,
    ),
  );
  return {
    name,
    url: databaseUrlFor(settings.databaseUrl, name),
    drop: async () => {
      await withAdmin(settings.databaseUrl, async (client) => {
        // A pool's end() resolves before its connections have closed: a forced drop at once would
        // terminate them mid-close, and the client of each hears 57P01 after its pool stopped
        // listening (an uncaught error). Wait for them to go (briefly), then drop what remains.
        const deadline = Date.now() + DRAIN_MS;
        for (;;) {
          const { rows } = await client.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [name],
          );
          if ((rows[0]?.n ?? 0) === 0 || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      });
    },
  };
}
