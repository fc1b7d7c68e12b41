import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { loadMigrate } from './loadMigrate.ts';
import { dropDatabasesWithPrefix, prepareTemplateDatabase } from './prepareTemplateDatabase.ts';
import { resolveTestServices } from './resolveTestServices.ts';
import { testDatabasePrefix } from './testDatabasePrefix.ts';
import type { TestSettings } from './testSettings.ts';

/**
 * vitest globalSetup (`@tributary/testkit/global-setup`): once per run, finds or starts the real servers,
 * prepares the migrated template database, and hands the settings to tests through `provide`
 * (read them with getTestSettings()) and to child processes through process.env.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const startedAt = Date.now();
  const { services, stop } = await resolveTestServices(process.env);
  const runId = randomBytes(5).toString('hex');
  const prefix = testDatabasePrefix(runId);
  const templateDatabase = `${prefix}template`;
  try {
    const migrate = await loadMigrate();
    await prepareTemplateDatabase(services.databaseUrl, templateDatabase, migrate);
    if (!migrate) console.warn('[testkit] @tributary/db migrate() not found: test databases start empty');
  } catch (error) {
    await stop();
    throw new Error(`[testkit] preparing the template database failed: ${String(error)}`, { cause: error });
  }

  const settings: TestSettings = { ...services, runId, templateDatabase };
  project.provide('tributary', settings);
  Object.assign(process.env, {
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redisUrl,
    KAFKA_BROKERS: settings.kafkaBrokers.join(','),
    RPC_URL: settings.rpcUrl,
    CHAIN_ID: String(settings.chainId),
    TRIBUTARY_TEST_RUN_ID: runId,
    TRIBUTARY_TEST_TEMPLATE_DB: templateDatabase,
  });
  const sources = Object.entries(settings.sources)
    .map(([name, source]) => `${name}=${source}`)
    .join(' ');
  console.log(`[testkit] servers ready in ${Date.now() - startedAt} ms (${sources}), run ${runId}`);

  return async () => {
    try {
      await dropDatabasesWithPrefix(settings.databaseUrl, prefix);
    } finally {
      await stop();
    }
  };
}
