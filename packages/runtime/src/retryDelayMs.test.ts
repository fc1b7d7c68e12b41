import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './retryDelayMs.ts';

describe('retryDelayMs', () => {
  it('doubles from 200 ms up to the bound, between half and all of it', () => {
    expect([0, 1, 2, 3].map((n) => retryDelayMs(n, 30_000, () => 1))).toEqual([200, 400, 800, 1600]);
    expect(retryDelayMs(3, 30_000, () => 0)).toBe(800);
    expect(retryDelayMs(50, 30_000, () => 1)).toBe(30_000);
    expect(retryDelayMs(50, 500, () => 0)).toBe(250);
  });
});
