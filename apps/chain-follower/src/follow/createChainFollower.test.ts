import {
  bytes32TokenAbi,
  demoMultiTokenAbi,
  demoMultiTokenBytecode,
  demoNftAbi,
  demoNftBytecode,
  demoTokenAbi,
  eventEmitterAbi,
  revertingMetadataTokenAbi,
} from '@tributary/contracts';
import {
  type DemoDeployment,
  type DevnetClient,
  createDevnetClient,
  deploy,
  deployDemo,
  devnetAccount,
  waitMined,
} from '@tributary/devnet';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import type { BlockEvent } from '@tributary/schema';
import type { PublicClient } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { createFollowerHarness } from '../testing/createFollowerHarness.ts';

const alice = devnetAccount(1).address;
const bob = devnetAccount(2).address;
const BIG = 2n ** 70n + 12345n; // above 2^64: must survive every hop exactly

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
}, 60_000);

async function setup(options: Parameters<typeof createFollowerHarness>[0]['options'] = {}) {
  const anvil: StartedAnvil = await startAnvil();
  cleanup.push(() => anvil.stop());
  const client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  const harness = await createFollowerHarness({ rpcUrl: anvil.rpcUrl, options });
  cleanup.push(() => harness.close());
  return { anvil, client, harness, publicClient: harness.rpc.client as PublicClient };
}

async function send(client: DevnetClient, p: Promise<`0x${string}`>) {
  return waitMined(client, await p);
}

/** Mints, transfers (self, zero value, > 2^64), burns, old-style and broken tokens, events with 0-3 indexed args. */
async function tokenActivity(client: DevnetClient, demo: DemoDeployment, salt: bigint) {
  const me = client.account.address;
  const w = (address: `0x${string}`, functionName: string, args: readonly unknown[]) =>
    send(
      client,
      client.writeContract({
        address,
        abi: demoTokenAbi,
        functionName: functionName as 'mint',
        args: args as [`0x${string}`, bigint],
      }),
    );
  await w(demo.demo, 'mint', [me, 10n ** 21n + salt]);
  await w(demo.demo, 'transfer', [alice, 10n ** 18n + salt]);
  await w(demo.demo, 'transfer', [me, 5n]); // self-transfer
  await w(demo.demo, 'transfer', [bob, 0n]); // zero value
  await w(demo.six, 'mint', [bob, BIG + salt]);
  await send(
    client,
    client.writeContract({ address: demo.demo, abi: demoTokenAbi, functionName: 'burn', args: [7n + salt] }),
  );
  await send(
    client,
    client.writeContract({
      address: demo.bytes32,
      abi: bytes32TokenAbi,
      functionName: 'mint',
      args: [me, 1000n + salt],
    }),
  );
  await send(
    client,
    client.writeContract({
      address: demo.bytes32,
      abi: bytes32TokenAbi,
      functionName: 'transfer',
      args: [alice, 10n],
    }),
  );
  await send(
    client,
    client.writeContract({
      address: demo.reverting,
      abi: revertingMetadataTokenAbi,
      functionName: 'mint',
      args: [me, 99n + salt],
    }),
  );
  await send(
    client,
    client.writeContract({
      address: demo.reverting,
      abi: revertingMetadataTokenAbi,
      functionName: 'transfer',
      args: [demo.emitter, 9n],
    }),
  );
  await send(
    client,
    client.writeContract({
      address: demo.emitter,
      abi: eventEmitterAbi,
      functionName: 'emitAll',
      args: [alice, bob, 42n + salt],
    }),
  );
}

/**
 * The block each number ends up with (its last new/confirmed event, after any removal) carries the
 * chain's hash, parent hash, timestamp and exactly the chain's logs.
 */
async function expectEventsMatchChain(events: BlockEvent[], client: PublicClient, head: number) {
  const latest = new Map<number, BlockEvent>();
  for (const e of events) {
    if (e.type === 'removed') {
      if (latest.get(e.block.number)?.block.hash === e.block.hash) latest.delete(e.block.number);
    } else latest.set(e.block.number, e);
  }
  expect([...latest.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
  const chainLogs = await client.getLogs({ fromBlock: 0n, toBlock: BigInt(head) });
  for (const [number, e] of latest) {
    if (e.type === 'removed') continue;
    const b = await client.getBlock({ blockNumber: BigInt(number) });
    expect({ number, hash: e.block.hash, parent: e.block.parentHash, ts: e.block.timestamp }).toEqual({
      number,
      hash: b.hash,
      parent: b.parentHash,
      ts: Number(b.timestamp),
    });
    expect(e.logs.map((l) => [l.logIndex, l.transactionHash, l.address, l.topics, l.data])).toEqual(
      chainLogs
        .filter((l) => Number(l.blockNumber) === number)
        .map((l) => [l.logIndex, l.transactionHash, l.address.toLowerCase(), l.topics, l.data]),
    );
    // ERC20 transfers as the chain's Transfer logs say (3 topics: ERC721 has 4), by log index.
    const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    expect(e.transfers).toEqual(
      chainLogs
        .filter((l) => Number(l.blockNumber) === number && l.topics.length === 3 && l.topics[0] === TRANSFER)
        .map((l) => ({
          logIndex: l.logIndex,
          from: `0x${l.topics[1]!.slice(26)}`,
          to: `0x${l.topics[2]!.slice(26)}`,
          value: BigInt(l.data).toString(),
        })),
    );
  }
}

describe('chain-follower -> Kafka', { timeout: 90_000 }, () => {
  it('publishes backfill and head blocks as the chain has them, none skipped, confirmed at depth', async () => {
    const { client, harness, publicClient } = await setup();
    const demo = await deployDemo(client);
    await tokenActivity(client, demo, 1n); // history: backfilled (published as confirmed)
    // A stream that reads transactions: the blocks after it carry them.
    await harness.addStream({ includeNativeTxs: true });

    const follower = harness.startFollower();
    await harness.waitFollowed(follower);
    await tokenActivity(client, demo, 2n); // at the head: new, then confirmed two blocks later
    await client.request({ method: 'anvil_mine' as 'eth_chainId', params: ['0x2'] as unknown as undefined });
    await harness.waitFollowed(follower);
    await follower.stop();
    const head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }));

    // Every block was published once as new or confirmed-at-once, in order, none skipped.
    const events = await harness.readEvents();
    const firsts = events
      .filter((e) => e.type === 'new' || e.type === 'confirmed')
      .map((e) => e.block.number);
    expect([...new Set(firsts)].sort((a, b) => a - b)).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
    await expectEventsMatchChain(events, publicClient, head);
    const withTx = events.find((e) => e.type === 'new' && e.transactions.length > 0);
    expect(withTx?.type === 'new' && withTx.hasTransactions).toBe(true);

    // The last two blocks are not yet two deep: new, never confirmed; the rest got confirmed.
    const confirmed = new Set(events.filter((e) => e.type === 'confirmed').map((e) => e.block.number));
    expect([head - 1, head].filter((n) => confirmed.has(n))).toEqual([]);
    expect(Array.from({ length: head - 1 }, (_, i) => i).filter((n) => !confirmed.has(n))).toEqual([]);

    // Each token's metadata travels once, with the block that first shows it.
    const tokens = events.flatMap((e) => (e.type === 'removed' ? [] : e.tokens));
    expect(
      [...new Map(tokens.map((t) => [t.address, [t.address, t.name, t.symbol, t.decimals]])).values()].sort(),
    ).toEqual(
      [
        [demo.bytes32.toLowerCase(), 'Bytes Token', 'BYT', 18],
        [demo.demo.toLowerCase(), 'Demo Token', 'DEMO', 18],
        [demo.six.toLowerCase(), 'Six Decimals', 'SIX', 6],
        [demo.reverting.toLowerCase(), null, null, null],
      ].sort(),
    );

    // Every block names each of its tokens, so a consumer never needs another's tables.
    const byAddress = new Map(tokens.map((t) => [t.address, t]));
    for (const e of events) {
      if (e.type === 'removed') continue;
      // A transfer's token is the address of the log it names.
      const logAddress = new Map(e.logs.map((l) => [l.logIndex, l.address]));
      const expected = [...new Set(e.transfers.map((t) => logAddress.get(t.logIndex)!))].map((a) => {
        const t = byAddress.get(a)!;
        return { address: a, name: t.name, symbol: t.symbol, decimals: t.decimals };
      });
      expect(e.tokenInfo).toEqual(expected);
    }
  });

  it('names each NFT contract with events in a block: name, symbol and ERC165 standard, read from the chain', async () => {
    const { client, harness } = await setup();
    const me = client.account.address;
    const nft = await deploy(client, demoNftAbi, demoNftBytecode, ['Kitties', 'KIT']);
    const multi = await deploy(client, demoMultiTokenAbi, demoMultiTokenBytecode, ['Items', 'ITM']);
    const follower = harness.startFollower();
    await harness.waitFollowed(follower);
    await send(
      client,
      client.writeContract({ address: nft, abi: demoNftAbi, functionName: 'mint', args: [me, 7n] }),
    );
    await send(
      client,
      client.writeContract({
        address: nft,
        abi: demoNftAbi,
        functionName: 'setApprovalForAll',
        args: [bob, true],
      }),
    );
    await send(
      client,
      client.writeContract({
        address: multi,
        abi: demoMultiTokenAbi,
        functionName: 'mint',
        args: [alice, 3n, BIG],
      }),
    );
    await harness.waitFollowed(follower);
    await follower.stop();

    // Each block's first event (new, or confirmed at once when the follower found it already deep).
    const firstOf = new Map<number, [unknown, unknown, unknown]>();
    for (const e of await harness.readEvents()) {
      if (e.type !== 'removed' && e.tokenInfo.length > 0 && !firstOf.has(e.block.number))
        firstOf.set(e.block.number, [e.transfers, e.tokens, e.tokenInfo]);
    }
    const named = [...firstOf].sort(([a], [b]) => a - b).map(([, v]) => v);
    const kit = {
      address: nft.toLowerCase(),
      name: 'Kitties',
      symbol: 'KIT',
      decimals: null,
      contractType: 'ERC721',
    };
    const itm = {
      address: multi.toLowerCase(),
      name: 'Items',
      symbol: 'ITM',
      decimals: null,
      contractType: 'ERC1155',
    };
    // No ERC20 transfers and no tokens rows: NFT contracts are only named, in every block with their events.
    expect(named).toEqual([
      [[], [], [kit]],
      [[], [], [kit]],
      [[], [], [itm]],
    ]);
  });

  it('publishes removed (newest first) before the new branch on a reorg; the orphans never confirm', async () => {
    const { client, harness, publicClient } = await setup({ confirmations: 5 });
    const demo = await deployDemo(client);
    const follower = harness.startFollower();
    await harness.waitFollowed(follower);

    const fork = Number(await publicClient.getBlockNumber({ cacheTime: 0 }));
    const snapshot = await client.request({ method: 'evm_snapshot' as 'eth_chainId' });
    const me = client.account.address;
    await send(
      client,
      client.writeContract({
        address: demo.demo,
        abi: demoTokenAbi,
        functionName: 'mint',
        args: [alice, 500n],
      }),
    );
    await send(
      client,
      client.writeContract({ address: demo.six, abi: demoTokenAbi, functionName: 'mint', args: [bob, BIG] }),
    );
    await send(
      client,
      client.writeContract({
        address: demo.emitter,
        abi: eventEmitterAbi,
        functionName: 'emitAll',
        args: [alice, bob, 1n],
      }),
    );
    await harness.waitFollowed(follower);
    const orphanHead = Number(await publicClient.getBlockNumber({ cacheTime: 0 }));

    await client.request({
      method: 'evm_revert' as 'eth_chainId',
      params: [snapshot] as unknown as undefined,
    });
    await send(
      client,
      client.writeContract({ address: demo.demo, abi: demoTokenAbi, functionName: 'mint', args: [me, 777n] }),
    );
    await send(
      client,
      client.writeContract({
        address: demo.demo,
        abi: demoTokenAbi,
        functionName: 'transfer',
        args: [bob, 77n],
      }),
    );
    await send(
      client,
      client.writeContract({ address: demo.six, abi: demoTokenAbi, functionName: 'mint', args: [alice, 3n] }),
    );
    await send(
      client,
      client.writeContract({ address: demo.demo, abi: demoTokenAbi, functionName: 'burn', args: [7n] }),
    );
    await harness.waitFollowed(follower);
    await follower.stop();

    const events = await harness.readEvents();
    const head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }));
    await expectEventsMatchChain(events, publicClient, head);
    const removed = events.filter((e) => e.type === 'removed');
    const orphans = Array.from({ length: orphanHead - fork }, (_, i) => orphanHead - i);
    expect(removed.map((e) => e.block.number)).toEqual(orphans);
    const firstRemoved = events.findIndex((e) => e.type === 'removed');
    const lastOld = events.findLastIndex(
      (e, i) => i < firstRemoved && e.type === 'new' && e.block.number === orphanHead,
    );
    const firstNewBranch = events.findIndex(
      (e) =>
        e.type === 'new' &&
        e.block.number === fork + 1 &&
        !removed.some((r) => r.block.hash === e.block.hash),
    );
    expect(lastOld).toBeGreaterThanOrEqual(0);
    expect(firstNewBranch).toBeGreaterThan(events.findLastIndex((e) => e.type === 'removed'));
    // An orphaned block never gets its confirmed event.
    const orphanHashes = new Set(removed.map((e) => e.block.hash));
    expect(events.filter((e) => e.type === 'confirmed' && orphanHashes.has(e.block.hash))).toEqual([]);
  });

  it('resumes from its checkpoint after a restart without skipping a block', async () => {
    const { client, harness, publicClient } = await setup({
      maxBatchBlocks: 3,
      rangeBlocks: 1,
      maxRangeBlocks: 1,
      rpcConcurrency: 1,
    });
    const demo = await deployDemo(client);
    for (let i = 0n; i < 4n; i++) await tokenActivity(client, demo, i);
    const head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }));
    expect(head).toBeGreaterThan(40);

    const first = harness.startFollower();
    const stopAt = 12;
    for (;;) {
      if (first.follower.status().checkpoint >= stopAt) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.stop();
    const stoppedAt = first.follower.status().checkpoint;
    expect(stoppedAt).toBeLessThan(head);
    const saved = await harness.pool.query(
      'SELECT block_number FROM follower_checkpoints WHERE chain_id = 31337',
    );
    expect(Number(saved.rows[0].block_number)).toBe(stoppedAt);

    const second = harness.startFollower();
    await harness.waitFollowed(second);
    await second.stop();

    const events = await harness.readEvents();
    await expectEventsMatchChain(events, publicClient, head);
    const numbers = events.filter((e) => e.type !== 'removed').map((e) => e.block.number);
    expect([...new Set(numbers)].sort((a, b) => a - b)).toEqual(
      Array.from({ length: head + 1 }, (_, i) => i),
    );
    // The restart resumed right after the checkpoint: nothing before it was published twice.
    const confirmedOnce = events.filter((e) => e.type === 'confirmed' && e.block.number <= stoppedAt).length;
    expect(confirmedOnce).toBe(stoppedAt + 1);
  });
});
