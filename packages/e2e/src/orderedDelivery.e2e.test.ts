import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { createReceiver } from '@tributary/receiver';
import { createTestDatabase, startAnvil } from '@tributary/testkit';
import express from 'express';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { signWebhook } from '@tributary/webhooks';
import type { PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import {
  type ReceivedWebhook,
  type WebhookReceiver,
  startWebhookReceiver,
} from './harness/startWebhookReceiver.ts';
import { mine, tokenActivity } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// An ordered stream ("ordered": true): its confirmed webhooks reach the receiver in block order,
// each only after the one before it got a 2xx, numbered 1, 2, 3... without a gap, through a
// receiver that fails a third of first attempts and SIGKILLs of the sender and the matcher.
let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let gw: GatewayClient;
let receiver: WebhookReceiver;
let stopAnvil: () => Promise<void> = async () => {};

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  receiver = await startWebhookReceiver();
  pipeline = await startPipeline({
    name: 'ordered',
    apps: ['chain-follower', 'projector', 'gateway', 'stream-matcher', 'webhook-sender'],
    anvil,
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  await receiver?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

const isOrdered = (w: ReceivedWebhook) => w.path === '/ordered' && w.body?.streamId;

describe('ordered delivery', () => {
  it('confirmed webhooks in block order, each after the previous 2xx, gap-free, through SIGKILLs', async () => {
    const created = await gw.request('PUT', '/streams/evm', {
      webhookUrl: `${receiver.url.replace(/\/webhook$/, '')}/ordered`,
      description: 'ordered',
      tag: 'ordered',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
      ordered: true,
    });
    expect(created.status).toBe(200);
    expect(created.body.ordered).toBe(true);
    const streamId = created.body.id as string;
    expect(
      (await gw.request('POST', `/streams/evm/${streamId}/address`, { address: demo.demo })).status,
    ).toBe(200);
    const from = Number(await chain.getBlockNumber({ cacheTime: 0 })) + 1;

    // A third of first attempts fail: the next number waits for the retry's 2xx.
    const tried = new Set<string>();
    receiver.answerWith((w) => {
      const id = String(w.headers['webhook-id']);
      const first = !tried.has(id);
      tried.add(id);
      return first && w.body?.confirmed === true && Number(w.body?.sequence) % 3 === 0 ? 500 : 200;
    });

    await tokenActivity(client, demo, 1n);
    await waitFor(
      'the first numbered webhooks',
      () => receiver.received.filter((w) => isOrdered(w) && w.body.sequence).length >= 2,
    );
    expect((await pipeline.kill('webhook-sender')).signal).toBe('SIGKILL');
    await tokenActivity(client, demo, 2n);
    await pipeline.start('webhook-sender');
    await tokenActivity(client, demo, 3n);
    expect((await pipeline.kill('stream-matcher')).signal).toBe('SIGKILL');
    await pipeline.start('stream-matcher');
    await tokenActivity(client, demo, 4n);
    await mine(client, 4); // every block confirmed
    const to = Number(await chain.getBlockNumber({ cacheTime: 0 })) - 2;

    const logs = await chain.getLogs({
      address: demo.demo,
      event: erc20TransferEventAbi,
      fromBlock: BigInt(from),
      toBlock: BigInt(to),
    });
    const blocks = [...new Set(logs.map((l) => Number(l.blockNumber)))].sort((a, b) => a - b);
    expect(blocks.length).toBeGreaterThan(10);

    const acked = await waitFor(
      'every numbered webhook acknowledged',
      () => {
        const got = new Map<number, ReceivedWebhook>();
        for (const w of receiver.received)
          if (isOrdered(w) && w.body.confirmed && w.acknowledged) got.set(Number(w.body.sequence), w);
        return got.size >= blocks.length ? got : undefined;
      },
      { timeoutMs: 180_000, diagnostics: () => pipeline.diagnostics() },
    );
    // 1..N, gap-free, in block order: sequence n is block n of the range's blocks with transfers.
    expect([...acked.keys()].sort((a, b) => a - b)).toEqual(blocks.map((_, i) => i + 1));
    const numbered = [...acked].sort(([a], [b]) => a - b).map(([, w]) => Number(w.body.block.number));
    expect(numbered).toEqual(blocks);
    for (const [n, w] of acked) {
      expect(w.body.sequence).toBe(String(n));
      expect(w.headers['x-signature']).toBe(signWebhook(w.raw, pipeline.apiKey.webhookSecret));
    }
    // Each request for n came after n - 1 got its 2xx (a repeat of n after a crash keeps its webhook-id).
    const ackedSoFar = new Set<number>();
    let failedFirst = 0;
    for (const w of receiver.received) {
      if (!isOrdered(w) || !w.body.confirmed) continue;
      const n = Number(w.body.sequence);
      if (n > 1) expect(ackedSoFar.has(n - 1), `webhook ${n} before ${n - 1} got its 2xx`).toBe(true);
      expect(w.headers['webhook-id']).toBe(acked.get(n)?.headers['webhook-id']);
      if (w.acknowledged) ackedSoFar.add(n);
      else failedFirst++;
    }
    expect(failedFirst).toBeGreaterThan(0);
    // Unconfirmed webhooks stay unnumbered.
    const unconfirmed = receiver.received.filter((w) => isOrdered(w) && w.body.confirmed === false);
    expect(unconfirmed.length).toBeGreaterThan(0);
    for (const w of unconfirmed) expect(w.body.sequence).toBeUndefined();

    // What the receiver should have received, by number.
    const page = await gw.get(`/streams/evm/${streamId}/sequence`, { from: 1, to: blocks.length });
    expect(page.status).toBe(200);
    expect(page.body.lastSequence).toBe(blocks.length);
    expect(page.body.result.map((r: { sequence: number }) => r.sequence)).toEqual(
      blocks.map((_, i) => i + 1),
    );
    for (const r of page.body.result) {
      expect(r.status).toBe('delivered');
      expect(r.payload.sequence).toBe(String(r.sequence));
      expect(r.deliveryId).toBe(acked.get(r.sequence)?.headers['webhook-id']);
    }
    // The history shows each body as the receiver got it, with its number.
    const history = await gw.get('/history', { limit: 100, streamId });
    const numberedInHistory = history.body.result.filter(
      (h: { payload: { confirmed: boolean } }) => h.payload.confirmed,
    );
    expect(
      numberedInHistory
        .map((h: { payload: { sequence: string } }) => Number(h.payload.sequence))
        .sort((a: number, b: number) => a - b),
    ).toEqual(blocks.map((_, i) => i + 1));
    expect((await gw.get(`/streams/evm/${streamId}/sequence`, { from: 5, to: 2 })).status).toBe(400);
    expect((await gw.get(`/streams/evm/${streamId}/sequence`, { from: 1, to: 500 })).status).toBe(400);
  }, 300_000);

  it('the receiver kit takes real ordered webhooks in order, and the webhooks of a backfill apart', async () => {
    const db = await createTestDatabase({ migrated: false });
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pool.on('error', () => undefined); // the drop at the end terminates connections still closing
    const handled: { sequence: bigint | undefined; backfillId: string | undefined; block: string }[] = [];
    const secret = (await gw.get('/settings')).body.secretKey as string;
    const receiver = createReceiver({
      pool,
      secrets: [secret],
      ordered: true,
      onWebhook: async (webhook, ctx) => {
        if (webhook.confirmed)
          handled.push({ sequence: ctx.sequence, backfillId: ctx.backfillId, block: webhook.block.number });
      },
    });
    const app = express();
    app.post('/kit', express.raw({ type: '*/*' }), async (req, res) => {
      const answer = await receiver.handle({ headers: req.headers, rawBody: req.body as Buffer });
      res.status(answer.status).json(answer.body);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const created = await gw.request('PUT', '/streams/evm', {
        webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/kit`,
        description: 'kit',
        tag: 'kit',
        chainIds: ['0x7a69'],
        includeContractLogs: true,
        topic0: ['Transfer(address,address,uint256)'],
        abi: [erc20TransferEventAbi],
        ordered: true,
      });
      expect(created.status).toBe(200);
      const streamId = created.body.id as string;
      await gw.request('POST', `/streams/evm/${streamId}/address`, { address: demo.demo });
      const from = Number(await chain.getBlockNumber({ cacheTime: 0 })) + 1;
      await tokenActivity(client, demo, 7n);
      await mine(client, 4);
      const live = new Set(
        (
          await chain.getLogs({
            address: demo.demo,
            event: erc20TransferEventAbi,
            fromBlock: BigInt(from),
            toBlock: BigInt(Number(await chain.getBlockNumber({ cacheTime: 0 })) - 2),
          })
        ).map((l) => String(l.blockNumber)),
      );
      await waitFor('the kit to handle every numbered webhook', () =>
        handled.filter((h) => h.sequence !== undefined).length >= live.size ? true : undefined,
      );
      const numbered = handled.filter((h) => h.sequence !== undefined);
      expect(numbered.map((h) => h.sequence)).toEqual(numbered.map((_, i) => BigInt(i + 1)));
      expect(numbered.map((h) => h.block)).toEqual([...live].sort((a, b) => Number(a) - Number(b)));

      // A backfill of the same range: marked, unnumbered, handed over as it comes.
      // Up to the last block with a transfer: final (blocks were mined after it).
      const asked = await gw.request('POST', `/streams/evm/${streamId}/backfill`, {
        chainId: '0x7a69',
        fromBlock: from,
        toBlock: Math.max(...[...live].map(Number)),
      });
      expect(asked.status).toBe(200);
      const done = await waitFor('every webhook of the backfill at the kit', async () => {
        const r = await gw.get(`/streams/evm/${streamId}/backfill/${asked.body.id}`);
        return r.body.status === 'done' && handled.filter((h) => h.backfillId).length === r.body.webhooks
          ? r.body
          : undefined;
      });
      expect(done.webhooks).toBe(live.size);
      for (const h of handled.filter((x) => x.backfillId)) {
        expect(h.backfillId).toBe(asked.body.id);
        expect(h.sequence).toBeUndefined();
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
      await db.drop();
    }
  }, 180_000);
});

it('received only bodies of the webhook body contract', () => {
  expect(receiver.offContract().map((w) => [w.path, w.contractIssues])).toEqual([]);
});
