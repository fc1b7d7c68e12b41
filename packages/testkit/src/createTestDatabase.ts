import { randomBytes } from 'node:crypto';
import { databaseUrlFor, quoteIdent } from './databaseUrlFor.ts';
import { withAdmin } from './prepareTemplateDatabase.ts';
import { testDatabasePrefix } from './testDatabasePrefix.ts';
import { getTestSettings, type TestSettings } from './testSettings.ts';

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
      await withAdmin(settings.databaseUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`),
      );
    },
  };
}
