import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './createMetrics.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function liveBytesAfterFullCollection(registry: ReturnType<typeof createMetrics>): Promise<number> {
  gc();
  // The observer's callback runs after the collection, on a later turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const metric = await registry.getSingleMetric('nodejs_heap_live_bytes')?.get();
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
