import { bytes32TokenAbi, demoTokenAbi, eventEmitterAbi } from '@tributary/contracts';
import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { startAnvil } from '@tributary/testkit';
import type { Abi, Address, Hash, PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertTablesMatchChain } from './harness/assertTablesMatchChain.ts';
import { contractLogs, expectedLogRecord, readChain } from './harness/chainTruth.ts';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { expectGatewayMatchesChain } from './harness/expectGatewayMatchesChain.ts';
import { waitProjected } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { BIG, alice, bob, send, tokenActivity } from './harness/tokenActivity.ts';

// A chain reorganisation seen by the whole pipeline: follower, projector and gateway as child
// processes; anvil's evm_snapshot/evm_revert replaces the newest blocks with a different branch.
let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let gw: GatewayClient;
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  await tokenActivity(client, demo, 1n);
  // Deeper than the reorg: the orphaned blocks were never confirmed.
  pipeline = await startPipeline({
    name: 'reorg',
    apps: ['chain-follower', 'projector', 'gateway'],
    anvil,
    env: { 'chain-follower': { CONFIRMATIONS: '5' } },
  });
  await waitProjected(pipeline, chain);
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

const erc20 = demoTokenAbi as Abi;

describe('a reorg through the whole pipeline', () => {
  it('replaces the orphaned branch: tables and gateway answers follow the new branch', async () => {
    const me = client.account.address;
    const wallets = [me, alice, bob, demo.emitter];
    const tokens: Address[] = [demo.demo, demo.six, demo.bytes32, demo.reverting];
    const snapshotId = (await client.request({ method: 'evm_snapshot' } as never)) as Hash;

    // Branch A: 3 blocks, served by the gateway before the reorg.
    await send(client, demo.demo, erc20, 'mint', [alice, 500n]);
    await send(client, demo.six, erc20, 'mint', [bob, BIG]);
    await send(client, demo.emitter, eventEmitterAbi as Abi, 'emitAll', [alice, bob, 1n]);
    await waitProjected(pipeline, chain);
    const branchA = await readChain(chain);
    await expectGatewayMatchesChain({ gw, chain, snapshot: branchA, wallets, tokens });
    const orphanHashes = [...branchA.blocks.values()]
      .filter((b) => b.number > branchA.head - 3n)
      .map((b) => b.hash);
    expect(orphanHashes).toHaveLength(3);

    // Branch B: 4 other blocks from the same parent.
    const reverted = await client.request({ method: 'evm_revert', params: [snapshotId] } as never);
    expect(reverted).toBe(true);
    await send(client, demo.demo, erc20, 'mint', [me, 777n]);
    await send(client, demo.demo, erc20, 'transfer', [bob, 77n]);
    await send(client, demo.six, erc20, 'mint', [alice, 3n]);
    await send(client, demo.bytes32, bytes32TokenAbi as Abi, 'transfer', [bob, 1n]);
    await waitProjected(pipeline, chain);

    const branchB = await readChain(chain);
    expect(branchB.head).toBe(branchA.head + 1n);
    for (const hash of orphanHashes)
      expect([...branchB.blocks.values()].map((b) => b.hash)).not.toContain(hash);
    await assertTablesMatchChain(pipeline.pool, chain);
    await expectGatewayMatchesChain({ gw, chain, snapshot: branchB, wallets, tokens });

    // The orphaned emitAll's logs are gone from the logs endpoint too.
    const oneIndexed = branchA.logs.find(
      (l) => l.address.toLowerCase() === demo.emitter.toLowerCase() && l.topics.length === 2,
    )!.topics[0]!;
    const logs = await gw.getAllPages(`/api/v2.2/${demo.emitter}/logs`, {
      chain: '0x7a69',
      topic0: oneIndexed,
      from_block: 0,
    });
    expect(logs.flatMap((p) => p.body.result)).toEqual(
      contractLogs(branchB, demo.emitter, oneIndexed).map((l) =>
        expectedLogRecord(l, branchB.blocks.get(l.blockNumber!)!),
      ),
    );
    expect(contractLogs(branchA, demo.emitter, oneIndexed).length).toBe(
      contractLogs(branchB, demo.emitter, oneIndexed).length + 1,
    );
    const raw = (
      await Promise.all(wallets.map((w) => gw.get(`/api/v2.2/${w}/erc20/transfers`, { chain: '0x7a69' })))
    ).map((r) => r.raw);
    for (const hash of orphanHashes) expect(raw.join('\n')).not.toContain(hash);
  });
});
