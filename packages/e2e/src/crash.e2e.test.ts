import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { startAnvil } from '@tributary/testkit';
import type { PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertTablesMatchChain } from './harness/assertTablesMatchChain.ts';
import { readChain } from './harness/chainTruth.ts';
import { createGatewayClient } from './harness/createGatewayClient.ts';
import { expectGatewayMatchesChain } from './harness/expectGatewayMatchesChain.ts';
import { followerCheckpoint, projectedHead, waitProjected } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { alice, bob, mine, tokenActivity } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// SIGKILL is a crash: no shutdown hook runs, nothing in flight is flushed or committed. After a
// restart, the follower resumes from its durable checkpoint and the projector from its committed
// offsets; idempotent writes make the replayed part a no-op.
let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  // ~200 blocks of history, token activity spread through it.
  for (let round = 0n; round < 4n; round++) {
    await tokenActivity(client, demo, round);
    await mine(client, 40);
  }
  pipeline = await startPipeline({
    name: 'crash',
    apps: ['projector', 'gateway'],
    anvil,
    env: {
      // Small steps, so that there is a "middle" of the backfill to crash in.
      'chain-follower': {
        RANGE_BLOCKS: '1',
        MAX_RANGE_BLOCKS: '1',
        MAX_BATCH_BLOCKS: '2',
        HEAD_BATCH_BLOCKS: '2',
        RPC_CONCURRENCY: '1',
      },
      projector: { KAFKA_MAX_BYTES_PER_PARTITION: '1024' },
    },
  });
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

describe('crashes lose no data', () => {
  it('SIGKILL of the follower mid-backfill and of the projector mid-stream: no block skipped, no row doubled', async () => {
    const head = Number(await chain.getBlockNumber({ cacheTime: 0 }));
    expect(head).toBeGreaterThan(150);

    await pipeline.start('chain-follower');
    const first = await waitFor('the follower to checkpoint 20 blocks', async () => {
      const cp = await followerCheckpoint(pipeline.pool);
      return cp >= 20 ? cp : undefined;
    });
    const killed = await pipeline.kill('chain-follower');
    expect(killed.signal).toBe('SIGKILL');
    const checkpointAtCrash = await followerCheckpoint(pipeline.pool);
    expect(checkpointAtCrash).toBeGreaterThanOrEqual(first);
    expect(checkpointAtCrash).toBeLessThan(head); // it crashed in the middle of the backfill

    await pipeline.start('chain-follower');
    const projectedBefore = await projectedHead(pipeline.pool);
    await waitFor('the projector to make progress', async () => {
      return (await projectedHead(pipeline.pool)) > projectedBefore + 5;
    });
    expect((await pipeline.kill('projector')).signal).toBe('SIGKILL');
    const projectedAtCrash = await projectedHead(pipeline.pool);
    expect(projectedAtCrash).toBeLessThan(head); // it crashed with blocks still to project

    await pipeline.start('projector');
    // New blocks at the head after both restarts.
    await tokenActivity(client, demo, 9n);
    await mine(client, 2);
    // After a SIGKILL the projector's group waits for the dead member's session to expire (30 s).
    await waitProjected(pipeline, chain, 120_000);

    await assertTablesMatchChain(pipeline.pool, chain);
    await expectGatewayMatchesChain({
      gw: createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key),
      chain,
      snapshot: await readChain(chain),
      wallets: [client.account.address, alice, bob, demo.emitter],
      tokens: [demo.demo, demo.six, demo.bytes32, demo.reverting],
    });
  }, 240_000);
});
