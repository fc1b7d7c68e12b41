import { type PoolClient, hexToBytes } from '@tributary/db';
import {
  type ChainSegment,
  type TransferRow,
  projectChainSegment,
  removeChainBlock,
} from '@tributary/db/chain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addr, hash32, followChains } from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

// `total` comes from the per-(owner, token) counts the projector keeps (no lower block bound), from
// the wallet's transfer checkpoints (block bounds, no token filter) or from a range count (block
// bounds and tokens): either way it must be the number of rows the pages hold. The data is written
// by the projector's own code (projectChainSegment / removeChainBlock). Checkpoints every 4 blocks;
// chain 1 confirms at depth 12, so blocks up to HEAD - 12 are final and carry checkpoints.
const CHAIN = 1;
const ZERO = `0x${'0'.repeat(40)}`;
const W = addr('total-wallet');
const A = addr('total-a');
const B = addr('total-b');
const [T1, T2, T3] = [addr('total-t1'), addr('total-t2'), addr('total-t3')] as const;
const LOST = addr('total-nobody');
const HEAD = 30;
const CHECKPOINT_BLOCKS = 4;
const time = (n: number) => 1_700_000_000 + n * 12;
const blockHashOf = (n: number) => hash32(`total-block:${n}`);

/** Deterministic pseudo-random transfers: every pair of parties, mints, burns, self-transfers. */
function segment(from: number, to: number): ChainSegment {
  let seed = from;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor(seed / 65_536) % n;
  };
  const parties = [W, W, A, B, ZERO];
  const tokens = [T1, T1, T2, T3];
  const blocks: ChainSegment['blocks'] = [];
  const transfers: TransferRow[] = [];
  for (let n = from; n <= to; n++) {
    blocks.push({
      chainId: CHAIN,
      number: n,
      hash: blockHashOf(n),
      parentHash: blockHashOf(n - 1),
      timestamp: time(n),
      confirmed: true,
    });
    const count = 2 + rand(5);
    for (let i = 0; i < count; i++) {
      transfers.push({
        chainId: CHAIN,
        blockNumber: n,
        logIndex: i * 3,
        blockHash: blockHashOf(n),
        blockTimestamp: time(n),
        transactionHash: hash32(`total-tx:${n}:${i}`),
        transactionIndex: i,
        token: tokens[rand(tokens.length)] as string,
        from: parties[rand(parties.length)] as string,
        to: parties[rand(parties.length)] as string,
        value: String(1 + rand(1000)),
      });
    }
  }
  return { blocks, logs: [], transfers, tokens: [], addressKinds: [] };
}

let gw: TestGateway;

async function inTransaction(fn: (client: PoolClient) => Promise<unknown>) {
  const client = await gw.db.pool.connect();
  try {
    await client.query('BEGIN');
    await fn(client);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

beforeAll(async () => {
  gw = await startTestGateway({ transferCheckpointBlocks: CHECKPOINT_BLOCKS });
  await followChains(gw.db.pool, [CHAIN]);
  await inTransaction((c) => projectChainSegment(c, segment(1, 20)));
  await inTransaction((c) => projectChainSegment(c, segment(21, HEAD)));
});

afterAll(async () => {
  await gw?.close();
});

interface Filter {
  wallet: string;
  tokens?: string[];
  fromBlock?: number;
  toBlock?: number;
}

/** The wallet's transfers straight from the table, newest first, as "block:log". */
async function truth(f: Filter): Promise<string[]> {
  const { rows } = await gw.db.pool.query<{ k: string }>(
    `SELECT block_number || ':' || log_index AS k FROM transfers
      WHERE chain_id = $1 AND (from_address = $2 OR to_address = $2)
        AND ($3::bytea[] IS NULL OR token_address = ANY($3))
        AND block_number >= coalesce($4, 0) AND block_number <= coalesce($5, 9223372036854775807)
      ORDER BY block_number DESC, log_index DESC`,
    [CHAIN, hexToBytes(f.wallet), f.tokens?.map(hexToBytes) ?? null, f.fromBlock ?? null, f.toBlock ?? null],
  );
  return rows.map((r) => r.k);
}

/** Stored checkpoints whose number differs from the transfers below their block in the table. */
async function wrongCheckpoints(): Promise<string[]> {
  const { rows } = await gw.db.pool.query<{ wallet: string; before_block: string; transfers: string }>(
    `SELECT '0x' || encode(wallet, 'hex') AS wallet, before_block, transfers FROM wallet_transfer_checkpoints
      WHERE chain_id = $1 ORDER BY wallet, before_block`,
    [CHAIN],
  );
  const wrong: string[] = [];
  for (const r of rows) {
    const below = await truth({ wallet: r.wallet, toBlock: Number(r.before_block) - 1 });
    if (below.length !== Number(r.transfers))
      wrong.push(`${r.wallet}@${r.before_block}: ${r.transfers} != ${below.length}`);
  }
  return wrong;
}

async function checkpointCount(): Promise<number> {
  const { rows } = await gw.db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM wallet_transfer_checkpoints WHERE chain_id = $1',
    [CHAIN],
  );
  return rows[0]?.n ?? 0;
}

async function firstPageTotal(wallet: string, query: string): Promise<string> {
  const res = await gw.request(`/api/v2.2/${wallet}/erc20/transfers?limit=1&${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { total: string }).total;
}

/** Every page of a query: the totals each page reports and the rows in order. */
async function walk(path: string) {
  const totals = new Set<string>();
  const keys: string[] = [];
  let cursor = '';
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await gw.request(cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      total: string;
      cursor: string;
      result: { block_number: number; log_index: number }[];
    };
    totals.add(body.total);
    for (const r of body.result) keys.push(`${r.block_number}:${r.log_index}`);
    cursor = body.cursor;
    if (!cursor) break;
  }
  return { totals: [...totals], keys };
}

describe('GET /api/v2.2/:address/erc20/transfers: total', () => {
  it('the data set covers mints, burns, self-transfers and several tokens of the wallet', async () => {
    const { rows } = await gw.db.pool.query<{ mints: string; burns: string; selfs: string; tokens: string }>(
      `SELECT count(*) FILTER (WHERE from_address = $1 AND to_address = $2) AS mints,
              count(*) FILTER (WHERE from_address = $2 AND to_address = $1) AS burns,
              count(*) FILTER (WHERE from_address = $2 AND to_address = $2) AS selfs,
              count(DISTINCT token_address) FILTER (WHERE from_address = $2 OR to_address = $2) AS tokens
         FROM transfers`,
      [hexToBytes(ZERO), hexToBytes(W)],
    );
    const r = rows[0]!;
    expect(Number(r.mints)).toBeGreaterThan(0);
    expect(Number(r.burns)).toBeGreaterThan(0);
    expect(Number(r.selfs)).toBeGreaterThan(0);
    expect(Number(r.tokens)).toBe(3);
  });

  const cases: { name: string; query: string; filter: Filter }[] = [
    { name: 'all tokens', query: '', filter: { wallet: W } },
    { name: 'one token', query: `contract_addresses[]=${T1}`, filter: { wallet: W, tokens: [T1] } },
    {
      name: 'two tokens, ascending',
      query: `contract_addresses[]=${T3}&contract_addresses[]=${T1}&order=ASC`,
      filter: { wallet: W, tokens: [T1, T3] },
    },
    { name: 'from_block', query: 'from_block=12', filter: { wallet: W, fromBlock: 12 } },
    { name: 'to_block below the head', query: 'to_block=17', filter: { wallet: W, toBlock: 17 } },
    { name: 'to_block past the head', query: 'to_block=1000', filter: { wallet: W } },
    {
      name: 'block range and a token',
      query: `from_block=5&to_block=25&contract_addresses[]=${T2}`,
      filter: { wallet: W, tokens: [T2], fromBlock: 5, toBlock: 25 },
    },
    {
      name: 'from_date',
      query: `from_date=${new Date(time(9) * 1000).toISOString()}`,
      filter: { wallet: W, fromBlock: 9 },
    },
    { name: 'the zero address (mints and burns)', query: '', filter: { wallet: ZERO } },
    { name: 'a wallet without transfers', query: '', filter: { wallet: LOST } },
  ];
  for (const c of cases) {
    it(`equals the number of rows served: ${c.name}`, async () => {
      const expected = await truth(c.filter);
      const ascending = c.query.includes('order=ASC');
      const got = await walk(`/api/v2.2/${c.filter.wallet}/erc20/transfers?limit=7&${c.query}`);
      expect(got.totals).toEqual([String(expected.length)]);
      expect(got.keys).toEqual(ascending ? [...expected].reverse() : expected);
    });
  }

  it('follows new and removed blocks', async () => {
    await inTransaction((c) => projectChainSegment(c, segment(HEAD + 1, HEAD + 2)));
    const grown = await truth({ wallet: W });
    const first = await gw.request(`/api/v2.2/${W}/erc20/transfers?contract_addresses[]=${T1}`);
    const t1 = await truth({ wallet: W, tokens: [T1] });
    expect(((await first.json()) as { total: string }).total).toBe(String(t1.length));
    expect((await walk(`/api/v2.2/${W}/erc20/transfers?limit=50`)).totals).toEqual([String(grown.length)]);

    await inTransaction(async (c) => {
      await removeChainBlock(c, { chainId: CHAIN, number: HEAD + 2, hash: blockHashOf(HEAD + 2) });
      await removeChainBlock(c, { chainId: CHAIN, number: HEAD + 1, hash: blockHashOf(HEAD + 1) });
    });
    const shrunk = await truth({ wallet: W });
    expect(shrunk.length).toBeLessThan(grown.length);
    expect(await walk(`/api/v2.2/${W}/erc20/transfers?limit=50`)).toEqual({
      totals: [String(shrunk.length)],
      keys: shrunk,
    });
  });
  it('range totals from checkpoints reached every way (head, nearer stored one above or below, first block)', async () => {
    // A: bounds from the head down (the first checkpoint comes from the head's counts, then each
    // from the stored one above); B: upwards (from the first block, then from the one below).
    for (const [wallet, froms] of [
      [A, Array.from({ length: HEAD + 2 }, (_, i) => HEAD + 1 - i)],
      [B, Array.from({ length: HEAD + 2 }, (_, i) => i)],
    ] as const) {
      for (const from of froms) {
        const expected = (await truth({ wallet, fromBlock: from })).length;
        expect(await firstPageTotal(wallet, `from_block=${from}`), `${wallet} from ${from}`).toBe(
          String(expected),
        );
      }
      for (const to of [3, 4, 9, 16, 17, 18, 19, 25]) {
        for (const from of [0, 2, 5, 8]) {
          const expected = (await truth({ wallet, fromBlock: from, toBlock: to })).length;
          expect(
            await firstPageTotal(wallet, `from_block=${from}&to_block=${to}`),
            `${wallet} ${from}..${to}`,
          ).toBe(String(expected));
        }
      }
    }
    // Stored only in final history (blocks up to HEAD - 12), every one exact.
    const { rows } = await gw.db.pool.query<{ top: string }>(
      'SELECT max(before_block) AS top FROM wallet_transfer_checkpoints WHERE chain_id = $1',
      [CHAIN],
    );
    expect(Number(rows[0]?.top) - 1).toBeLessThanOrEqual(HEAD - 12);
    expect(await checkpointCount()).toBeGreaterThanOrEqual(8);
    expect(await wrongCheckpoints()).toEqual([]);
  });

  it('forgets checkpoints above a block whose transfers change (deep reorg, older blocks projected late)', async () => {
    for (const wallet of [W, A, B, ZERO]) await firstPageTotal(wallet, 'from_block=9');
    const before = await checkpointCount();
    expect(before).toBeGreaterThan(0);

    // Block 10 replaced by another block 10 with other transfers (deeper than the confirmation depth).
    await inTransaction((c) => removeChainBlock(c, { chainId: CHAIN, number: 10, hash: blockHashOf(10) }));
    const replaced = segment(10, 10);
    replaced.blocks[0]!.hash = hash32('total-block:10-other');
    for (const t of replaced.transfers) {
      t.blockHash = hash32('total-block:10-other');
      t.from = W;
    }
    await inTransaction((c) => projectChainSegment(c, replaced));
    expect(await wrongCheckpoints()).toEqual([]);
    for (const wallet of [W, A, B, ZERO]) {
      for (const from of [9, 11, 13, 17]) {
        const expected = (await truth({ wallet, fromBlock: from, toBlock: HEAD })).length;
        expect(await firstPageTotal(wallet, `from_block=${from}&to_block=${HEAD}`)).toBe(String(expected));
      }
    }

    // A block below every checkpoint projected late (an earlier start block backfilled afterwards).
    expect(await checkpointCount()).toBeGreaterThan(0);
    await inTransaction((c) => projectChainSegment(c, segment(0, 0)));
    expect(await wrongCheckpoints()).toEqual([]);
    for (const wallet of [W, A, B, ZERO]) {
      const expected = (await truth({ wallet, fromBlock: 0, toBlock: 20 })).length;
      expect(await firstPageTotal(wallet, 'from_block=0&to_block=20')).toBe(String(expected));
    }
  });
  it('stores no checkpoint computed from history that a reorg still running changes', async () => {
    // The projector's code, in its own transaction, removes a block deeper than the confirmation
    // depth and has not committed yet while a range total computes its checkpoints (8 and 16, both
    // above the block). Computed from the history before the removal, they would be stored stale.
    await gw.db.pool.query('DELETE FROM wallet_transfer_checkpoints WHERE chain_id = $1', [CHAIN]);
    const writer = await gw.db.pool.connect();
    let settled = false;
    try {
      await writer.query('BEGIN');
      const removed = await removeChainBlock(writer, { chainId: CHAIN, number: 6, hash: blockHashOf(6) });
      expect(removed.transfers).toBeGreaterThan(0);
      const reading = firstPageTotal(W, `from_block=9&to_block=${HEAD}`).finally(() => {
        settled = true;
      });
      // Until the reader waits for the writer (or is done without waiting), then the writer commits.
      for (let i = 0; i < 200 && !settled; i++) {
        const { rows } = await gw.db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if ((rows[0]?.n ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await writer.query('COMMIT');
      await reading;
    } finally {
      writer.release();
    }
    expect(await wrongCheckpoints()).toEqual([]);
    for (const from of [5, 9, 13]) {
      const expected = (await truth({ wallet: W, fromBlock: from, toBlock: HEAD })).length;
      expect(await firstPageTotal(W, `from_block=${from}&to_block=${HEAD}`)).toBe(String(expected));
    }
    expect(await wrongCheckpoints()).toEqual([]);
  });
});
