import { createAccountWithKey } from '@tributary/db/accounts';
import { type RedisServer, startRedisServer } from '@tributary/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addr, followChains } from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

const TRANSFERS = `/api/v2.2/${addr('w')}/erc20/transfers`;

// A Redis of this test's own, killed mid-test: the run's shared Redis is never stopped.
let redisServer: RedisServer;
let redis: Redis;
let gw: TestGateway;

beforeAll(async () => {
  redisServer = await startRedisServer();
  redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  // A window far longer than the test: the counts never start afresh while it runs.
  gw = await startTestGateway({ redis, rateLimit: { limit: 3, windowMs: 600_000 } });
  await followChains(gw.db.pool, [1]);
});

afterAll(async () => {
  await gw?.close();
  redis?.disconnect();
  await redisServer?.kill();
});

describe('rate limit without Redis', () => {
  it('keeps limiting each key when Redis goes away, counting on from what the process saw', async () => {
    expect((await gw.request(TRANSFERS)).status).toBe(200);
    expect((await gw.request(TRANSFERS)).status).toBe(200);
    // Shared through Redis while it answers.
    expect(await redis.keys('test:gw:*')).toHaveLength(1);

    await redisServer.kill();
    const third = await gw.request(TRANSFERS);
    expect(third.status).toBe(200);
    expect(third.headers.get('x-rate-limit-remaining')).toBe('0');
    const fourth = await gw.request(TRANSFERS);
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await fourth.json()).toEqual({ message: 'Too many requests: rate limit exceeded' });

    // Still per key: another key has its own budget.
    const other = await createAccountWithKey(gw.db.pool, { accountName: 'other' });
    const answers = [];
    for (let i = 0; i < 4; i++)
      answers.push((await gw.request(TRANSFERS, { headers: { 'x-api-key': other.key } })).status);
    expect(answers).toEqual([200, 200, 200, 429]);
  });
});
