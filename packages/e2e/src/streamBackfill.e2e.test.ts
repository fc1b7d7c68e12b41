import { createAccountWithKey } from '@tributary/db/accounts';
import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { signWebhook } from '@tributary/webhooks';
import { startAnvil } from '@tributary/testkit';
import type { PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { followerCheckpoint } from './harness/progress.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { mine, tokenActivity } from './harness/tokenActivity.ts';
import {
  type ReceivedWebhook,
  type WebhookReceiver,
  startWebhookReceiver,
} from './harness/startWebhookReceiver.ts';
import { waitFor } from './harness/waitFor.ts';

// Per-stream backfills (POST /streams/evm/{id}/backfill): a stream created after the blocks it
// wants gets their webhooks on request. The follower starts at FIRST_FOLLOWED, so the range's
// first blocks are read from the node and the rest from the query tables. Two kinds of stream:
// one that reads logs only, one that reads transactions (which the tables never hold: completed
// from the node for every block).
const FIRST_FOLLOWED = 40;
const CHAIN = '0x7a69';
/** A stream of the demo token's Transfer logs. */
const TRANSFER_LOGS = {
  includeContractLogs: true,
  topic0: ['Transfer(address,address,uint256)'],
  abi: [erc20TransferEventAbi],
};

let pipeline: Pipeline;
let client: DevnetClient;
let chain: PublicClient;
let demo: DemoDeployment;
let gw: GatewayClient;
let receiver: WebhookReceiver;
let stopAnvil: () => Promise<void> = async () => {};
let head = 0;

beforeAll(async () => {
  const anvil = await startAnvil();
  stopAnvil = anvil.stop;
  client = createDevnetClient({ rpcUrl: anvil.rpcUrl });
  chain = client as unknown as PublicClient;
  demo = await deployDemo(client);
  for (let round = 0n; round < 4n; round++) {
    await tokenActivity(client, demo, round);
    await mine(client, 12);
  }
  receiver = await startWebhookReceiver();
  pipeline = await startPipeline({
    name: 'stream-backfill',
    apps: ['chain-follower', 'projector', 'gateway', 'stream-matcher', 'webhook-sender'],
    anvil,
    env: {
      'chain-follower': { START_BLOCK: String(FIRST_FOLLOWED) },
      // Slow enough to be caught in the middle by a SIGKILL.
      'stream-matcher': {
        BACKFILL_CHUNK_BLOCKS: '4',
        BACKFILL_BLOCKS_PER_SECOND: '12',
        BACKFILL_POLL_MS: '200',
        BACKFILL_LEASE_MS: '3000',
      },
    },
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  head = Number(await chain.getBlockNumber({ cacheTime: 0 }));
  await mine(client, 4); // head is final once these are followed (CONFIRMATIONS 2)
  await waitFor(
    'the head to be projected as confirmed',
    async () => {
      const { rows } = await pipeline.pool.query<{ n: string | null }>(
        'SELECT max(number) AS n FROM blocks WHERE confirmed',
      );
      return Number(rows[0]?.n ?? -1) >= head;
    },
    { timeoutMs: 120_000, diagnostics: () => pipeline.diagnostics() },
  );
}, 240_000);

afterAll(async () => {
  await pipeline?.close();
  await receiver?.close();
  await stopAnvil();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

async function createStream(path: string, body: Record<string, unknown>, address: string): Promise<string> {
  const created = await gw.request('PUT', '/streams/evm', {
    webhookUrl: `${receiver.url.replace(/\/webhook$/, '')}/${path}`,
    description: path,
    tag: path,
    chainIds: [CHAIN],
    ...body,
  });
  expect(created.status).toBe(200);
  expect((await gw.request('POST', `/streams/evm/${created.body.id}/address`, { address })).status).toBe(200);
  return created.body.id;
}

/** The chain's truth: blocks of [from, to] with a Transfer log of the demo token, and their log counts. */
async function transferBlocks(from: number, to: number): Promise<Map<number, number>> {
  const logs = await chain.getLogs({
    address: demo.demo,
    event: erc20TransferEventAbi,
    fromBlock: BigInt(from),
    toBlock: BigInt(to),
  });
  const out = new Map<number, number>();
  for (const l of logs) out.set(Number(l.blockNumber), (out.get(Number(l.blockNumber)) ?? 0) + 1);
  return out;
}

/** Blocks of [from, to] with a transaction from the devnet account. */
async function txBlocks(from: number, to: number): Promise<Set<number>> {
  const out = new Set<number>();
  const me = client.account.address.toLowerCase();
  for (let n = from; n <= to; n++) {
    const block = await chain.getBlock({ blockNumber: BigInt(n), includeTransactions: true });
    if (block.transactions.some((t) => typeof t !== 'string' && t.from.toLowerCase() === me)) out.add(n);
  }
  return out;
}

async function finished(streamId: string, id: string) {
  return waitFor(
    `backfill ${id} to finish`,
    async () => {
      const r = await gw.get(`/streams/evm/${streamId}/backfill/${id}`);
      expect(r.status).toBe(200);
      return r.body.status === 'running' ? undefined : r.body;
    },
    { timeoutMs: 180_000, diagnostics: () => pipeline.diagnostics() },
  );
}

const backfillHits = (path: string, backfillId: string) =>
  receiver.received.filter((w) => w.path === `/${path}` && w.body?.backfillId === backfillId);

/** One webhook per block (a redelivery after a crash keeps its webhook-id), each signed. */
function byBlock(hits: ReceivedWebhook[]): Map<number, ReceivedWebhook> {
  const out = new Map<number, ReceivedWebhook>();
  for (const hit of hits) {
    expect(hit.headers['x-signature']).toBe(signWebhook(hit.raw, pipeline.apiKey.webhookSecret));
    expect(hit.body.confirmed).toBe(true);
    const n = Number(hit.body.block.number);
    const seen = out.get(n);
    if (seen) expect(hit.headers['webhook-id']).toBe(seen.headers['webhook-id']);
    else out.set(n, hit);
  }
  return out;
}

describe('per-stream backfill', () => {
  it('refuses what cannot be backfilled with a 4xx and a JSON body', async () => {
    const id = await createStream('refusals', TRANSFER_LOGS, demo.demo);
    const post = (body: unknown) => gw.request('POST', `/streams/evm/${id}/backfill`, body);
    const cases: [unknown, string][] = [
      [{ chainId: '0x1', fromBlock: 1, toBlock: 2 }, 'chainId'],
      [{ chainId: CHAIN, fromBlock: 5, toBlock: 2 }, 'fromBlock'],
      [{ chainId: CHAIN, fromBlock: 1, toBlock: 10_000_000 }, 'toBlock'],
      [{ chainId: CHAIN, fromBlock: -1, toBlock: 2 }, 'fromBlock'],
      [{ chainId: CHAIN, fromBlock: '1', toBlock: 2 }, 'fromBlock'],
      [{ chainId: 31337, fromBlock: 1, toBlock: 2 }, 'chainId'],
      [[1, 2], 'body'],
    ];
    for (const [body, field] of cases) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.details[field], JSON.stringify(r.body)).toBeDefined();
    }
    // Another account's stream, and an unknown backfill: not found.
    const other = await createAccountWithKey(pipeline.pool, { accountName: 'other' });
    const stranger = createGatewayClient(pipeline.gatewayUrl, other.key);
    expect(
      (
        await stranger.request('POST', `/streams/evm/${id}/backfill`, {
          chainId: CHAIN,
          fromBlock: 1,
          toBlock: 2,
        })
      ).status,
    ).toBe(404);
    expect((await gw.get(`/streams/evm/${id}/backfill/999999`)).status).toBe(404);
    expect((await gw.get(`/streams/evm/${id}/backfill/abc`)).status).toBe(404);
  });

  it('a dry run counts the blocks and matches of the range and sends nothing', async () => {
    const path = 'dry-run';
    const id = await createStream(path, TRANSFER_LOGS, demo.demo);
    const asked = await gw.request('POST', `/streams/evm/${id}/backfill`, {
      chainId: CHAIN,
      fromBlock: 1,
      toBlock: head,
      dryRun: true,
    });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ streamId: id, chainId: CHAIN, dryRun: true, status: 'running' });
    const done = await finished(id, asked.body.id);
    const truth = await transferBlocks(1, head);
    expect(done).toMatchObject({
      status: 'done',
      matchedBlocks: truth.size,
      webhooks: truth.size,
      delivered: 0,
    });
    expect(done.blocks).toEqual({
      total: head,
      done: head,
      fromTables: head - FIRST_FOLLOWED + 1,
      fromNode: FIRST_FOLLOWED - 1,
    });
    expect(backfillHits(path, asked.body.id)).toHaveLength(0);
  });

  it('sends every block of the range once, marked, through SIGKILLs of the matcher and the sender', async () => {
    const logsPath = 'backfill-logs';
    const txsPath = 'backfill-txs';
    const logsStream = await createStream(logsPath, TRANSFER_LOGS, demo.demo);
    const txsStream = await createStream(txsPath, { includeNativeTxs: true }, client.account.address);
    const ask = async (streamId: string) => {
      const r = await gw.request('POST', `/streams/evm/${streamId}/backfill`, {
        chainId: CHAIN,
        fromBlock: 1,
        toBlock: head,
      });
      expect(r.status).toBe(200);
      return r.body.id as string;
    };
    const logsBackfill = await ask(logsStream);
    const txsBackfill = await ask(txsStream);

    // The matcher dies in the middle of the range, then the sender with webhooks in flight.
    await waitFor('the backfills to be under way', async () => {
      const r = await gw.get(`/streams/evm/${logsStream}/backfill/${logsBackfill}`);
      return r.body.blocks.done >= 12;
    });
    expect((await pipeline.kill('stream-matcher')).signal).toBe('SIGKILL');
    // Killed in the middle: the range is not done, and no other matcher goes on with it meanwhile.
    const atKill = await gw.get(`/streams/evm/${logsStream}/backfill/${logsBackfill}`);
    expect(atKill.body.status).toBe('running');
    expect(atKill.body.blocks.done).toBeLessThan(atKill.body.blocks.total);
    await pipeline.start('stream-matcher');
    await waitFor(
      'webhooks of the backfill to arrive',
      () => backfillHits(logsPath, logsBackfill).length >= 3,
    );
    expect((await pipeline.kill('webhook-sender')).signal).toBe('SIGKILL');
    await pipeline.start('webhook-sender');

    for (const [streamId, id, path, expected] of [
      [logsStream, logsBackfill, logsPath, new Set((await transferBlocks(1, head)).keys())],
      [txsStream, txsBackfill, txsPath, await txBlocks(1, head)],
    ] as const) {
      const done = await finished(streamId, id);
      expect(done).toMatchObject({ status: 'done', matchedBlocks: expected.size, webhooks: expected.size });
      expect(done.blocks.fromNode).toBe(FIRST_FOLLOWED - 1);
      const got = await waitFor(`every webhook of backfill ${id}`, () => {
        const blocks = byBlock(backfillHits(path, id));
        return blocks.size >= expected.size ? blocks : undefined;
      });
      expect([...got.keys()].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
      await waitFor('the backfill to count its webhooks delivered', async () => {
        const r = await gw.get(`/streams/evm/${streamId}/backfill/${id}`);
        return r.body.delivered === expected.size;
      });
    }
    // Contents as the live stream would send them: every Transfer log of each block.
    const truth = await transferBlocks(1, head);
    for (const [n, hit] of byBlock(backfillHits(logsPath, logsBackfill))) {
      expect(hit.body.logs).toHaveLength(truth.get(n) ?? -1);
      expect(hit.body.streamId).toBe(logsStream);
      expect(hit.body.erc20Transfers.length).toBe(truth.get(n));
    }
    for (const hit of backfillHits(txsPath, txsBackfill)) expect(hit.body.txs.length).toBeGreaterThan(0);
  }, 300_000);

  it('a cancelled backfill evaluates no further block; the list shows it', async () => {
    const id = await createStream('cancel', TRANSFER_LOGS, demo.demo);
    const asked = await gw.request('POST', `/streams/evm/${id}/backfill`, {
      chainId: CHAIN,
      fromBlock: 1,
      toBlock: head,
    });
    const cancelled = await gw.request('DELETE', `/streams/evm/${id}/backfill/${asked.body.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const doneAtCancel = cancelled.body.blocks.done;
    await new Promise((r) => setTimeout(r, 2_000));
    const later = await gw.get(`/streams/evm/${id}/backfill/${asked.body.id}`);
    expect(later.body.status).toBe('cancelled');
    expect(later.body.blocks.done).toBe(doneAtCancel);
    const again = await gw.request('DELETE', `/streams/evm/${id}/backfill/${asked.body.id}`);
    expect(again.body.status).toBe('cancelled');
    const list = await gw.get(`/streams/evm/${id}/backfill`);
    expect(list.body.result.map((b: { id: string }) => b.id)).toEqual([asked.body.id]);
    expect(await followerCheckpoint(pipeline.pool)).toBeGreaterThanOrEqual(head);
  });
});

it('received only bodies of the webhook body contract', () => {
  expect(receiver.offContract().map((w) => [w.path, w.contractIssues])).toEqual([]);
});
