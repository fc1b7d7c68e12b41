import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addr,
  insertBlocks,
  insertLogs,
  insertTransfers,
  TRANSFER_TOPIC,
  followChains,
} from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

const CHAIN = 1;
const W = addr('pager');
const T = addr('pager-token');
const CONTRACT = addr('pager-contract');

let gw: TestGateway;
let nextBlock = 1;

/** Appends a block with two transfers touching the wallet (one in, one out) and two logs. */
async function appendBlock(): Promise<number> {
  const n = nextBlock++;
  await insertBlocks(gw.db.pool, CHAIN, [n]);
  await insertTransfers(gw.db.pool, [
    { chainId: CHAIN, block: n, logIndex: 0, token: T, from: addr(`s${n}`), to: W, value: BigInt(n) * 10n },
    {
      chainId: CHAIN,
      block: n,
      logIndex: 1,
      token: T,
      from: W,
      to: addr(`r${n}`),
      value: BigInt(n) * 10n + 1n,
    },
  ]);
  await insertLogs(gw.db.pool, [
    { chainId: CHAIN, block: n, logIndex: 0, address: CONTRACT, topics: [TRANSFER_TOPIC], data: '0x' },
    { chainId: CHAIN, block: n, logIndex: 1, address: CONTRACT, topics: [TRANSFER_TOPIC], data: '0x' },
  ]);
  return n;
}

async function get(path: string) {
  const res = await gw.request(path);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    page: string;
    total?: string;
    cursor: string;
    result: Array<Record<string, unknown>>;
  };
}

/** Walks every page, appending a new block before each next page. */
async function walk(path: string) {
  const seen: string[] = [];
  const pages: string[] = [];
  const totals = new Set<string | undefined>();
  let cursor = '';
  do {
    const body = await get(`${path}${cursor ? `&cursor=${cursor}` : ''}`);
    pages.push(body.page);
    totals.add(body.total);
    seen.push(...body.result.map((r) => `${r.block_number}/${r.log_index}`));
    cursor = body.cursor;
    await appendBlock();
  } while (cursor !== '');
  return { seen, pages, totals: [...totals] };
}

beforeAll(async () => {
  gw = await startTestGateway();
  await followChains(gw.db.pool, [CHAIN]);
  for (let i = 0; i < 5; i++) await appendBlock(); // blocks 1..5: 10 transfers, 10 logs
});

afterAll(async () => {
  await gw?.close();
});

describe('keyset paging while new blocks arrive', () => {
  it('transfers DESC: no duplicate, no gap, stable total', async () => {
    const headBefore = nextBlock - 1;
    const { seen, pages, totals } = await walk(`/api/v2.2/${W}/erc20/transfers?limit=3`);
    const expected: string[] = [];
    for (let b = headBefore; b >= 1; b--) expected.push(`${b}/1`, `${b}/0`);
    expect(seen).toEqual(expected);
    expect(pages).toEqual(['0', '1', '2', '3']);
    expect(totals).toEqual([String(expected.length)]);
  });

  it('transfers ASC: the range pinned by the first page is served exactly', async () => {
    const headBefore = nextBlock - 1;
    const { seen, pages, totals } = await walk(`/api/v2.2/${W}/erc20/transfers?limit=4&order=ASC`);
    const expected: string[] = [];
    for (let b = 1; b <= headBefore; b++) expected.push(`${b}/0`, `${b}/1`);
    expect(seen).toEqual(expected);
    expect(pages.length).toBe(Math.ceil(expected.length / 4));
    expect(totals).toEqual([String(expected.length)]);
  });

  it('logs DESC: no duplicate, no gap', async () => {
    const headBefore = nextBlock - 1;
    const { seen } = await walk(`/api/v2.2/${CONTRACT}/logs?topic0=${TRANSFER_TOPIC}&limit=5`);
    const expected: string[] = [];
    for (let b = headBefore; b >= 1; b--) expected.push(`${b}/1`, `${b}/0`);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
