import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type WebhookLedger, startWebhookLedger } from '../chaos/webhookLedger.ts';
import { countStreamWebhooks } from '../kinds/countStreamWebhooks.ts';
import { type ChainDriver, createChainDriver } from '../kinds/createChainDriver.ts';
import { type RunStream, createKindStream } from '../kinds/createKindStream.ts';
import { owedWebhooks } from '../kinds/owedWebhooks.ts';
import { readChainBlocks } from '../kinds/readChainBlocks.ts';
import type { DeployedKind } from '../kinds/streamKind.ts';
import { deployKinds, streamKinds } from '../kinds/streamKinds.ts';
import { createGatewayClient } from './harness/createGatewayClient.ts';
import { followerCheckpoint } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { waitFor } from './harness/waitFor.ts';

// For every kind of stream (kinds/streamKinds.ts, the chaos command's), the follower's catch-up
// path: the stream is created, the follower stops, blocks with every kind's activity are mined
// until they are deeper than the confirmation depth, and the follower comes back. It publishes
// them already final, at once; each block the stream is owed (read from the chain) must bring its
// unconfirmed and its confirmed webhook, with exactly the items the chain says. Each test's
// streams are deleted after it: the follower fetches for what the remaining streams read only.
const CONFIRMATIONS = 3;
const BLOCKS = 3;
const CHAIN_ID = 31337;
const kindsInOrder = streamKinds({ logsPerTx: 5 });

let anvil: StartedAnvil;
let driver: ChainDriver;
let kinds: DeployedKind[];
let ledger: WebhookLedger;
let pipeline: Pipeline;

beforeAll(async () => {
  anvil = await startAnvil({ automine: false });
  driver = createChainDriver({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID });
  kinds = await deployKinds(driver, kindsInOrder);
  ledger = await startWebhookLedger({ maxLatencyMs: 0 });
  pipeline = await startPipeline({
    name: 'catch-up',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil,
    env: { 'chain-follower': { CONFIRMATIONS: String(CONFIRMATIONS) } },
  });
  ledger.setSecret(pipeline.apiKey.webhookSecret);
  await followerAtHead();
}, 240_000);

afterAll(async () => {
  await pipeline?.close();
  await ledger?.close();
  await anvil?.stop();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

async function followerAtHead(): Promise<number> {
  const head = await driver.head();
  await waitFor(
    `the follower at block ${head}`,
    async () => (await followerCheckpoint(pipeline.pool)) >= head,
    {
      timeoutMs: 90_000,
      diagnostics: () => pipeline.diagnostics(),
    },
  );
  return head;
}

/** One block with every kind's activity (the stream's own and the others', which it must not get). */
const activityBlock = (round: number) =>
  driver.mineBlock(async (send) => {
    await Promise.all(kinds.map((k) => k.act(send, round)));
  });

async function createStreams(kind: DeployedKind): Promise<RunStream[]> {
  const access = { gatewayUrl: pipeline.gatewayUrl, apiKey: pipeline.apiKey.key, webhookUrl: ledger.url };
  const streams: RunStream[] = [];
  for (const stream of kind.streams)
    streams.push(
      await createKindStream({
        access,
        kind: kind.name,
        stream,
        label: stream.label,
        chainId: CHAIN_ID,
        pool: pipeline.pool,
        head: driver.head,
      }),
    );
  return streams;
}

/** Waits for every webhook the chain owes the streams (blocks `from`..head), then counts them with their items. */
async function countAfterCatchUp(
  streams: RunStream[],
  kind: DeployedKind,
  from: number,
  orphaned = new Map<string, number>(),
) {
  const blocks = await readChainBlocks(driver.client, from, await driver.head());
  const chain = { canonical: new Map(blocks.map((b) => [b.hash as string, b.number])), orphaned };
  const owed = await Promise.all(
    streams.map((s) => owedWebhooks(kind, s.stream, blocks, s.startBlock, driver.client)),
  );
  const count = (checkItems: boolean) =>
    streams.map((s, i) =>
      // The orphaned blocks were published (their unconfirmed webhooks came): each owes its notice.
      countStreamWebhooks(
        s,
        { canonical: owed[i]!, orphaned: new Set(orphaned.keys()) },
        chain,
        ledger.received,
        {
          checkItems,
        },
      ),
    );
  await waitFor('every owed webhook', () => count(false).every((c) => c.lost === 0), {
    timeoutMs: 120_000,
    diagnostics: () => `${JSON.stringify(count(false).map((c) => c.lostSample))}\n${pipeline.diagnostics()}`,
  });
  await new Promise((r) => setTimeout(r, 1_500)); // anything sent twice, or owed by nothing, has time to arrive
  return { owed, counts: count(true) };
}

describe('catch-up, every kind of stream', () => {
  it.each(
    kindsInOrder.filter((k) => k.name !== 'removalNotices').map((k) => k.name),
  )('%s: blocks first seen already final bring both webhooks, with every item', async (name) => {
    const kind = kinds.find((k) => k.name === name)!;
    await followerAtHead();
    const streams = await createStreams(kind);
    await pipeline.stop('chain-follower');
    const checkpoint = await followerCheckpoint(pipeline.pool);
    const first = (await driver.head()) + 1;
    for (let r = 0; r < BLOCKS; r++) await activityBlock(r);
    const last = first + BLOCKS - 1;
    await driver.mineEmpty(CONFIRMATIONS + 1);
    // The catch-up path: the follower missed these blocks, and they are final when it comes back.
    expect(checkpoint).toBeLessThan(first);
    expect((await driver.head()) - CONFIRMATIONS).toBeGreaterThanOrEqual(last);
    await pipeline.start('chain-follower');

    const { owed, counts } = await countAfterCatchUp(streams, kind, first);
    for (const [i, s] of streams.entries()) {
      const blocks = owed[i]!.size;
      // The kind's activity owes the stream webhooks (the contract logs' two emitters take turns,
      // the filter lets some values through).
      expect({ stream: s.label, blocks: blocks > 0 }).toEqual({ stream: s.label, blocks: true });
      const c = counts[i]!;
      expect({ stream: s.label, ...c }).toEqual({
        stream: s.label,
        expected: 2 * blocks,
        delivered: 2 * blocks,
        lost: 0,
        duplicated: c.duplicated,
        duplicatesWithNewId: 0,
        unexpected: 0,
        badSignatures: 0,
        notices: { expected: 0, delivered: 0 },
        items: { expected: c.items.expected, missing: 0, extra: 0 },
        lostSample: [],
        itemSample: [],
      });
      expect(c.items.expected).toBeGreaterThanOrEqual(2 * blocks);
    }
    const gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
    for (const s of streams)
      expect((await gw.request('DELETE', `/streams/evm/${s.id}`, {})).status).toBe(200);
  }, 180_000);

  it('removalNotices: a reorg while the follower is down brings a notice for each block it had published, and the new branch both webhooks', async () => {
    const kind = kinds.find((k) => k.name === 'removalNotices')!;
    await followerAtHead();
    const [stream] = await createStreams(kind);
    const snapshot = await driver.snapshot();
    const branch = [await activityBlock(0), await activityBlock(1)];
    const unconfirmed = (hash: string) =>
      ledger.received.some(
        (w) => w.streamId === stream!.id && w.blockHash === hash && !w.confirmed && !w.removed,
      );
    await waitFor(
      'the unconfirmed webhooks of the branch to be replaced',
      () => branch.every((b) => unconfirmed(b.hash)),
      {
        timeoutMs: 90_000,
        diagnostics: () => pipeline.diagnostics(),
      },
    );
    await pipeline.stop('chain-follower');
    await driver.revert(snapshot);
    const first = (await driver.head()) + 1;
    for (let r = 0; r < BLOCKS; r++) await activityBlock(10 + r);
    await driver.mineEmpty(CONFIRMATIONS + 1);
    expect(first).toBe(branch[0]!.number);
    await pipeline.start('chain-follower');

    const orphaned = new Map(branch.map((b) => [b.hash as string, b.number]));
    const { owed, counts } = await countAfterCatchUp([stream!], kind, first, orphaned);
    expect(owed[0]!.size).toBe(BLOCKS);
    const c = counts[0]!;
    // The new branch's webhooks, and for each replaced block its unconfirmed webhook and its notice.
    expect({ ...c, items: { ...c.items, expected: 0 } }).toEqual({
      expected: 2 * BLOCKS + 2 * branch.length,
      delivered: 2 * BLOCKS + 2 * branch.length,
      lost: 0,
      duplicated: c.duplicated,
      duplicatesWithNewId: 0,
      unexpected: 0,
      badSignatures: 0,
      notices: { expected: branch.length, delivered: branch.length },
      items: { expected: 0, missing: 0, extra: 0 },
      lostSample: [],
      itemSample: [],
    });
  }, 240_000);
});
