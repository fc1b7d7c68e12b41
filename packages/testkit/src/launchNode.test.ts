import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_RUN_VARIABLE, launchNode } from './launchNode.ts';
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
});
