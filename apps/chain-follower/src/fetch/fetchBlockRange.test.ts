import { createLogger } from '@tributary/runtime';
import type { BlockContents } from '@tributary/schema';
import {
  type FaultyRpc,
  type LogsCapStyle,
  type RpcFaults,
  type StartedAnvil,
  startAnvil,
  startFaultyRpc,
} from '@tributary/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainBlock, asChainBlock, buildLogChain, readChain } from '../testing/buildLogChain.ts';
import { createAdaptiveRange } from './createAdaptiveRange.ts';
import { type RpcOptions, createRpc } from '../rpc/createRpc.ts';
import { createBlockFetcher } from './fetchBlockRange.ts';
import { loadEnv, rpcSettingsOf } from '../env.ts';

const DEFAULTS = loadEnv({});

// Logs per mined block: dense and sparse blocks, empty ones between (about 2,800 logs in all).
const LOGS_PER_BLOCK = [
  120, 0, 5, 300, 0, 0, 40, 250, 1, 0, 90, 310, 60, 0, 7, 200, 150, 0, 30, 280, 2, 0, 0, 110, 75, 260, 0, 12,
];
const logger = createLogger('fetch-faults-test', process.env['LOG_LEVEL'] ?? 'warn');

let anvil: StartedAnvil;
let head: number;
let chain: ChainBlock[];
const proxies: FaultyRpc[] = [];

beforeAll(async () => {
  anvil = await startAnvil();
  head = await buildLogChain(anvil.rpcUrl, LOGS_PER_BLOCK);
  chain = await readChain(anvil.rpcUrl, head);
}, 120_000);

afterAll(async () => {
  for (const p of proxies) await p.close();
  await anvil?.stop();
});

async function proxy(faults: RpcFaults): Promise<FaultyRpc> {
  const p = await startFaultyRpc({ upstream: anvil.rpcUrl, faults });
  proxies.push(p);
  return p;
}

/** The fetching unit as the follower builds it, over the given URLs; ranges start wide so that caps bite. */
function fetcher(urls: string[], rpc: Partial<RpcOptions> = {}) {
  const range = createAdaptiveRange({ initial: 64, max: 64, targetLogs: DEFAULTS.RANGE_TARGET_LOGS });
  return createBlockFetcher({
    rpc: createRpc({ ...rpcSettingsOf(DEFAULTS), urls, timeoutMs: 2_000, demoteMs: 200, logger, ...rpc }),
    range,
    concurrency: 2,
    logger,
  });
}

const HEADERS_AND_LOGS: BlockContents = { transactions: false, internalTransactions: false };
const EVERYTHING: BlockContents = { transactions: true, internalTransactions: true };

/**
 * Fetches the whole chain in the follower's batches; a batch that fails is fetched again, as the
 * follower's step does (at most 10 times). Each block must come once, as the node has it.
 */
async function fetchAll(f: ReturnType<typeof fetcher>, opts = HEADERS_AND_LOGS, batch = 16) {
  const out = [];
  for (let from = 0; from <= head; from += batch) {
    for (let attempt = 1; ; attempt++) {
      try {
        out.push(...(await f.fetchRange(from, Math.min(head, from + batch - 1), opts)));
        break;
      } catch (err) {
        if (attempt === 10) throw err;
      }
    }
  }
  return out;
}

describe('fetching blocks through a provider that misbehaves', { timeout: 120_000 }, () => {
  it('the chain has the dense and empty blocks the cases need', () => {
    expect(chain.filter((b) => b.logs.length === 0).length).toBeGreaterThan(5);
    expect(Math.max(...chain.map((b) => b.logs.length))).toBe(310);
    expect(chain.reduce((n, b) => n + b.logs.length, 0)).toBe(LOGS_PER_BLOCK.reduce((a, b) => a + b, 0));
  });

  const resultCaps: LogsCapStyle[] = [
    'more-than-results-hint',
    'more-than-results',
    'should-work-range',
    'exceeds-limit',
    'max-logs-per-response',
  ];
  for (const style of resultCaps) {
    it(`eth_getLogs capped at 400 results (${style}): every block with exactly its logs`, async () => {
      const p = await proxy({ logsCap: { style, maxLogs: 400 } });
      const fetched = await fetchAll(fetcher([p.url]));
      expect(fetched.map(asChainBlock)).toEqual(chain);
      expect(p.stats.faults['logs-cap']).toBeGreaterThan(0);
    });
  }

  for (const style of ['too-wide', 'max-block-range'] as const) {
    it(`eth_getLogs capped at 5 blocks (${style}): every block with exactly its logs`, async () => {
      const p = await proxy({ logsCap: { style, maxBlocks: 5 } });
      const fetched = await fetchAll(fetcher([p.url]));
      expect(fetched.map(asChainBlock)).toEqual(chain);
      expect(p.stats.faults['logs-cap']).toBeGreaterThan(0);
      // Each block range refused is split, never asked again as it was: refusals stay below the calls that worked.
      expect(p.stats.faults['logs-cap']!).toBeLessThan(
        p.stats.calls['eth_getLogs']! - p.stats.faults['logs-cap']!,
      );
    });
  }

  for (const style of ['more-than-results-hint', 'should-work-range'] as const) {
    it(`a suggested range that fails again is halved, not asked again (${style}, misleading hint)`, async () => {
      const p = await proxy({ logsCap: { style, maxLogs: 400, misleadingHint: true } });
      const fetched = await fetchAll(fetcher([p.url]));
      expect(fetched.map(asChainBlock)).toEqual(chain);
      expect(p.stats.faults['logs-cap']).toBeGreaterThan(0);
      // Every refusal splits a range into strictly smaller ones: at most one refusal per block and batch.
      expect(p.stats.faults['logs-cap']!).toBeLessThanOrEqual(2 * (head + 1));
    });
  }

  it('latency, HTTP 429 with Retry-After and a calls-per-second limit: the same blocks, and no call before Retry-After', async () => {
    const p = await proxy({
      latencyMs: 30,
      tooManyRequests: { count: 3, retryAfterSeconds: 1 },
      requestsPerSecond: 200,
    });
    const fetched = await fetchAll(fetcher([p.url]));
    expect(fetched.map(asChainBlock)).toEqual(chain);
    expect(p.stats.faults['429']).toBe(3);
  });

  it('honours Retry-After: calls answered 429 come back only after the time it names', async () => {
    const p = await proxy({ tooManyRequests: { count: 1, retryAfterSeconds: 1 } });
    const rpc = createRpc({ ...rpcSettingsOf(DEFAULTS), urls: [p.url], timeoutMs: 5_000, logger });
    // Five calls of one tick travel as one batch: one 429 for all of them.
    const numbers = await Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        rpc.call<{ hash: string } | null>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]),
      ),
    );
    expect(numbers.map((b) => b?.hash)).toEqual(chain.slice(0, 5).map((b) => b.hash));
    const [refused] = p.stats.tooManyAt;
    expect(refused).toBeDefined();
    const after = p.stats.requestTimes.filter((t) => t > refused!.at);
    expect(after.length).toBeGreaterThan(0);
    expect(Math.min(...after) - refused!.at).toBeGreaterThanOrEqual(refused!.retryAfterMs);
  });

  it('receipts and traces refused as missing methods: receipts one by one, internal transactions off', async () => {
    const direct = await fetchAll(fetcher([anvil.rpcUrl]), EVERYTHING);
    const p = await proxy({ missingMethods: ['eth_getBlockReceipts', 'debug_trace*'] });
    const fetched = await fetchAll(fetcher([p.url]), EVERYTHING);
    expect(fetched.map(asChainBlock)).toEqual(chain);
    expect(fetched.map((b) => b.transactions)).toEqual(direct.map((b) => b.transactions));
    expect(direct.some((b) => (b.transactions?.length ?? 0) > 0)).toBe(true);
    expect(direct.every((b) => b.internalTransactions !== null)).toBe(true);
    // Blocks without transactions need no trace; every other one has its internal transactions off.
    expect(
      fetched.filter((b) => (b.transactions?.length ?? 0) > 0).every((b) => b.internalTransactions === null),
    ).toBe(true);
    expect(p.stats.calls['eth_getTransactionReceipt']).toBeGreaterThan(0);
  });

  it('a timeout is not a missing method: hung receipts and traces are asked again, and stay on', async () => {
    const direct = await fetchAll(fetcher([anvil.rpcUrl]), EVERYTHING);
    const p = await proxy({
      hang: { methods: ['eth_getBlockReceipts', 'debug_traceBlockByHash'], count: 4 },
    });
    // One try per call: the timeouts reach the fetcher, which must not take them for missing methods.
    const fetched = await fetchAll(fetcher([p.url], { timeoutMs: 300, attempts: 1 }), EVERYTHING);
    expect(p.stats.faults['hang']).toBe(4);
    expect(fetched.map(asChainBlock)).toEqual(chain);
    expect(fetched.map((b) => [b.transactions, b.internalTransactions])).toEqual(
      direct.map((b) => [b.transactions, b.internalTransactions]),
    );
    expect(p.stats.calls['eth_getTransactionReceipt'] ?? 0).toBe(0);
  });

  it('hung and dropped connections: retried, the same blocks', async () => {
    const p = await proxy({
      hang: { methods: ['eth_getLogs'], count: 2 },
      drop: { methods: ['eth_getBlockByNumber', 'eth_getLogs'], count: 6 },
    });
    const fetched = await fetchAll(fetcher([p.url], { timeoutMs: 300 }));
    expect(fetched.map(asChainBlock)).toEqual(chain);
    expect([p.stats.faults['hang'], p.stats.faults['drop']]).toEqual([2, 6]);
  });

  it('a node that answers no logs for blocks it has not executed yet: asked again, never published empty', async () => {
    const p = await proxy({ laggingLogs: { depth: head + 1 } });
    const fetched = await fetchAll(fetcher([p.url]));
    expect(fetched.map(asChainBlock)).toEqual(chain);
    expect(p.stats.faults['lagging-logs']).toBeGreaterThan(0);
  });

  it('fails over to the next URL when one drops every call, and tries the failed one again later', async () => {
    const bad = await proxy({ drop: { count: Number.POSITIVE_INFINITY } });
    const good = await proxy({});
    // Demoted for a minute after its first failure: only the requests already on their way when
    // it first failed reach it (at most one batch per concurrent fetch), however slow the machine.
    const f = fetcher([bad.url, good.url], { demoteMs: 60_000 });
    const fetched = await fetchAll(f);
    expect(fetched.map(asChainBlock)).toEqual(chain);
    expect(bad.stats.httpRequests).toBeGreaterThan(0);
    expect(bad.stats.httpRequests).toBeLessThanOrEqual(4);
    expect(good.stats.httpRequests).toBeGreaterThan(bad.stats.httpRequests);

    // Healed, it is preferred again once its demotion has run out (200 ms here).
    const g = fetcher([bad.url, good.url], { demoteMs: 200 });
    await g.fetchHeader('latest'); // fails on the bad URL, answered by the good one
    bad.setFaults({ drop: undefined });
    const before = bad.stats.httpRequests;
    const deadline = Date.now() + 30_000;
    while (bad.stats.httpRequests === before && Date.now() < deadline) {
      await g.fetchHeader('latest');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(bad.stats.httpRequests).toBeGreaterThan(before);
  });
});
