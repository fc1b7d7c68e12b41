import { valueForwarderAbi, valueForwarderBytecode } from '@tributary/contracts';
import { type DevnetClient, createDevnetClient, deploy, devnetAccount, waitMined } from '@tributary/devnet';
import { listOpenBackfills, requestBackfill } from '@tributary/db/chain';
import type { BlockEvent, FullBlockEvent } from '@tributary/schema';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import type { PublicClient } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { createFollowerHarness, waitFor } from '../testing/createFollowerHarness.ts';

const wallet = devnetAccount(3).address.toLowerCase() as `0x${string}`;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
}, 60_000);

/** A block with a native transfer to the wallet and a contract call that forwards value to it. */
async function walletActivity(client: DevnetClient, forwarder: `0x${string}`) {
  await waitMined(client, await client.sendTransaction({ to: wallet, value: 1_000n }));
  await waitMined(
    client,
    await client.writeContract({
      address: forwarder,
      abi: valueForwarderAbi,
      functionName: 'forward',
      args: [wallet],
      value: 700n,
    }),
  );
}

const mine = (client: DevnetClient, n: number) =>
  client.request({
    method: 'anvil_mine' as 'eth_chainId',
    params: [`0x${n.toString(16)}`] as unknown as undefined,
  });

const full = (events: BlockEvent[]) => events.filter((e): e is FullBlockEvent => e.type !== 'removed');

describe('what the follower fetches: what the streams read, on every path', { timeout: 120_000 }, () => {
  it('history no stream can read stays lean; every block after a stream that reads transactions and traces carries them, at the head, in catch-up, at confirmation and in a requested backfill', async () => {
    const anvil: StartedAnvil = await startAnvil();
    cleanup.push(() => anvil.stop());
    const client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
    const harness = await createFollowerHarness({ rpcUrl: anvil.rpcUrl, options: { maxBatchBlocks: 4 } });
    cleanup.push(() => harness.close());
    const chain = harness.rpc.client as PublicClient;
    const forwarder = (
      await deploy(client, valueForwarderAbi, valueForwarderBytecode, [])
    ).toLowerCase() as `0x${string}`;
    await walletActivity(client, forwarder); // history before any stream

    // 1) No stream: the history is published with its logs only.
    let follower = harness.startFollower();
    await harness.waitFollowed(follower);
    const startAfter = follower.follower.status().checkpoint;
    await harness.addStream({ includeNativeTxs: true, includeInternalTxs: true });

    // 2) At the head (new, then confirmed two blocks later).
    await walletActivity(client, forwarder);
    await mine(client, 3);
    await harness.waitFollowed(follower);
    await follower.stop();

    // 3) Catch-up: blocks mined while the follower was down, published at once as confirmed.
    await walletActivity(client, forwarder);
    await mine(client, 6);
    follower = harness.startFollower();
    await harness.waitFollowed(follower);

    // 4) A requested backfill over the whole chain, after the stream's start included.
    const head = Number(await chain.getBlockNumber({ cacheTime: 0 }));
    await requestBackfill(harness.pool, { chainId: 31337, fromBlock: 0, toBlock: head - 2 });
    await waitFor(
      async () => (await listOpenBackfills(harness.pool)).length === 0,
      60_000,
      'the backfill request to finish',
    );
    await follower.stop();

    const events = full(await harness.readEvents());
    const lean = events.filter((e) => e.block.number <= startAfter);
    const readable = events.filter((e) => e.block.number > startAfter);
    // Every path met blocks after the stream's start: head (new), confirmation, catch-up and the request.
    expect(readable.some((e) => e.type === 'new')).toBe(true);
    expect(readable.filter((e) => e.type === 'confirmed').length).toBeGreaterThan(
      readable.filter((e) => e.type === 'new').length,
    );
    expect(lean.length).toBeGreaterThan(0);
    // History before the stream that the follower published on its own first pass is lean.
    const firstPass = new Map<number, FullBlockEvent>();
    for (const e of events) if (!firstPass.has(e.block.number)) firstPass.set(e.block.number, e);
    for (const e of firstPass.values())
      if (e.block.number <= startAfter)
        expect({ block: e.block.number, has: [e.hasTransactions, e.hasInternalTransactions] }).toEqual({
          block: e.block.number,
          has: [false, false],
        });

    // After the start: every event carries exactly the chain's transactions and internal transactions.
    for (const e of readable) {
      const block = await chain.getBlock({ blockNumber: BigInt(e.block.number) });
      expect({
        block: e.block.number,
        type: e.type,
        has: [e.hasTransactions, e.hasInternalTransactions],
      }).toEqual({
        block: e.block.number,
        type: e.type,
        has: [true, true],
      });
      expect(e.transactions.map((t) => t.hash)).toEqual(block.transactions);
    }
    const forwarded = readable.flatMap((e) =>
      e.internalTransactions.map((t) => `${e.block.number}:${t.to}:${t.value}`),
    );
    const forwardBlocks = readable.filter((e) => e.transactions.some((t) => t.to === forwarder));
    expect(forwardBlocks.length).toBeGreaterThanOrEqual(2);
    for (const e of forwardBlocks) expect(forwarded).toContain(`${e.block.number}:${wallet}:700`);
  });
});
