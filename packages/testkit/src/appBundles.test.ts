import { describe, expect, it } from 'vitest';
import { APP_NAMES, launchApp } from './launchNode.ts';

// The image runs each app from its bundle (infra/build/bundle.mjs): npm packages stay external and
// are found from the app's folder at run time, so a package that only a workspace package declares
// would be missing there. Each bundle is built and started far enough to load every import and read
// its environment, which is made invalid so that it stops there without touching any server.
describe('app bundles', () => {
  it.each(APP_NAMES)('%s: builds, loads every import and stops at its environment check', async (app) => {
    // The way benches start a service as its image runs it: launchApp from the bundle, without tsx.
    const child = launchApp(app, {
      from: 'bundle',
      env: { PATH: process.env['PATH'], NODE_ENV: 'production', DATABASE_URL: 'not a url' },
      stdout: 'ignore',
      stderr: 'pipe',
    });
    expect(child.spawnargs).toContain('dist/main.mjs');
    expect(child.spawnargs).not.toContain('tsx');
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).not.toContain('ERR_MODULE_NOT_FOUND');
    expect(stderr).toContain('invalid environment');
    expect(stderr).toContain('DATABASE_URL');
    expect(status).not.toBe(0);
  });
});
