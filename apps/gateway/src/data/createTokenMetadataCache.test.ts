import { hexToBytes } from '@tributary/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createTestDatabase } from '../testing/testDatabase.ts';
import { createTokenMetadataCache } from './createTokenMetadataCache.ts';

const A = `0x${'a1'.repeat(20)}`;
const B = `0x${'b2'.repeat(20)}`;
const UNKNOWN = `0x${'c3'.repeat(20)}`;

describe('createTokenMetadataCache', () => {
  let db: TestDatabase;
  let statements = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const [address, name] of [
      [A, 'Alpha'],
      [B, 'Beta'],
    ] as const) {
      await db.pool.query(
        `INSERT INTO tokens (chain_id, address, name, symbol, decimals, read_at_block, possible_spam, verified)
         VALUES (1, $1, $2, 'SYM', 6, 0, false, true)`,
        [hexToBytes(address), name],
      );
    }
    db.pool.on('acquire', () => {
      statements++;
    });
  });
  afterAll(() => db.drop());

  it('reads the uncached tokens of a page in one query and answers repeats from memory', async () => {
    let clock = 1_000;
    const cache = createTokenMetadataCache({ pool: db.pool, ttlMs: 60_000, now: () => clock });
    statements = 0;
    const first = await cache.lookup(1, [A, B, A, UNKNOWN]);
    expect(statements).toBe(1);
    expect(first.get(A)).toMatchObject({
      address: A,
      name: 'Alpha',
      symbol: 'SYM',
      decimals: 6,
      verified: true,
    });
    expect(first.get(B)?.name).toBe('Beta');
    expect(first.get(UNKNOWN)).toBeNull();

    await db.pool.query(`UPDATE tokens SET name = 'Alpha v2', possible_spam = true WHERE address = $1`, [
      hexToBytes(A),
    ]);
    statements = 0;
    const cached = await cache.lookup(1, [A, UNKNOWN]);
    expect(statements).toBe(0);
    expect(cached.get(A)?.name).toBe('Alpha');

    clock += 60_001;
    const refreshed = await cache.lookup(1, [A]);
    expect(statements).toBe(1);
    expect(refreshed.get(A)).toMatchObject({ name: 'Alpha v2', possibleSpam: true });
    // Another chain is another key.
    expect((await cache.lookup(137, [B])).get(B)).toBeNull();
  });

  it('reads every time with a zero TTL', async () => {
    const cache = createTokenMetadataCache({ pool: db.pool, ttlMs: 0 });
    statements = 0;
    await cache.lookup(1, [A]);
    await cache.lookup(1, [A]);
    expect(statements).toBe(2);
  });
});
