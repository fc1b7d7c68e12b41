import { createPool } from '@tributary/db';
import { advanceBackfill, cancelBackfill, requestBackfill } from '@tributary/db/chain';
import { createMetrics } from '@tributary/runtime';
import { createTestDatabase } from '@tributary/testkit';
import { describe, expect, it } from 'vitest';
import { createRequestedBackfillMetrics } from './createRequestedBackfillMetrics.ts';

/** The metric's lines as /metrics shows them. */
async function scrape(metrics: ReturnType<typeof createMetrics>, name: string): Promise<string[]> {
  return (await metrics.metrics()).split('\n').filter((l) => l.startsWith(`${name}{`));
}

// The real PostgreSQL: the gauge reads the requests when scraped.
describe("the follower's backfill request metrics", () => {
  it("report the blocks still to re-publish over the chain's open requests, and keep the last value when PostgreSQL fails", async () => {
    const db = await createTestDatabase();
    const pool = createPool({ connectionString: db.url, max: 2 });
    try {
      const metrics = createMetrics('chain-follower-test');
      const reporter = createRequestedBackfillMetrics({ metrics, pool, chainId: 31337 });
      const remaining = 'tributary_follower_backfill_requested_blocks_remaining';
      const total = 'tributary_follower_backfill_requested_blocks_total';
      expect(await scrape(metrics, remaining)).toEqual([
        `${remaining}{chain_id="31337",service="chain-follower-test"} 0`,
      ]);

      // Open: 100 blocks, 40 of them re-published, and 11 untouched; finished or another chain's: not counted.
      const partly = await requestBackfill(pool, { chainId: 31337, fromBlock: 0, toBlock: 99 });
      await advanceBackfill(pool, partly.id, 40);
      await requestBackfill(pool, { chainId: 31337, fromBlock: 200, toBlock: 210 });
      const done = await requestBackfill(pool, { chainId: 31337, fromBlock: 5, toBlock: 9 });
      await advanceBackfill(pool, done.id, 10);
      const cancelled = await requestBackfill(pool, { chainId: 31337, fromBlock: 1000, toBlock: 1999 });
      await cancelBackfill(pool, cancelled.id);
      await requestBackfill(pool, { chainId: 1, fromBlock: 0, toBlock: 500 });
      expect(await scrape(metrics, remaining)).toEqual([
        `${remaining}{chain_id="31337",service="chain-follower-test"} 71`,
      ]);

      reporter.republished(40);
      reporter.republished(5);
      expect(await scrape(metrics, total)).toEqual([
        `${total}{chain_id="31337",service="chain-follower-test"} 45`,
      ]);

      // PostgreSQL gone (the pool closed): the scrape still answers, with the last value read.
      await pool.end();
      expect(await scrape(metrics, remaining)).toEqual([
        `${remaining}{chain_id="31337",service="chain-follower-test"} 71`,
      ]);
    } finally {
      if (!pool.ended) await pool.end();
      await db.drop();
    }
  });
});
