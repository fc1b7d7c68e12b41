import { demoTokenAbi } from '@tributary/contracts';
import { createDevnetClient, deployDemo, devnetAccount, waitMined } from '@tributary/devnet';
import { getBackfillRequest, requestBackfill } from '@tributary/db';
import type { BlockEvent } from '@tributary/schema';
import { startAnvil } from '@tributary/testkit';
import { describe, expect, it } from 'vitest';
import { createFollowerHarness, waitFor } from '../testing/createFollowerHarness.ts';

const content = (e: BlockEvent) => {
  if (e.type === 'removed') return e;
  // A token's metadata and a party's kind travel once, with the first block that shows them.
  const { tokens: _tokens, accounts: _accounts, type: _type, ...rest } = e;
  return rest;
};

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
});
