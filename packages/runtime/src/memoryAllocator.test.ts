import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./memoryAllocator.ts', import.meta.url));
/** Where the services' jemalloc is, as infra/lib/jemalloc.sh (the one place that looks) finds it, if anywhere. */
const JEMALLOC =
  execFileSync('bash', [fileURLToPath(new URL('../../../infra/lib/jemalloc.sh', import.meta.url)), ''], {
    env: { PATH: process.env['PATH'] ?? '' },
    encoding: 'utf8',
  }).trim() || undefined;

/** What memoryAllocator() says in a fresh node process with this LD_PRELOAD. */
function allocatorOf(preload: string | undefined): string {
  const { LD_PRELOAD: _, ...env } = process.env;
  return execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { memoryAllocator } = await import(${JSON.stringify(MODULE)}); console.log(memoryAllocator());`,
    ],
    { env: preload ? { ...env, LD_PRELOAD: preload } : env, encoding: 'utf8' },
  ).trim();
}

describe('memoryAllocator', () => {
  it('says system without a preloaded allocator', () => {
    expect(allocatorOf(undefined)).toBe('system');
  });
  it.runIf(JEMALLOC)('says jemalloc when libjemalloc is preloaded', () => {
    expect(allocatorOf(JEMALLOC)).toBe('jemalloc');
  });
});
