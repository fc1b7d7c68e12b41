import type { BlockEvent } from '@tributary/schema';
import { type FaultyRpc, type StartedAnvil, startAnvil, startFaultyRpc } from '@tributary/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { asChainBlock, buildLogChain, readChain } from '../testing/buildLogChain.ts';
import { createFollowerHarness } from '../testing/createFollowerHarness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
}, 60_000);

/** Each block number's `new` and `confirmed` events: at most one of each, none removed. */
function eventsByBlock(events: BlockEvent[]) {
  const seen = new Map<number, { new: number; confirmed: number }>();
  for (const e of events) {
    expect(e.type).not.toBe('removed');
    const c = seen.get(e.block.number) ?? { new: 0, confirmed: 0 };
    if (e.type === 'new') c.new++;
    if (e.type === 'confirmed') c.confirmed++;
    seen.set(e.block.number, c);
  }
  return seen;
}

describe('chain-follower -> Kafka through providers that misbehave', { timeout: 180_000 }, () => {
  it('publishes exactly the chain, each block once, while one URL drops everything and the other is slow, limited, capped, lagging and flaky', async () => {
    const anvil: StartedAnvil = await startAnvil();
    cleanup.push(() => anvil.stop());
    await buildLogChain(anvil.rpcUrl, [120, 0, 300, 5, 0, 260, 40, 0, 0, 310, 90, 1, 200, 0, 75]);

    const dead: FaultyRpc = await startFaultyRpc({
      upstream: anvil.rpcUrl,
      faults: { drop: { count: Number.POSITIVE_INFINITY } },
    });
    const flaky: FaultyRpc = await startFaultyRpc({
      upstream: anvil.rpcUrl,
      faults: {
        latencyMs: 20,
        tooManyRequests: { count: 3, retryAfterSeconds: 1 },
        logsCap: { style: 'more-than-results-hint', maxLogs: 400 },
        missingMethods: ['eth_getBlockReceipts'],
        hang: { methods: ['eth_getLogs', 'eth_getBlockByNumber'], count: 3 },
        drop: { methods: ['eth_getLogs', 'eth_getBlockByNumber', 'eth_getTransactionReceipt'], count: 6 },
        laggingLogs: { depth: 4 },
      },
    });
    cleanup.push(
      () => dead.close(),
      () => flaky.close(),
    );
    const harness = await createFollowerHarness({
      rpcUrl: anvil.rpcUrl,
      options: { rangeBlocks: 64, maxRangeBlocks: 64, maxBatchBlocks: 8 },
      followerRpc: { urls: [dead.url, flaky.url], timeoutMs: 500, demoteMs: 60_000 },
    });
    cleanup.push(() => harness.close());
    // A stream that reads transactions and traces (no checkpoint yet: every block): receipts are fetched too.
    await harness.addStream({ includeNativeTxs: true, includeInternalTxs: true });

    const follower = harness.startFollower();
    await harness.waitFollowed(follower, 120_000);
    // At the head: new blocks whose logs the node has not "executed" when first asked.
    flaky.setFaults({ laggingLogs: { depth: 3 }, drop: { methods: ['eth_getLogs'], count: 2 } });
    await buildLogChain(anvil.rpcUrl, [50, 0, 400, 3, 0, 0]);
    await harness.waitFollowed(follower, 120_000);
    await follower.stop();

    const head = Number(await harness.rpc.client.getBlockNumber({ cacheTime: 0 }));
    const chain = await readChain(anvil.rpcUrl, head);
    const events = await harness.readEvents();
    // Each block once as new (head) or once as confirmed at once (backfill), never skipped, never twice.
    const byBlock = eventsByBlock(events);
    expect([...byBlock.keys()].sort((a, b) => a - b)).toEqual(chain.map((b) => b.number));
    for (const [, c] of byBlock) {
      expect(c.new).toBeLessThanOrEqual(1);
      expect(c.confirmed).toBeLessThanOrEqual(1);
      expect(c.new + c.confirmed).toBeGreaterThan(0);
    }
    // What every event carries is what the node has: hash, parent, and exactly its logs.
    for (const e of events)
      expect(asChainBlock({ header: e.block, logs: e.type === 'removed' ? [] : e.logs })).toEqual(
        chain[e.block.number],
      );

    // Every fault was met, and the dead URL was passed over after its first failures.
    for (const kind of ['429', 'logs-cap', 'missing-method', 'hang', 'drop', 'lagging-logs']) {
      expect({ kind, seen: (flaky.stats.faults[kind] ?? 0) > 0 }).toEqual({ kind, seen: true });
    }
    // (It is tried again only while the other one is failing too: at the start, where both failed.)
    expect(dead.stats.httpRequests).toBeGreaterThan(0);
    expect(dead.stats.httpRequests).toBeLessThan(flaky.stats.httpRequests / 4);
  });
});
