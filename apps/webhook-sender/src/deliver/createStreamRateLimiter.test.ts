import { randomUUID } from 'node:crypto';
import { getTestSettings, uniqueName } from '@tributary/testkit';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createStreamRateLimiter } from './createStreamRateLimiter.ts';

// Turns on the real Redis: what two senders asking at once get.
const redis = new Redis(getTestSettings().redisUrl, { maxRetriesPerRequest: 1 });
afterAll(async () => {
  await redis.quit();
});

describe('createStreamRateLimiter', () => {
  it('hands out turns 1000 / perSecond ms apart, across limiters sharing a Redis; a delivery keeps the turn it got', async () => {
    const prefix = uniqueName('rps');
    const [a, b] = [createStreamRateLimiter(redis, prefix), createStreamRateLimiter(redis, prefix)];
    const stream = randomUUID();
    const deliveries = Array.from({ length: 10 }, () => randomUUID());
    const redisNow = async () => {
      const [sec, micro] = await redis.time();
      return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
    };
    // Ten deliveries at once, half through each "sender": one now, the others at their turns.
    const before = await redisNow();
    const waits = await Promise.all(deliveries.map((d, i) => (i % 2 ? a : b).turn(stream, d, 5)));
    const after = await redisNow();
    const sorted = [...waits].sort((x, y) => x - y);
    expect(sorted[0]).toBe(0);
    expect(sorted.at(-1)).toBeLessThanOrEqual(1_800);
    // Ten turns taken, 200 ms apart from the first one's time: the next free one is 2 s past it.
    const nextTurn = Number(await redis.get(`${prefix}:rps:${stream}`));
    expect(nextTurn - 2_000).toBeGreaterThanOrEqual(before);
    expect(nextTurn - 2_000).toBeLessThanOrEqual(after);
    // The nine that wait each hold their turn.
    expect(await redis.keys(`${prefix}:rps-turn:*`)).toHaveLength(9);
    // Back at its turn, a delivery sends without taking another; asking again takes a new one.
    const waited = deliveries[waits.indexOf(sorted[1]!)]!;
    expect(await a.turn(stream, waited, 5)).toBe(0);
    expect(await redis.keys(`${prefix}:rps-turn:*`)).toHaveLength(8);
    await a.turn(stream, waited, 5);
    expect(Number(await redis.get(`${prefix}:rps:${stream}`))).toBe(nextTurn + 200);
    // Another stream has turns of its own.
    expect(await b.turn(randomUUID(), randomUUID(), 5)).toBe(0);
  });
});
