import { randomUUID } from 'node:crypto';
import { createChainRegistry } from '@tributary/chains';
import { type Pool, createPool } from '@tributary/db';
import { addStreamAddresses, insertStream, setStreamStatus } from '@tributary/db/streams';
import { erc20TransferEventAbi } from '@tributary/evm';
import { createLogger } from '@tributary/runtime';
import type { FullBlockEvent } from '@tributary/schema';
import { TRANSFER_TOPIC, validateStreamConfig } from '@tributary/stream-rules';
import { createTestDatabase, type TestDatabase, getTestSettings, uniqueName } from '@tributary/testkit';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreamStore } from '../load/createStreamStore.ts';
import { createBlockReaders } from '../read/createBlockReaders.ts';
import { createBlockHandler } from './handleBlockEvent.ts';

// One tenant's stream that takes long to evaluate must not delay the others block after block:
// over its time budget on one block, it is no longer evaluated, and its owner is told why.
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const topicOf = (addr: string) => `0x${'0'.repeat(24)}${addr.slice(2)}` as `0x${string}`;
const TOKEN = a(0x70c);
const OTHER = a(0x07e);
const LOGS = 10_000;

let db: TestDatabase;
let pool: Pool;
let queue: Queue;
let accountId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 4 });
  accountId = randomUUID();
  await pool.query('INSERT INTO accounts (id, name, webhook_secret) VALUES ($1, $2, $3)', [
    accountId,
    'b',
    's',
  ]);
  queue = openTestWebhookQueue(getTestSettings().redisUrl, uniqueName('q'));
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await pool?.end();
  await db?.drop();
});

/** A block of LOGS Transfer logs of OTHER and one of TOKEN, as the follower publishes it. */
function block(n: number): FullBlockEvent {
  const log = (i: number, address: string) => ({
    logIndex: i,
    transactionHash: h(0x10000 + i),
    transactionIndex: i,
    address: address as `0x${string}`,
    data: `0x${(i + 1).toString(16).padStart(64, '0')}` as `0x${string}`,
    topics: [TRANSFER_TOPIC, topicOf(a(i + 1)), topicOf(a(i + 2))],
  });
  return {
    type: 'new',
    v: 2,
    chainId: 31337,
    block: { number: n, hash: h(n), parentHash: h(n - 1), timestamp: 1_700_000_000 + n },
    transactions: [],
    logs: [...Array.from({ length: LOGS }, (_, i) => log(i, OTHER)), log(LOGS, TOKEN)],
    internalTransactions: [],
    transfers: [],
    tokens: [],
    tokenInfo: [],
    accounts: [],
    hasTransactions: false,
    hasInternalTransactions: false,
  };
}

async function stream(extra: Record<string, unknown>, addresses: string[] = []): Promise<string> {
  const config = {
    webhookUrl: 'http://127.0.0.1:9/hook',
    description: 'budget',
    tag: 'budget',
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
    ...extra,
  };
  // Within every default limit: what any tenant may create.
  const checked = validateStreamConfig(config, createChainRegistry());
  expect(checked.ok ? 'valid' : checked.details).toBe('valid');
  const id = randomUUID();
  await insertStream(pool, { id, accountId, chainIds: [31337], config });
  await addStreamAddresses(pool, id, addresses);
  return id;
}

const deliveredBlocks = async (id: string) =>
  (
    await pool.query<{ n: string }>(
      'SELECT block_number AS n FROM deliveries WHERE stream_id = $1 ORDER BY 1',
      [id],
    )
  ).rows.map((r) => Number(r.n));
const statusOf = async (id: string) =>
  (
    await pool.query<{ status: string; status_message: string }>(
      'SELECT status, status_message FROM streams WHERE id = $1',
      [id],
    )
  ).rows[0];

describe('the time budget per stream and block', () => {
  it('a stream over it on one block is no longer evaluated and says why; the others go on; re-activated, it is evaluated again', async () => {
    // Every log of every block through an advanced filter of 499 comparisons that never holds.
    const never = Array.from({ length: 499 }, (_, i) => ({ eq: ['to', a(0xdead0000 + i)] }));
    const heavy = await stream({
      allAddresses: true,
      advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', filter: { or: never } }],
    });
    const light = await stream({}, [TOKEN]);
    const logger = createLogger('budget-test', 'silent');
    const store = createStreamStore({ pool, logger });
    await store.loadAll();
    const suspended: string[] = [];
    const handle = createBlockHandler({
      pool,
      store,
      queue,
      logger,
      readers: createBlockReaders({ rpcUrls: new Map(), concurrency: 1 }),
      budgetMs: 250,
      onSuspended: (id) => suspended.push(id),
    });

    // Over the budget on three blocks in a row.
    for (const n of [1, 2]) {
      await handle(block(n));
      expect(suspended).toEqual([]);
    }
    await handle(block(3));
    expect(suspended).toEqual([heavy]);
    expect(await statusOf(heavy)).toEqual({
      status: 'error',
      status_message: expect.stringMatching(
        /^evaluating block 3 of chain 0x7a69 took \d+ ms, over the budget of 250 ms per stream and block \(STREAM_BLOCK_BUDGET_MS\) on 3 blocks in a row: the stream is no longer evaluated; update it or set it active to try again$/,
      ),
    });
    expect(await statusOf(light)).toEqual({ status: 'active', status_message: 'Stream is active' });
    expect(store.get(heavy)).toBeUndefined();

    // The next blocks: the light stream's webhooks, and no time spent on the heavy one.
    const started = performance.now();
    await handle(block(4));
    console.log(`block 4, heavy stream suspended: ${(performance.now() - started).toFixed(1)} ms`);
    expect(await deliveredBlocks(light)).toEqual([1, 2, 3, 4]);
    expect(suspended).toEqual([heavy]);

    // Its owner sets it active again: evaluated again (and, still as heavy, suspended again).
    await setStreamStatus(pool, accountId, heavy, 'active', 'Stream is active');
    await store.reload(heavy);
    expect(store.get(heavy)?.status).toBe('active');
    for (const n of [5, 6, 7]) await handle(block(n));
    expect(suspended).toEqual([heavy, heavy]);
    expect(await deliveredBlocks(light)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
