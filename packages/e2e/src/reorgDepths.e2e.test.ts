import { demoTokenAbi } from '@tributary/contracts';
import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { startAnvil } from '@tributary/testkit';
import Moralis from 'moralis';
import { type Abi, type Address, type Hash, type PublicClient, keccak256, toBytes } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertTablesMatchChain } from './harness/assertTablesMatchChain.ts';
import { TRANSFER_TOPIC0 } from './harness/chainTruth.ts';
import { createGatewayClient } from './harness/createGatewayClient.ts';
import { waitProjected } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { alice, bob, mine, send } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// Reorgs of depth 1, 2, 5, 20 and 64 on anvil (evm_snapshot / evm_revert, then a longer branch)
// while a stream watches the token: the tables converge to the canonical chain each time, an
// orphaned block's unconfirmed webhook is never followed by a confirmed one, and the stream (which
// opted in to removal notices) gets a signed removal notice for each orphaned block, and only for those.
const CONFIRMATIONS = 70;
const erc20 = demoTokenAbi as Abi;
let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let receiver: WebhookReceiver;
let streamId: string;
let secret: string;
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  await send(client, demo.demo, erc20, 'mint', [client.account.address, 10n ** 24n]);
  receiver = await startWebhookReceiver();
  pipeline = await startPipeline({
    name: 'reorg-depths',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil,
    env: { 'chain-follower': { CONFIRMATIONS: String(CONFIRMATIONS) } },
  });
  await waitProjected(pipeline, chain);
  const gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  secret = (await gw.get('/settings')).body.secretKey;
  await Moralis.start({ apiKey: pipeline.apiKey.key, streamsSecret: secret });
  const created = await gw.request('PUT', '/streams/evm', {
    webhookUrl: receiver.url,
    description: 'reorgs',
    tag: 'reorgs',
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    notifyRemovals: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
  });
  expect(created.status).toBe(200);
  streamId = created.body.id;
  expect((await gw.request('POST', `/streams/evm/${streamId}/address`, { address: demo.demo })).status).toBe(
    200,
  );
  // The first block mined once both calls have answered is evaluated against the stream.
  const first = await transferBlock(client.account.address, 1n);
  await waitFor("the first block's webhook", () => webhooks(first, false).length > 0, {
    timeoutMs: 90_000,
    diagnostics: () => pipeline.diagnostics(),
  });
}, 240_000);

afterAll(async () => {
  await pipeline?.close();
  await receiver?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

const ofBlock = (blockHash: string) =>
  receiver.received.filter((w) => w.body?.streamId === streamId && w.body.block?.hash === blockHash);
const webhooks = (blockHash: string, confirmed: boolean) =>
  ofBlock(blockHash).filter((w) => w.body.confirmed === confirmed && w.body.removed === undefined);
const removals = (blockHash: string) => ofBlock(blockHash).filter((w) => w.body.removed !== undefined);

/** One transfer of the watched token in a block of its own; returns the block's hash. */
async function transferBlock(to: Address, value: bigint): Promise<Hash> {
  const hash = await send(client, demo.demo, erc20, 'transfer', [to, value]);
  return (await chain.getTransactionReceipt({ hash })).blockHash;
}

describe('reorgs while a stream is active', () => {
  it('depths 1, 2, 5, 20 and 64: tables match the canonical chain; orphaned blocks never get a confirmed webhook', async () => {
    const orphaned: Hash[] = [];
    for (const depth of [1, 2, 5, 20, 64]) {
      const snapshot = (await client.request({ method: 'evm_snapshot' } as never)) as string;
      const branch: Hash[] = [];
      for (let i = 0; i < depth; i++) branch.push(await transferBlock(alice, BigInt(depth * 1_000 + i)));
      await waitProjected(pipeline, chain);
      // The branch was seen: its newest block's unconfirmed webhook arrived.
      await waitFor(
        `the unconfirmed webhook of the depth-${depth} branch`,
        () => webhooks(branch.at(-1)!, false).length > 0,
        {
          timeoutMs: 60_000,
          diagnostics: () => pipeline.diagnostics(),
        },
      );
      await client.request({ method: 'evm_revert', params: [snapshot] } as never);
      for (let i = 0; i <= depth; i++) await transferBlock(bob, BigInt(depth * 1_000 + 500 + i));
      orphaned.push(...branch);
      await waitProjected(pipeline, chain, 120_000);
      await assertTablesMatchChain(pipeline.pool, chain);
    }

    // Every block confirmed: the canonical blocks' confirmed webhooks come, the orphans' never.
    await mine(client, CONFIRMATIONS + 2);
    const head = await waitProjected(pipeline, chain, 120_000);
    const canonical: Hash[] = [];
    for (const log of await chain.getLogs({ address: demo.demo, fromBlock: 0n, toBlock: head.number }))
      if (log.topics[0] === TRANSFER_TOPIC0 && webhooks(log.blockHash, false).length > 0)
        canonical.push(log.blockHash);
    const last = canonical.at(-1)!;
    await waitFor('the last canonical block confirmed', () => webhooks(last, true).length > 0, {
      timeoutMs: 120_000,
      diagnostics: () => pipeline.diagnostics(),
    });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(orphaned).toHaveLength(1 + 2 + 5 + 20 + 64);
    expect(orphaned.every((h) => webhooks(h, false).length > 0)).toBe(true);
    expect(orphaned.filter((h) => webhooks(h, true).length > 0)).toEqual([]);
    expect(canonical.filter((h) => webhooks(h, true).length === 0)).toEqual([]);

    // Removal notices: one delivery per orphaned block (a retry keeps its webhook-id), carrying
    // exactly what its unconfirmed webhook carried, marked removed; none for a canonical block.
    await waitFor(
      'a removal notice for every orphaned block',
      () => orphaned.every((h) => removals(h).length > 0),
      {
        timeoutMs: 60_000,
        diagnostics: () => pipeline.diagnostics(),
      },
    );
    for (const hash of orphaned) {
      const notices = removals(hash);
      expect(new Set(notices.map((n) => n.headers['webhook-id'])).size).toBe(1);
      const notice = notices[0]!;
      const original = webhooks(hash, false)[0]!;
      expect(notice.headers['webhook-id']).not.toBe(original.headers['webhook-id']);
      expect(notice.body).toEqual({ ...original.body, removed: true, retries: notice.body.retries });
      expect(Object.keys(notice.body).slice(0, 2)).toEqual(['confirmed', 'removed']);
      expect(notice.body.erc20Transfers).toHaveLength(1);
      // Signed like every webhook: over the exact bytes, and as the official SDK checks it.
      const signature = notice.headers['x-signature'] as string;
      expect(signature).toBe(keccak256(toBytes(notice.raw + secret)));
      expect(Moralis.Streams.verifySignature({ body: notice.body, signature })).toBe(true);
    }
    expect(canonical.filter((h) => removals(h).length > 0)).toEqual([]);
    await assertTablesMatchChain(pipeline.pool, chain);
  }, 600_000);
});

it('received only bodies of the webhook body contract', () => {
  expect(receiver.offContract().map((w) => [w.path, w.contractIssues])).toEqual([]);
});
