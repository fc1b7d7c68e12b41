import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./memoryAllocator.ts', import.meta.url));
const JEMALLOC = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib']
  .map((dir) => `${dir}/libjemalloc.so.2`)
  .find((path) => existsSync(path));

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
