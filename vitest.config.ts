import { defineConfig } from 'vitest/config';

// One run over every package and app. The testkit's global setup connects to (or starts) the
// real PostgreSQL, Redis, Kafka and anvil once per run.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    globalSetup: ['./packages/testkit/src/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
  },
});
