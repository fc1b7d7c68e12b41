import { readFileSync } from 'node:fs';

/**
 * The malloc this process runs on: `jemalloc` when its library is mapped (LD_PRELOAD, as
 * infra/lib/jemalloc.sh sets for `npm start` and the image), else `system` (glibc's, or unknown
 * off Linux). Logged at start: glibc's keeps freed native memory and a long run's RSS creeps up.
 */
export function memoryAllocator(): 'jemalloc' | 'system' {
  try {
    return readFileSync('/proc/self/maps', 'utf8').includes('libjemalloc') ? 'jemalloc' : 'system';
  } catch {
    return 'system';
  }
}
