import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_RUN_VARIABLE, jemallocPreload, launchNode } from './launchNode.ts';
import { getTestSettings } from './testSettings.ts';

describe('launchNode', () => {
  it("gives every child the test run's id, whatever environment its caller chose", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launch-node-'));
    try {
      writeFileSync(
        join(dir, 'say.mjs'),
        `console.log(JSON.stringify({ run: process.env.${TEST_RUN_VARIABLE} ?? null, own: process.env.OWN ?? null }));`,
      );
      // Only its own variable and PATH: nothing of this process's environment but the run's id.
      // From this package, where tsx resolves, as every caller launches.
      const child = launchNode(fileURLToPath(new URL('..', import.meta.url)), join(dir, 'say.mjs'), {
        env: { PATH: process.env['PATH'] ?? '', OWN: 'kept' },
        stdout: 'pipe',
        stderr: 'inherit',
      });
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      const runId = getTestSettings().runId;
      expect(runId).toMatch(/^[0-9a-f]{10}$/);
      expect(JSON.parse(out)).toEqual({ run: runId, own: 'kept' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Runs a child that says whether jemalloc is mapped into it. */
  async function jemallocMapped(env: NodeJS.ProcessEnv): Promise<boolean> {
    const dir = mkdtempSync(join(tmpdir(), 'launch-node-'));
    try {
      writeFileSync(
        join(dir, 'maps.mjs'),
        `import { readFileSync } from 'node:fs';
         console.log(readFileSync('/proc/self/maps', 'utf8').includes('libjemalloc'));`,
      );
      const child = launchNode(fileURLToPath(new URL('..', import.meta.url)), join(dir, 'maps.mjs'), {
        env,
        stdout: 'pipe',
        stderr: 'inherit',
      });
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      await new Promise((resolve) => child.once('exit', resolve));
      return JSON.parse(out) as boolean;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('runs the child on jemalloc where the library is, on glibc malloc with TRIBUTARY_MALLOC=glibc', async () => {
    const env = { PATH: process.env['PATH'] ?? '' };
    // Debian's redis-server, which the local servers come from, depends on libjemalloc2.
    const available = jemallocPreload(env) !== '';
    expect(await jemallocMapped(env)).toBe(available);
    expect(await jemallocMapped({ ...env, TRIBUTARY_MALLOC: 'glibc' })).toBe(false);
    // What the caller preloads stays, after jemalloc.
    expect(jemallocPreload({ ...env, LD_PRELOAD: '/opt/own.so' })).toBe(
      available ? `${jemallocPreload(env)}:/opt/own.so` : '/opt/own.so',
    );
  });
});
