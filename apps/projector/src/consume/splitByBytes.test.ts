import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { splitByBytes } from './splitByBytes.ts';

const messages = (...sizes: number[]) => sizes.map((n) => ({ value: Buffer.alloc(n) }) as KafkaMessage);
const shape = (sizes: number[], max: number) =>
  splitByBytes(messages(...sizes), max).map((c) => c.map((m) => m.value?.length ?? 0));

describe('splitByBytes', () => {
  it('keeps every message once, in order, in as few chunks as the limit allows, evenly', () => {
    expect(shape(Array(16).fill(3), 16)).toEqual(Array(4).fill([3, 3, 3, 3]));
    expect(shape(Array(6).fill(3), 16)).toEqual([
      [3, 3, 3],
      [3, 3, 3],
    ]);
    expect(shape([5, 5, 5], 16)).toEqual([[5, 5, 5]]);
    expect(shape([], 16)).toEqual([]);
  });

  it('gives a message larger than the limit a chunk of its own', () => {
    expect(shape([1, 20, 1], 16)).toEqual([[1], [20], [1]]);
    const chunks = shape([7, 2, 9, 1, 30, 4, 4, 4], 10);
    expect(chunks.flat()).toEqual([7, 2, 9, 1, 30, 4, 4, 4]);
    for (const c of chunks) expect(c.length === 1 || c.reduce((a, b) => a + b, 0) <= 10).toBe(true);
  });
});
