import { type Pool, createPool, hexToBytes } from '@tributary/db';
import { type TestDatabase, createTestDatabase } from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenCache } from './createTokenCache.ts';

const TOKEN = `0x${'a1'.repeat(20)}`;
const addresses = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => `0x${(from + i).toString(16).padStart(40, '0')}`);

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 2 });
  await pool.query(
    `INSERT INTO tokens (chain_id, address, name, symbol, decimals, read_at_block, possible_spam)
     VALUES (31337, $1, 'Alpha', 'ALP', 6, 0, true)`,
    [hexToBytes(TOKEN)],
  );
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('createTokenCache', () => {
  it("answers from what prefetch read, and lets go of addresses no block used for a TTL: a chain's new contracts do not pile up", async () => {
    let clock = 0;
    const cache = createTokenCache({ pool, now: () => clock });
    await cache.prefetch(31337, [TOKEN, ...addresses(1_000, 1)]);
    expect(cache.get(31337, TOKEN)).toEqual({
      name: 'Alpha',
      symbol: 'ALP',
      decimals: 6,
      possibleSpam: true,
    });
    expect(cache.get(31337, addresses(1, 1)[0]!)).toBeUndefined();
    expect(cache.size()).toBe(1_001);

    clock = 30_000;
    await cache.prefetch(31337, [TOKEN, ...addresses(10, 5_000)]);
    expect(cache.size()).toBe(1_011);

    // A minute on, the block's addresses are read again where stale; those no block used since are dropped.
    clock = 70_000;
    await cache.prefetch(31337, [TOKEN, ...addresses(5, 9_000)]);
    expect(cache.size()).toBe(1 + 10 + 5);
    expect(cache.get(31337, TOKEN)?.name).toBe('Alpha');

    // Over hours of new contracts, it holds about two minutes' worth.
    for (let minute = 2; minute < 120; minute++) {
      clock = minute * 60_000 + 10_000;
      await cache.prefetch(31337, addresses(100, 100_000 + minute * 100));
    }
    expect(cache.size()).toBeLessThanOrEqual(200);
  });
});
