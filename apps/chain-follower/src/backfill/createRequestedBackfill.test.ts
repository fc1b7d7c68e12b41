import { createProducer } from '@tributary/bus';
import { demoTokenAbi } from '@tributary/contracts';
import { createDevnetClient, deployDemo, devnetAccount, waitMined } from '@tributary/devnet';
import { cancelBackfill, getBackfillRequest, requestBackfill } from '@tributary/db/chain';
import { type Registry, createLogger, createMetrics } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import { startAnvil } from '@tributary/testkit';
import { describe, expect, it } from 'vitest';
import { createBlockPublisher } from '../publish/createBlockPublisher.ts';
import { createFollowerHarness, waitFor } from '../testing/createFollowerHarness.ts';
import { createAdaptiveRange } from '../fetch/createAdaptiveRange.ts';
import { createBlockEnricher } from '../fetch/createBlockEnricher.ts';
import { createRequestedBackfill } from './createRequestedBackfill.ts';
import { createBlockFetcher } from '../fetch/fetchBlockRange.ts';
import { loadEnv } from '../env.ts';

const content = (e: BlockEvent) => {
  if (e.type === 'removed') return e;
  // A token's metadata and a party's kind travel once, with the first block that shows them.
  const { tokens: _tokens, accounts: _accounts, type: _type, ...rest } = e;
  return rest;
};

/** A series of the follower's metrics, as /metrics shows it. */
async function metricLine(metrics: Registry, name: string): Promise<string | undefined> {
  return (await metrics.metrics()).split('\n').find((l) => l.startsWith(`${name}{`));
}

// The running follower, a real anvil, Kafka and PostgreSQL: an operator's request re-publishes
// final blocks exactly as the chain has them (the same content the follower sent the first time),
// and blocks of the request that are not final yet wait until they are.
describe('a requested backfill', { timeout: 90_000 }, () => {
  it('re-publishes the requested final blocks as confirmed events, then finishes the request', async () => {
    const anvil = await startAnvil();
    const harness = await createFollowerHarness({ rpcUrl: anvil.rpcUrl });
    let follower: ReturnType<typeof harness.startFollower> | undefined;
    try {
      const client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
      const demo = await deployDemo(client);
      for (const n of [1n, 2n, 3n])
        await waitMined(
          client,
          await client.writeContract({
            address: demo.demo,
            abi: demoTokenAbi,
            functionName: 'mint',
            args: [devnetAccount(1).address, n],
          }),
        );
      const mine = (n: number) =>
        client.request({
          method: 'anvil_mine' as 'eth_chainId',
          params: [`0x${n.toString(16)}`] as unknown as undefined,
        });
      await mine(3);
      follower = harness.startFollower(); // confirmations: 2
      await harness.waitFollowed(follower);
      const head = follower.follower.status().checkpoint;
      const before = await harness.readEvents();

      // [2, head + 2]: with one more block, up to head - 1 is final; the rest waits for its depth.
      const request = await requestBackfill(harness.pool, {
        chainId: 31337,
        fromBlock: 2,
        toBlock: head + 2,
      });
      await mine(1); // the follower looks for requests between heads
      await waitFor(
        async () => (await getBackfillRequest(harness.pool, request.id))?.nextBlock === head,
        30_000,
        'the final part of the request',
      );
      expect((await getBackfillRequest(harness.pool, request.id))?.finishedAt).toBeNull();
      await mine(4);
      await waitFor(
        async () => (await getBackfillRequest(harness.pool, request.id))?.finishedAt != null,
        30_000,
        'the request to finish',
      );
      await harness.waitFollowed(follower);
      // Each requested block re-published once, and nothing left to do.
      expect(await metricLine(follower.metrics, 'tributary_follower_backfill_requested_blocks_total')).toBe(
        `tributary_follower_backfill_requested_blocks_total{chain_id="31337",service="chain-follower-test"} ${head + 1}`,
      );
      expect(
        await metricLine(follower.metrics, 'tributary_follower_backfill_requested_blocks_remaining'),
      ).toBe(
        `tributary_follower_backfill_requested_blocks_remaining{chain_id="31337",service="chain-follower-test"} 0`,
      );
      await follower.stop();

      const after = (await harness.readEvents()).slice(before.length);
      const again = after.filter((e) => e.type === 'confirmed');
      const numbers = again.map((e) => e.block.number);
      // Each requested block once more (the follower's own confirmations of the new heads aside).
      for (let n = 2; n <= head + 2; n++)
        expect(numbers.filter((x) => x === n).length).toBeGreaterThanOrEqual(1);
      // The same content as the first time each block was published (as new or confirmed).
      const first = (n: number) => before.find((e) => e.type !== 'removed' && e.block.number === n);
      for (let n = 2; n < head; n++) {
        const republished = again.find((e) => e.block.number === n);
        const original = first(n);
        expect(republished && content(republished)).toEqual(original && content(original));
      }
      const withTransfers = again.filter((e) => e.type === 'confirmed' && e.transfers.length > 0);
      expect(withTransfers.length).toBeGreaterThanOrEqual(3); // the three mints travel again
    } finally {
      await follower?.stop();
      await harness.close();
      await anvil.stop();
    }
  });

  it('leaves a request cancelled while its chunk is re-published as the cancel left it, and goes on to the next', async () => {
    const anvil = await startAnvil();
    const harness = await createFollowerHarness({ rpcUrl: anvil.rpcUrl });
    const producer = createProducer(harness.kafka, 'ordered');
    try {
      await producer.connect();
      await harness.rpc.call('anvil_mine', ['0x14']); // blocks 1 to 20
      const logger = createLogger('pipeline-test', process.env['TEST_LOG_LEVEL'] ?? 'error');
      const fetcher = createBlockFetcher({
        rpc: harness.rpc,
        range: createAdaptiveRange({ initial: 50, max: 500, targetLogs: loadEnv({}).RANGE_TARGET_LOGS }),
        concurrency: 2,
        logger,
      });
      const metrics = createMetrics('chain-follower-test');
      let cancelInFlight: string | undefined;
      // The step as the follower runs it at the head, on the real node, Kafka topic and PostgreSQL.
      const requested = createRequestedBackfill({
        pool: harness.pool,
        chainId: 31337,
        chunkBlocks: 5,
        fetchRange: async (from, to) => {
          const blocks = await fetcher.fetchRange(from, to, {
            transactions: true,
            internalTransactions: false,
          });
          // The operator's cancel lands while this chunk is on its way to Kafka.
          if (cancelInFlight) await cancelBackfill(harness.pool, cancelInFlight);
          cancelInFlight = undefined;
          return blocks;
        },
        enricher: createBlockEnricher({
          rpc: harness.rpc,
          pool: harness.pool,
          chainId: 31337,
          logger,
          canonicalHash: () => undefined,
        }),
        canonicalHash: () => undefined,
        publisher: createBlockPublisher({
          producer,
          topic: harness.topic,
          compression: 'gzip',
          maxRequestBytes: loadEnv({}).KAFKA_MAX_REQUEST_BYTES,
        }),
        logger,
        metrics,
      });
      const wrong = await requestBackfill(harness.pool, { chainId: 31337, fromBlock: 0, toBlock: 19 });
      const next = await requestBackfill(harness.pool, { chainId: 31337, fromBlock: 3, toBlock: 6 });

      expect(await requested.step(20)).toBe(true); // blocks 0 to 4 of the wrong one
      cancelInFlight = wrong.id;
      expect(await requested.step(20)).toBe(true); // 5 to 9: published, the request not advanced
      const cancelled = await getBackfillRequest(harness.pool, wrong.id);
      expect(cancelled).toMatchObject({ nextBlock: 5, cancelledAt: expect.any(Date) });
      expect(cancelled?.finishedAt).toEqual(cancelled?.cancelledAt);

      expect(await requested.step(20)).toBe(true); // the next request, whole
      expect(await requested.step(20)).toBe(false); // nothing open
      expect(await getBackfillRequest(harness.pool, wrong.id)).toEqual(cancelled);
      expect(await getBackfillRequest(harness.pool, next.id)).toMatchObject({
        nextBlock: 7,
        finishedAt: expect.any(Date),
        cancelledAt: null,
      });
      const numbers = (await harness.readEvents()).map((e) => [e.type, e.block.number]);
      expect(numbers).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 4, 5, 6].map((n) => ['confirmed', n]));
      expect(await metricLine(metrics, 'tributary_follower_backfill_requested_blocks_total')).toBe(
        `tributary_follower_backfill_requested_blocks_total{chain_id="31337",service="chain-follower-test"} 14`,
      );
      expect(await metricLine(metrics, 'tributary_follower_backfill_requested_blocks_remaining')).toBe(
        `tributary_follower_backfill_requested_blocks_remaining{chain_id="31337",service="chain-follower-test"} 0`,
      );
    } finally {
      await producer.disconnect();
      await harness.close();
      await anvil.stop();
    }
  });
});
