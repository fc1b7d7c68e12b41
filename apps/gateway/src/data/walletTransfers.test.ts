import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addr,
  blockHash,
  blockTime,
  insertBlocks,
  insertToken,
  insertTransfers,
  setLabel,
  txHash,
  followChains,
} from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

const CHAIN = 1;
const W = addr('wallet');
const X = addr('x');
const Y = addr('y');
const Z = addr('z');
const USDC = addr('usdc');
const WETH = addr('weth');
const ODD = addr('odd-token');
const MAX_UINT256 = 2n ** 256n - 1n;

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
  await followChains(gw.db.pool, [CHAIN, 0x89]);
  const pool = gw.db.pool;
  await insertBlocks(pool, CHAIN, [100, 101, 102, 103, 104, 105]);
  await insertToken(pool, {
    chainId: CHAIN,
    address: USDC,
    name: 'USD Coin',
    symbol: 'USDC',
    decimals: 6,
    totalSupply: 10n ** 15n,
    logo: 'https://example.test/usdc.png',
    verified: true,
  });
  await insertToken(pool, {
    chainId: CHAIN,
    address: WETH,
    name: 'Wrapped Ether',
    symbol: 'WETH',
    decimals: 18,
    totalSupply: 10n ** 24n,
    possibleSpam: true,
  });
  await setLabel(pool, CHAIN, X, 'Exchange X');
  await insertTransfers(pool, [
    { chainId: CHAIN, block: 100, logIndex: 0, token: USDC, from: X, to: W, value: 1_500_000n },
    { chainId: CHAIN, block: 101, logIndex: 3, token: WETH, from: W, to: Y, value: 10n ** 18n },
    { chainId: CHAIN, block: 101, logIndex: 7, token: USDC, from: W, to: W, value: 5n },
    { chainId: CHAIN, block: 103, logIndex: 1, token: ODD, from: Z, to: W, value: MAX_UINT256 },
    { chainId: CHAIN, block: 105, logIndex: 0, token: WETH, from: X, to: Y, value: 1n },
    // Same wallet on another chain: never mixed in.
    { chainId: 137, block: 104, logIndex: 0, token: USDC, from: X, to: W, value: 9n },
  ]);
});

afterAll(async () => {
  await gw?.close();
});

describe('GET /api/v2.2/:address/erc20/transfers', () => {
  it('returns the wallet transfers newest first with the exact record shape', async () => {
    const res = await gw.request(
      `/api/v2.2/${W.toUpperCase().replace('0X', '0x')}/erc20/transfers?chain=eth`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({
      page: '0',
      page_size: '100',
      total: '4',
      cursor: '',
      result: [
        {
          token_name: null,
          token_symbol: null,
          token_logo: null,
          token_decimals: null,
          transaction_hash: txHash(CHAIN, 103, 1),
          address: ODD,
          block_timestamp: blockTime(103).toISOString(),
          block_number: 103,
          block_hash: blockHash(CHAIN, 103),
          to_address: W,
          to_address_label: null,
          from_address: Z,
          from_address_label: null,
          value: Number(MAX_UINT256), // JSON.parse rounds; the exact digits are checked below
          transaction_index: 1,
          log_index: 1,
          possible_spam: false,
          verified_collection: false,
          verified_contract: false,
          value_decimal: null,
        },
        expect.objectContaining({
          block_number: 101,
          log_index: 7,
          from_address: W,
          to_address: W,
          value: 5,
          value_decimal: '0.000005',
        }),
        expect.objectContaining({
          block_number: 101,
          log_index: 3,
          value: 1e18,
          value_decimal: '1',
          possible_spam: true,
          token_decimals: '18',
        }),
        {
          token_name: 'USD Coin',
          token_symbol: 'USDC',
          token_logo: 'https://example.test/usdc.png',
          token_decimals: '6',
          transaction_hash: txHash(CHAIN, 100, 0),
          address: USDC,
          block_timestamp: '2024-01-01T00:20:00.000Z',
          block_number: 100,
          block_hash: blockHash(CHAIN, 100),
          to_address: W,
          to_address_label: null,
          from_address: X,
          from_address_label: 'Exchange X',
          value: 1500000,
          transaction_index: 0,
          log_index: 0,
          possible_spam: false,
          verified_collection: true,
          verified_contract: true,
          value_decimal: '1.5',
        },
      ],
    });
  });

  it('writes uint256 values with every digit', async () => {
    const text = await (await gw.request(`/api/v2.2/${W}/erc20/transfers?limit=1`)).text();
    expect(text).toContain(`"value":${MAX_UINT256.toString()},`);
    expect(text).toContain('"block_number":103,');
  });

  it('orders ASC case-insensitively and filters by chain hex id', async () => {
    const asc = await get(`/api/v2.2/${W}/erc20/transfers?order=asc`);
    expect(asc.body.result.map((r) => `${r.block_number}/${r.log_index}`)).toEqual([
      '100/0',
      '101/3',
      '101/7',
      '103/1',
    ]);
    const polygon = await get(`/api/v2.2/${W}/erc20/transfers?chain=0x89`);
    expect(polygon.body.total).toBe('1');
    expect(polygon.body.result.map((r) => r.value)).toEqual([9]);
  });

  it('accepts contract_addresses in bracket, repeated and indexed forms', async () => {
    const forms = [
      `contract_addresses[]=${USDC}&contract_addresses[]=${WETH.toUpperCase().replace('0X', '0x')}`,
      `contract_addresses=${USDC}&contract_addresses=${WETH}`,
      `contract_addresses[0]=${USDC}&contract_addresses[1]=${WETH}`,
      `contract_addresses%5B%5D=${USDC}&contract_addresses%5B%5D=${WETH}`,
    ];
    for (const form of forms) {
      const { status, body } = await get(`/api/v2.2/${W}/erc20/transfers?${form}`);
      expect(status).toBe(200);
      expect(body.total).toBe('3');
      expect(body.result.map((r) => r.address)).toEqual([USDC, WETH, USDC]);
    }
    const single = await get(`/api/v2.2/${W}/erc20/transfers?contract_addresses=${WETH}`);
    expect(single.body.result.map((r) => `${r.block_number}/${r.log_index}`)).toEqual(['101/3']);
  });

  it('applies block bounds and lets from_block/to_block win over the dates, side by side', async () => {
    const blocks = await get(`/api/v2.2/${W}/erc20/transfers?from_block=101&to_block=101`);
    expect(blocks.body.result.map((r) => r.log_index)).toEqual([7, 3]);
    expect(blocks.body.total).toBe('2');
    // from_block wins over from_date; to_date (block 100..101 -> 101) still applies on its side.
    const mixed = await get(
      `/api/v2.2/${W}/erc20/transfers?from_block=100&from_date=${blockTime(103).toISOString()}&to_date=${blockTime(101).toISOString()}`,
    );
    expect(mixed.body.result.map((r) => r.block_number)).toEqual([101, 101, 100]);
    // to_block wins over to_date.
    const toWins = await get(
      `/api/v2.2/${W}/erc20/transfers?to_block=100&to_date=${blockTime(105).toISOString()}`,
    );
    expect(toWins.body.result.map((r) => r.block_number)).toEqual([100]);
  });

  it('resolves ISO 8601, RFC 2822 and Unix-second dates through block timestamps', async () => {
    const t101 = blockTime(101);
    const iso = await get(
      `/api/v2.2/${W}/erc20/transfers?from_date=${encodeURIComponent(t101.toISOString())}`,
    );
    const rfc = await get(
      `/api/v2.2/${W}/erc20/transfers?from_date=${encodeURIComponent(t101.toUTCString())}`,
    );
    const unix = await get(`/api/v2.2/${W}/erc20/transfers?from_date=${t101.getTime() / 1000}`);
    for (const r of [iso, rfc, unix]) {
      expect(r.status).toBe(200);
      expect(r.body.result.map((x) => x.block_number)).toEqual([103, 101, 101]);
    }
    // Between blocks: from_date rounds up to the next block, to_date down to the previous one.
    const between = await get(
      `/api/v2.2/${W}/erc20/transfers?from_date=${(blockTime(100).getTime() + 1000) / 1000}&to_date=${(blockTime(103).getTime() - 1000) / 1000}`,
    );
    expect(between.body.result.map((x) => x.block_number)).toEqual([101, 101]);
    // After every stored block: nothing.
    const future = await get(`/api/v2.2/${W}/erc20/transfers?from_date=2030-01-01T00:00:00Z`);
    expect(future.body).toEqual({ page: '0', page_size: '100', total: '0', cursor: '', result: [] });
  });

  it('refuses bad parameters with 400 and a message', async () => {
    const cases: Array<[string, string]> = [
      ['/api/v2.2/0x1234/erc20/transfers', 'Invalid address provided'],
      [`/api/v2.2/${W}/erc20/transfers?contract_addresses[]=nope`, 'Invalid address provided'],
      [`/api/v2.2/${W}/erc20/transfers?chain=dogecoin`, 'Invalid chain provided: dogecoin'],
      [`/api/v2.2/${W}/erc20/transfers?chain=0x999999`, 'Invalid chain provided: 0x999999'],
      [`/api/v2.2/${W}/erc20/transfers?limit=0`, 'limit must be an integer between 1 and 100'],
      [`/api/v2.2/${W}/erc20/transfers?limit=101`, 'limit must be an integer between 1 and 100'],
      [`/api/v2.2/${W}/erc20/transfers?limit=ten`, 'limit must be an integer between 1 and 100'],
      [`/api/v2.2/${W}/erc20/transfers?order=sideways`, 'order must be ASC or DESC'],
      [
        `/api/v2.2/${W}/erc20/transfers?from_block=-1`,
        'from_block must be a non-negative integer block number',
      ],
      [
        `/api/v2.2/${W}/erc20/transfers?from_date=not-a-date`,
        'from_date must be a date (ISO 8601, RFC 2822 or Unix seconds)',
      ],
      // JavaScript reads this date; PostgreSQL cannot hold it (it was a 500).
      [
        `/api/v2.2/${W}/erc20/transfers?to_date=-271821-04-20T00:00:00Z`,
        'to_date must be a date from 0001-01-01 to 9999-12-31',
      ],
      [`/api/v2.2/${W}/erc20/transfers?limit=1&limit=2`, 'limit must be given once, as a single value'],
      [`/api/v2.2/${W}/erc20/transfers?cursor=abc`, 'Invalid cursor'],
    ];
    for (const [path, message] of cases) {
      const { status, body } = await get(path);
      expect({ path, status, body }).toEqual({ path, status: 400, body: { message } });
    }
  });

  it('refuses a tampered cursor and a cursor reused with other parameters', async () => {
    const first = await get(`/api/v2.2/${W}/erc20/transfers?limit=1`);
    const cursor = first.body.cursor as string;
    expect(cursor).not.toBe('');
    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, p: 7 })).toString('base64url');
    const tampered = await get(`/api/v2.2/${W}/erc20/transfers?limit=1&cursor=${forged}.${mac}`);
    expect(tampered).toEqual({ status: 400, body: { message: 'Invalid cursor' } });
    const otherParams = await get(`/api/v2.2/${W}/erc20/transfers?limit=2&cursor=${cursor}`);
    expect(otherParams).toEqual({
      status: 400,
      body: { message: 'cursor does not match the query parameters it was issued for' },
    });
    const otherWallet = await get(`/api/v2.2/${X}/erc20/transfers?limit=1&cursor=${cursor}`);
    expect(otherWallet.status).toBe(400);
    const same = await get(`/api/v2.2/${W}/erc20/transfers?limit=1&cursor=${cursor}`);
    expect(same.status).toBe(200);
    expect(same.body.page).toBe('1');
  });
});
