import { randomBytes } from 'node:crypto';
import { createAccountWithKey, revokeApiKey } from '@tributary/db/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addr, followChains } from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { clientAddressKey } from './clientAddressKey.ts';

const TRANSFERS = `/api/v2.2/${addr('w')}/erc20/transfers`;
const BUDGET = 5;

let gw: TestGateway;
/** Connections taken from the gateway's pool: each auth lookup takes one. */
let queries = 0;

beforeAll(async () => {
  gw = await startTestGateway({
    // A window far longer than the test: the budget never starts afresh while it runs.
    authFailures: { limit: BUDGET, windowMs: 600_000 },
    invalidKeyCacheMs: 600_000,
    apiKeyCacheMs: 600_000,
    // The test connects from loopback and names the client in X-Forwarded-For, as a proxy does.
    trustProxy: 'loopback',
  });
  await followChains(gw.db.pool, [1]);
  gw.db.pool.on('acquire', () => {
    queries += 1;
  });
});

afterAll(async () => {
  await gw?.close();
});

const badKey = () => `tr_${randomBytes(24).toString('hex')}`;

async function from(address: string, key: string): Promise<Response> {
  return gw.request(TRANSFERS, { headers: { 'x-api-key': key, 'x-forwarded-for': address } });
}

describe('failed authentication per client address', () => {
  it('costs at most its budget of queries; then 429 with Retry-After; other addresses and valid keys go on', async () => {
    const before = queries;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await from('203.0.113.7', badKey())).status);
    expect(statuses).toEqual([...Array(BUDGET).fill(401), ...Array(20 - BUDGET).fill(429)]);
    expect(queries - before).toBe(BUDGET);

    const throttled = await from('203.0.113.7', badKey());
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(await throttled.json()).toEqual({
      message: 'Too many requests with an invalid API key from this address',
    });
    expect(queries - before).toBe(BUDGET);

    // Another address has its own budget; a valid key works from there, and then (known valid,
    // no query needed) from the throttled address too.
    expect((await from('198.51.100.9', badKey())).status).toBe(401);
    expect((await from('198.51.100.9', gw.apiKey.key)).status).toBe(200);
    expect((await from('203.0.113.7', gw.apiKey.key)).status).toBe(200);
  });

  it('remembers an unknown key: its repeats cost no query, and count against the address', async () => {
    const key = badKey();
    const before = queries;
    const statuses: number[] = [];
    for (let i = 0; i < BUDGET + 2; i++) statuses.push((await from('192.0.2.44', key)).status);
    expect(statuses).toEqual([...Array(BUDGET).fill(401), 429, 429]);
    expect(queries - before).toBe(1);
  });

  it('a revoked key is refused without a query on its repeats', async () => {
    const revoked = await createAccountWithKey(gw.db.pool, { accountName: 'revoked' });
    await revokeApiKey(gw.db.pool, revoked.key);
    const before = queries;
    const first = await from('192.0.2.45', revoked.key);
    expect(await first.json()).toEqual({ message: 'API key revoked' });
    const again = await from('192.0.2.45', revoked.key);
    expect(again.status).toBe(401);
    expect(await again.json()).toEqual({ message: 'API key revoked' });
    expect(queries - before).toBe(1);
  });

  it('valid keys never spend the budget: only failures do', async () => {
    const keys = [];
    for (let i = 0; i < BUDGET + 3; i++)
      keys.push((await createAccountWithKey(gw.db.pool, { accountName: `v${i}` })).key);
    const statuses = [];
    for (const key of keys) statuses.push((await from('192.0.2.46', key)).status);
    for (let i = 0; i < BUDGET + 1; i++) statuses.push((await from('192.0.2.46', badKey())).status);
    expect(statuses).toEqual([...Array(BUDGET + 3).fill(200), ...Array(BUDGET).fill(401), 429]);
  });
});

describe('without a trusted proxy', () => {
  it('X-Forwarded-For cannot dodge the budget: the client is the connection', async () => {
    const direct = await startTestGateway({ authFailures: { limit: 2, windowMs: 600_000 } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (
            await direct.request(TRANSFERS, {
              headers: { 'x-api-key': badKey(), 'x-forwarded-for': `203.0.113.${i}` },
            })
          ).status,
        );
      expect(statuses).toEqual([401, 401, 429, 429]);
    } finally {
      await direct.close();
    }
  });
});

describe('clientAddressKey', () => {
  it('is the IPv4 address, or the /64 of an IPv6 one', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('2001:db8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64');
    expect(clientAddressKey('2001:0db8:0000:0001:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:1::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientAddressKey(undefined)).toBe('unknown');
  });
});
