import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { Gauge, type Registry } from 'prom-client';

// V8's heap used right after its last full (mark-compact) collection, or null before the first.
let liveBytes: number | null = null;
let observer: PerformanceObserver | undefined;

function observeMajorCollections(): void {
  if (observer) return;
  observer = new PerformanceObserver((list) => {
    const major = list
      .getEntries()
      .some(
        (e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    if (major) liveBytes = getHeapStatistics().used_heap_size;
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * `nodejs_heap_live_bytes`: the heap in use just after the last full collection, i.e. what the
 * process retains. Heap used between collections saws up and down with garbage, and the heap's and
 * the process's size follow V8's sizing of its heap to the load, so neither tells a leak from a
 * process finding its size; this does, and its trend over hours is the leak figure. Read as the
 * collection's observer runs, just after it (allocations in between count, a few kB when idle).
 * One observer per process, however many registries.
 */
export function registerLiveHeapGauge(registry: Registry): void {
  observeMajorCollections();
  new Gauge({
    name: 'nodejs_heap_live_bytes',
    help: 'V8 heap used just after the last full (mark-compact) collection: what the process retains',
    registers: [registry],
    collect() {
      if (liveBytes !== null) this.set(liveBytes);
    },
  });
}
