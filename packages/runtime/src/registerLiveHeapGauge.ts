import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapCodeStatistics, getHeapStatistics } from 'node:v8';
import { Gauge, type Registry } from 'prom-client';

/** How often, at most, a full collection also measures the compiled code (a walk of the heap's code). */
const CODE_READ_EVERY_MS = 60_000;

// V8's heap used right after its last full (mark-compact) collection, or null before the first;
// and that less V8's code, read at a full collection at most every CODE_READ_EVERY_MS.
let liveBytes: number | null = null;
let liveDataBytes: number | null = null;
let liveArrayBufferBytes: number | null = null;
let codeReadAt = Number.NEGATIVE_INFINITY;
let observer: PerformanceObserver | undefined;

/**
 * After a full collection, the Buffers' memory is read every BUFFERS_READ_EVERY_MS for
 * BUFFERS_WINDOW_MS and the least kept: V8 frees the backing stores of the Buffers it collected on
 * a thread of its own, after the collection, so a read at the collection can still count them (a
 * loaded machine's test caught 31 of 32 freed MiB counted). The least read is what was still held,
 * plus what was made within the window before sweeping ended.
 */
const BUFFERS_READ_EVERY_MS = 50;
const BUFFERS_WINDOW_MS = 1_000;
let buffersTimer: NodeJS.Timeout | undefined;

function readBuffersAfterCollection(): void {
  clearInterval(buffersTimer);
  let least = process.memoryUsage().arrayBuffers;
  liveArrayBufferBytes = least;
  let reads = 1;
  buffersTimer = setInterval(() => {
    least = Math.min(least, process.memoryUsage().arrayBuffers);
    liveArrayBufferBytes = least;
    if (++reads > BUFFERS_WINDOW_MS / BUFFERS_READ_EVERY_MS) clearInterval(buffersTimer);
  }, BUFFERS_READ_EVERY_MS).unref();
}

function observeMajorCollections(): void {
  if (observer) return;
  observer = new PerformanceObserver((list) => {
    const major = list
      .getEntries()
      .some(
        (e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    if (!major) return;
    liveBytes = getHeapStatistics().used_heap_size;
    // Node's own count, which a freed backing store leaves at once; V8's external_memory can lag a
    // whole collection behind.
    readBuffersAfterCollection();
    const now = performance.now();
    if (now - codeReadAt < CODE_READ_EVERY_MS) return;
    codeReadAt = now;
    const code = getHeapCodeStatistics();
    liveDataBytes = liveBytes - code.code_and_metadata_size - code.bytecode_and_metadata_size;
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * `nodejs_heap_live_bytes`: the heap in use just after the last full collection, i.e. what the
 * process retains. Heap used between collections saws up and down with garbage, and the heap's and
 * the process's size follow V8's sizing of its heap to the load, so neither tells a leak from a
 * process finding its size; this does, and its trend over hours is the leak figure. Read as the
 * collection's observer runs, just after it (allocations in between count, a few kB when idle).
 *
 * `nodejs_heap_live_data_bytes`: the same less V8's code (machine code and bytecode, each with its
 * metadata: relocation info, deoptimization data, source positions). A long-running process keeps
 * compiling functions it runs more, or runs differently, for hours (heap snapshots of the projector
 * showed its live heap's growth to be that), which is the JIT at work, not data held; this figure is
 * what the application holds. Measuring the code walks the heap's code (tens of ms for a service's
 * heap), so it is done at a full collection at most once a minute.
 *
 * `nodejs_array_buffers_live_bytes`: the memory of the Buffers and ArrayBuffers still referenced,
 * read after each full collection. A Buffer's memory outside the heap is freed only when the collector frees
 * the Buffer, so between collections external memory steps up and down with garbage as heap used
 * does (a service reading megabyte responses sits at one of a few levels until the next full
 * collection); in the second after one (see BUFFERS_WINDOW_MS), it is what is still held.
 *
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
  new Gauge({
    name: 'nodejs_heap_live_data_bytes',
    help: 'V8 heap used just after a full collection less compiled code and bytecode with their metadata: what the application holds (read at most once a minute)',
    registers: [registry],
    collect() {
      if (liveDataBytes !== null) this.set(liveDataBytes);
    },
  });
  new Gauge({
    name: 'nodejs_array_buffers_live_bytes',
    help: 'Memory of the Buffers and ArrayBuffers in the second after the last full collection (the least read): what is still referenced',
    registers: [registry],
    collect() {
      if (liveArrayBufferBytes !== null) this.set(liveArrayBufferBytes);
    },
  });
}
