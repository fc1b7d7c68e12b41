import { describe, expect, it } from 'vitest';
import { createQueueSizes } from './createQueueSizes.ts';

describe('queue sizes', () => {
  it('counts the streams asked for together in one query, and reuses a fresh count', async () => {
    const queries: string[][] = [];
    const sizes = createQueueSizes(
      async (ids) => {
        queries.push(ids);
        return new Map(ids.map((id) => [id, id.length]));
      },
      60_000,
      (err) => {
        throw err;
      },
    );
    expect(await Promise.all([sizes('a'), sizes('bb'), sizes('a')])).toEqual([1, 2, 1]);
    expect(queries).toEqual([['a', 'bb']]);
    expect(await sizes('bb')).toBe(2);
    expect(queries).toHaveLength(1);
  });

  it('answers a stale count at once and refreshes it in the background', async () => {
    // An empty queue with no minimum age: always stale.
    let n = 0;
    let counted = 0;
    const sizes = createQueueSizes(
      async (ids) => {
        counted++;
        return new Map(ids.map((id) => [id, n]));
      },
      0,
      (err) => {
        throw err;
      },
    );
    expect(await sizes('s')).toBe(0);
    n = 7;
    expect(await sizes('s')).toBe(0); // the stale count, while the new one is read
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(await sizes('s')).toBe(7);
    expect(counted).toBeGreaterThanOrEqual(2);
  });
});
