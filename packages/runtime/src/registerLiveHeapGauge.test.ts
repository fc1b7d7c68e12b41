import { getHeapCodeStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMetrics } from './createMetrics.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function liveBytesAfterFullCollection(
  registry: ReturnType<typeof createMetrics>,
  name = 'nodejs_heap_live_bytes',
): Promise<number> {
  gc();
  // The observer's callback runs after the collection, on a later turn of the event loop; the
  // Buffers are read for a second after it.
  await new Promise((resolve) =>
    setTimeout(resolve, name === 'nodejs_array_buffers_live_bytes' ? 1_100 : 50),
  );
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values[0]?.value ?? Number.NaN;
}

/** 40 MB of arrays left unreachable. */
function makeGarbage(): number {
  return Array.from({ length: 40 }, () => new Array(125_000).fill(3.5)).length;
}

describe('nodejs_heap_live_bytes', () => {
  it('follows what the heap retains after a full collection, not its garbage', async () => {
    const registry = createMetrics('live-heap-test');
    const before = await liveBytesAfterFullCollection(registry);
    // 40 MB retained, and as much again left as garbage.
    let kept: number[][] | undefined = Array.from({ length: 40 }, () => new Array(125_000).fill(1.5));
    makeGarbage();
    const holding = await liveBytesAfterFullCollection(registry);
    expect(kept.length).toBe(40);
    expect(holding - before).toBeGreaterThan(35e6);
    expect(holding - before).toBeLessThan(60e6);
    // Garbage made since the collection is not counted: heap used grows, the gauge does not.
    expect(makeGarbage()).toBe(40);
    const scraped = (await registry.getSingleMetric('nodejs_heap_live_bytes')?.get())?.values[0]?.value;
    expect(scraped).toBe(holding);
    kept = undefined;
    const released = await liveBytesAfterFullCollection(registry);
    expect(holding - released).toBeGreaterThan(35e6);
  });

  it('is one gauge per registry, every registry reading the same collections', async () => {
    const a = createMetrics('a');
    const b = createMetrics('b');
    const [va, vb] = [await liveBytesAfterFullCollection(a), await liveBytesAfterFullCollection(b)];
    expect(va).toBeGreaterThan(0);
    expect(vb).toBeGreaterThan(0);
    expect((await a.metrics()).match(/^nodejs_heap_live_bytes/gm)).toHaveLength(1);
  });
});

describe('nodejs_array_buffers_live_bytes', () => {
  it('follows the Buffers still referenced after a full collection, not the ones left as garbage', async () => {
    const registry = createMetrics('live-array-buffers-test');
    const before = await liveBytesAfterFullCollection(registry, 'nodejs_array_buffers_live_bytes');
    expect(before).toBeGreaterThanOrEqual(0);
    // 32 MB of Buffers kept, and as much again dropped.
    let kept: Buffer[] | undefined = Array.from({ length: 32 }, () => Buffer.alloc(1 << 20, 1));
    expect(Array.from({ length: 32 }, () => Buffer.alloc(1 << 20, 2)).length).toBe(32);
    const holding = await liveBytesAfterFullCollection(registry, 'nodejs_array_buffers_live_bytes');
    expect(kept.length).toBe(32);
    expect(holding - before).toBeGreaterThan(30e6);
    expect(holding - before).toBeLessThan(50e6);
    // Buffers made after the collection's reads are not counted until the next one.
    let since: Buffer[] | undefined = Array.from({ length: 16 }, () => Buffer.alloc(1 << 20, 3));
    const scraped = (await registry.getSingleMetric('nodejs_array_buffers_live_bytes')?.get())?.values[0]
      ?.value;
    expect(scraped).toBe(holding);
    expect(since.length).toBe(16);
    kept = undefined;
    since = undefined;
    const released = await liveBytesAfterFullCollection(registry, 'nodejs_array_buffers_live_bytes');
    expect(holding - released).toBeGreaterThan(30e6);
  });
});

describe('nodejs_heap_live_data_bytes', () => {
  // One fake clock for the block, far past the real one (the module keeps when it last read the code).
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['performance'] });
    vi.advanceTimersByTime(24 * 3_600_000);
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  /** A full collection a minute after the last (the code is measured at most once a minute). */
  async function aMinuteLater(registry: ReturnType<typeof createMetrics>) {
    vi.advanceTimersByTime(60_001);
    const data = await liveBytesAfterFullCollection(registry, 'nodejs_heap_live_data_bytes');
    const live = (await registry.getSingleMetric('nodejs_heap_live_bytes')?.get())?.values[0]?.value;
    return { data, live: live ?? Number.NaN };
  }

  it("is the live heap less V8's compiled code and bytecode, and follows what the application holds", async () => {
    const registry = createMetrics('live-data-test');
    const before = await aMinuteLater(registry);
    const code = getHeapCodeStatistics();
    const codeBytes = code.code_and_metadata_size + code.bytecode_and_metadata_size;
    expect(before.data).toBeGreaterThan(0);
    // What it left out is the code of that collection; read again now, the code may have grown since.
    expect(before.live - before.data).toBeGreaterThan(0.8 * codeBytes);
    expect(before.live - before.data).toBeLessThanOrEqual(codeBytes);

    let kept: number[][] | undefined = Array.from({ length: 40 }, () => new Array(125_000).fill(1.5));
    const holding = await aMinuteLater(registry);
    expect(kept.length).toBe(40);
    expect(holding.data - before.data).toBeGreaterThan(35e6);
    expect(holding.data - before.data).toBeLessThan(60e6);
    kept = undefined;
    const released = await aMinuteLater(registry);
    expect(holding.data - released.data).toBeGreaterThan(35e6);
  });

  it('measures the code at most once a minute: a collection sooner leaves the figure as it was', async () => {
    const registry = createMetrics('live-data-rate-test');
    const first = await aMinuteLater(registry);
    const kept = Array.from({ length: 20 }, () => new Array(125_000).fill(2.5));
    vi.advanceTimersByTime(30_000);
    const soon = await liveBytesAfterFullCollection(registry, 'nodejs_heap_live_data_bytes');
    expect(soon).toBe(first.data);
    const later = await aMinuteLater(registry);
    expect(kept.length).toBe(20);
    expect(later.data - first.data).toBeGreaterThan(15e6);
  });
});
