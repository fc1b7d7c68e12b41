import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './repoRoot.ts';

// The image runs each app from its bundle (infra/build/bundle.mjs): npm packages stay external and
// are found from the app's folder at run time, so a package that only a workspace package declares
// would be missing there. Each bundle is built and started far enough to load every import and read
// its environment, which is made invalid so that it stops there without touching any server.
const APPS = ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'];

describe('app bundles', () => {
  it.each(APPS)('%s: builds, loads every import and stops at its environment check', (app) => {
    const cwd = join(REPO_ROOT, 'apps', app);
    execFileSync(process.execPath, [join(REPO_ROOT, 'infra/build/bundle.mjs')], { cwd, stdio: 'pipe' });
    const run = spawnSync(process.execPath, ['dist/main.mjs'], {
      cwd,
      env: { PATH: process.env['PATH'], NODE_ENV: 'production', DATABASE_URL: 'not a url' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
    expect(run.stderr).toContain('invalid environment');
    expect(run.stderr).toContain('DATABASE_URL');
    expect(run.status).not.toBe(0);
  });
});
