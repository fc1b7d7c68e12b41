import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One run over every package and app. Each folder becomes a project named after its package, so
// `vitest run --project @tributary/gateway` selects one; projects do not inherit the root's test
// options, so the shared ones are given to each. The testkit's global setup (root level: it runs
// once per run) connects to, or starts, the real PostgreSQL, Redis, Kafka and anvil.
const shared = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' as const };
const root = dirname(fileURLToPath(import.meta.url));
const projects = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((dir) => join(root, group, dir))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({
      test: {
        ...shared,
        name: (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name,
        root: dir,
        include: ['src/**/*.test.ts'],
      },
    })),
);

export default defineConfig({
  test: {
    projects,
    globalSetup: [join(root, 'packages/testkit/src/globalSetup.ts')],
    ...shared,
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
  },
});
