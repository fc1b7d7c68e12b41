import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addr,
  insertToken,
  setAddressKind,
  setBalance,
  setLabel,
  followChains,
} from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

const CHAIN = 1;
const TOKEN = addr('token');
const BARE = addr('bare-token');
const [A, B, C, D, E] = ['a', 'b', 'c', 'd', 'e'].map(addr) as [string, string, string, string, string];

let gw: TestGateway;

async function get(path: string) {
  const res = await gw.request(path);
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { result: Array<Record<string, unknown>> },
  };
}

beforeAll(async () => {
  gw = await startTestGateway();
  await followChains(gw.db.pool, [CHAIN]);
  const pool = gw.db.pool;
  await insertToken(pool, {
    chainId: CHAIN,
    address: TOKEN,
    name: 'Token',
    symbol: 'TKN',
    decimals: 18,
    totalSupply: 1000n * 10n ** 18n,
  });
  await setBalance(pool, { chainId: CHAIN, token: TOKEN, owner: A, balance: 600n * 10n ** 18n });
  await setBalance(pool, {
    chainId: CHAIN,
    token: TOKEN,
    owner: B,
    balance: 250n * 10n ** 18n + 5n * 10n ** 17n,
  });
  await setBalance(pool, { chainId: CHAIN, token: TOKEN, owner: C, balance: 100n * 10n ** 18n });
  await setBalance(pool, { chainId: CHAIN, token: TOKEN, owner: D, balance: 100n * 10n ** 18n });
  await setBalance(pool, { chainId: CHAIN, token: TOKEN, owner: E, balance: 0n });
  await setLabel(pool, CHAIN, A, 'Treasury');
  await setAddressKind(pool, CHAIN, A, true);
  await setAddressKind(pool, CHAIN, B, false);
  await setBalance(pool, { chainId: CHAIN, token: BARE, owner: A, balance: 7n });
});

afterAll(async () => {
  await gw?.close();
});

describe('GET /api/v2.2/erc20/:token_address/owners', () => {
  it('lists holders by balance with the exact record shape (chain defaults to eth)', async () => {
    const [first, second] = [C, D].sort();
    const { status, body } = await get(`/api/v2.2/erc20/${TOKEN}/owners`);
    expect(status).toBe(200);
    expect(body).toEqual({
      page: '0',
      page_size: '100',
      cursor: '',
      total_supply: '1000000000000000000000',
      result: [
        {
          owner_address: A,
          owner_address_label: 'Treasury',
          balance: '600000000000000000000',
          balance_formatted: '600',
          usd_value: null,
          is_contract: true,
          percentage_relative_to_total_supply: 60,
        },
        {
          owner_address: B,
          owner_address_label: null,
          balance: '250500000000000000000',
          balance_formatted: '250.5',
          usd_value: null,
          is_contract: false,
          percentage_relative_to_total_supply: 25.05,
        },
        expect.objectContaining({
          owner_address: first,
          balance_formatted: '100',
          percentage_relative_to_total_supply: 10,
        }),
        expect.objectContaining({ owner_address: second, balance_formatted: '100', is_contract: false }),
      ],
    });
  });

  it('pages through equal balances without loss, in both orders', async () => {
    const walk = async (order: string) => {
      const seen: string[] = [];
      let cursor = '';
      let page = 0;
      do {
        const { body } = await get(
          `/api/v2.2/erc20/${TOKEN}/owners?limit=1&order=${order}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(body.page).toBe(String(page));
        seen.push(...body.result.map((r) => r.owner_address as string));
        cursor = body.cursor as string;
        page++;
      } while (cursor !== '');
      return seen;
    };
    const desc = await walk('DESC');
    expect(desc).toEqual([A, B, ...[C, D].sort()]);
    expect(await walk('asc')).toEqual([...desc].reverse());
  });

  it('reports unknown decimals and supply as null, and an unknown token as an empty page', async () => {
    const bare = await get(`/api/v2.2/erc20/${BARE}/owners?chain=eth`);
    expect(bare.body).toEqual({
      page: '0',
      page_size: '100',
      cursor: '',
      result: [
        {
          owner_address: A,
          owner_address_label: 'Treasury',
          balance: '7',
          balance_formatted: null,
          usd_value: null,
          is_contract: true,
          percentage_relative_to_total_supply: null,
        },
      ],
    });
    const none = await get(`/api/v2.2/erc20/${addr('nobody')}/owners`);
    expect(none.body).toEqual({ page: '0', page_size: '100', cursor: '', result: [] });
  });

  it('writes amounts with every digit and percentages as JavaScript numbers, on the wire', async () => {
    const pool = gw.db.pool;
    const max = 2n ** 256n - 1n;
    const token = async (label: string, symbol: string, decimals: number, totalSupply: bigint) => {
      const address = addr(label);
      await insertToken(pool, { chainId: CHAIN, address, name: symbol, symbol, decimals, totalSupply });
      return address;
    };
    const WIDE = await token('wide-token', 'W', 18, max);
    await setBalance(pool, { chainId: CHAIN, token: WIDE, owner: A, balance: max - 10n ** 60n });
    await setBalance(pool, { chainId: CHAIN, token: WIDE, owner: B, balance: 10n ** 60n - 1n });
    const SIX = await token('six-token', 'S', 6, 10n ** 13n);
    await setBalance(pool, { chainId: CHAIN, token: SIX, owner: A, balance: 10n ** 13n - 1_500_006n });
    await setBalance(pool, { chainId: CHAIN, token: SIX, owner: B, balance: 1_500_000n });
    await setBalance(pool, { chainId: CHAIN, token: SIX, owner: C, balance: 5n });
    await setBalance(pool, { chainId: CHAIN, token: SIX, owner: D, balance: 1n });
    const text = async (token: string) => {
      const res = await gw.request(`/api/v2.2/erc20/${token}/owners`);
      return (await res.text()).replace(/"owner_address_label":(null|"[^"]*"),/g, '');
    };
    const wide = await text(WIDE);
    // uint256 digits, and the balance with 18 decimals applied, exactly (not rounded to a scale).
    expect(wide).toContain(
      '"balance":"115792089237316194423570985008687907853269984665640564039457584007913129639935",' +
        '"balance_formatted":"115792089237316194423570985008687907853269984665640564039457.584007913129639935"',
    );
    expect(wide).toContain(
      '"balance":"999999999999999999999999999999999999999999999999999999999999",' +
        '"balance_formatted":"999999999999999999999999999999999999999999.999999999999999999"',
    );
    expect(wide).toContain(
      '"total_supply":"115792089237316195423570985008687907853269984665640564039457584007913129639935"',
    );
    const six = await text(SIX);
    const shares = [
      ...six.matchAll(
        /"balance_formatted":("[^"]*"),"usd_value":null,"is_contract":(?:true|false),"percentage_relative_to_total_supply":([^}]*)\}/g,
      ),
    ].map((m) => [m[1], m[2]]);
    // The percentage of the supply (10^13 - 1,500,006 of 10^13 is 99.99998499994 %), written as
    // JavaScript writes numbers (exponent form for the smallest).
    expect(shares).toEqual([
      ['"9999998.499994"', '99.99998499994'],
      ['"1.5"', '0.000015'],
      ['"0.000005"', '5e-11'],
      ['"0.000001"', '1e-11'],
    ]);
  });

  it('refuses bad parameters', async () => {
    expect(await get('/api/v2.2/erc20/0xZZ/owners')).toEqual({
      status: 400,
      body: { message: 'Invalid address provided' },
    });
    expect(await get(`/api/v2.2/erc20/${TOKEN}/owners?limit=-5`)).toEqual({
      status: 400,
      body: { message: 'limit must be an integer between 1 and 100' },
    });
    const p0 = await get(`/api/v2.2/erc20/${TOKEN}/owners?limit=1`);
    expect(await get(`/api/v2.2/erc20/${TOKEN}/owners?limit=1&order=ASC&cursor=${p0.body.cursor}`)).toEqual({
      status: 400,
      body: { message: 'cursor does not match the query parameters it was issued for' },
    });
  });
});
