import { randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { insertDelivery } from '@tributary/db/streams';
import { getTestSettings, uniqueName } from '@tributary/testkit';
import { enqueueDelivery, serializeWebhook } from '@tributary/webhooks';
import { openTestWebhookQueue } from '@tributary/webhooks/testing';
import type { Queue } from 'bullmq';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { keccak256, stringToBytes } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { waitFor } from './harness/waitFor.ts';

// A secret rotated through POST /settings while retries are in flight, with the gateway and the
// webhook-sender as processes. The receiver is a customer's: it verifies x-signature (keccak256 of
// body + secret, the hosted SDK's check) and webhook-signature (the official standardwebhooks and
// svix verifiers, given the whsec_ key of GET /settings unchanged) against the secrets it knows, and
// refuses (401) what verifies with none. It holds every attempt until the test moves on, so which
// attempt comes before and after each step is decided by the test, never by timing.
const NEW_SECRET = 'rotated-secret-0123456789abcdefghij';
const DELIVERIES = 3;

interface Settings {
  secretKey: string;
  standardWebhooksKey: string;
}

interface Attempt {
  deliveryId: string;
  retries: number;
  raw: string;
  headers: IncomingHttpHeaders;
  /** What the receiver's checks said, with the secrets it knew then. */
  refused: string | undefined;
}

let pipeline: Pipeline;
let gw: GatewayClient;
let queue: Queue;
const queuePrefix = uniqueName('rotation');
let receiverUrl: string;
let closeReceiver: () => Promise<void>;
/** The secrets the receiver accepts now. */
let known: Settings[] = [];
let holding = true;
const attempts: Attempt[] = [];
const held: ServerResponse[] = [];

const accepts = (verify: () => unknown) => {
  try {
    verify();
    return true;
  } catch {
    return false;
  }
};

/** The receiver's checks: undefined when the webhook verifies, else why not. */
function refusalOf(raw: string, headers: IncomingHttpHeaders): string | undefined {
  const h = headers as Record<string, string>;
  if (!known.some((s) => keccak256(stringToBytes(raw + s.secretKey)) === h['x-signature']))
    return 'x-signature verifies with none of its secrets';
  if (!known.some((s) => accepts(() => new StandardWebhook(s.standardWebhooksKey).verify(raw, h))))
    return 'standardwebhooks finds no matching signature';
  if (!known.some((s) => accepts(() => new SvixWebhook(s.standardWebhooksKey).verify(raw, h))))
    return 'svix finds no matching signature';
  return undefined;
}

async function startReceiver(): Promise<void> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw) as { streamId: string; retries: number };
      const refused = refusalOf(raw, req.headers);
      if (body.streamId !== '') {
        attempts.push({
          deliveryId: String(req.headers['webhook-id']),
          retries: body.retries,
          raw,
          headers: req.headers,
          refused,
        });
      }
      if (refused !== undefined) {
        res.writeHead(401).end();
        return;
      }
      // The test webhook of a stream create passes at once.
      if (holding && body.streamId !== '') held.push(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  closeReceiver = () =>
    new Promise<void>((resolve) => {
      for (const res of held) res.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** Waits until every delivery's attempt `retries` is held, failing at once on a refused attempt. */
async function heldAttempts(retries: number): Promise<void> {
  await waitFor(
    `attempt ${retries} of every delivery, held`,
    () => {
      const refused = attempts.find((a) => a.refused !== undefined);
      if (refused)
        throw new Error(
          `the receiver refused attempt ${refused.retries} of ${refused.deliveryId}: ${refused.refused}`,
        );
      return (
        held.length === DELIVERIES && attempts.filter((a) => a.retries === retries).length === DELIVERIES
      );
    },
    { diagnostics: () => pipeline.diagnostics() },
  );
}

/** Answers every held attempt with `status`. */
function answerHeld(status: number): void {
  for (const res of held.splice(0)) res.writeHead(status).end();
}

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

beforeAll(async () => {
  await startReceiver();
  pipeline = await startPipeline({
    name: 'secret-rotation',
    apps: ['gateway', 'webhook-sender'],
    env: {
      gateway: { WEBHOOK_QUEUE_PREFIX: queuePrefix, SECRET_ROTATION_WINDOW_MS: '3600000' },
      'webhook-sender': {
        WEBHOOK_QUEUE_PREFIX: queuePrefix,
        RETRY_SCHEDULE_MS: '100,100,100,100',
        SENDER_CONCURRENCY: '10',
      },
    },
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
  queue = openTestWebhookQueue(getTestSettings().redisUrl, queuePrefix);
}, 120_000);

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await pipeline?.close();
  await closeReceiver?.();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

describe('rotating the webhook secret', () => {
  it('while retries are in flight: every attempt verifies at a receiver that takes the new secret mid-window, the stream stays active, and after the window only the new secret signs', async () => {
    const old = (await gw.get('/settings')).body as Settings;
    known = [old];
    const created = await gw.request('PUT', '/streams/evm', {
      webhookUrl: receiverUrl,
      description: 'rotation',
      tag: 'rotation',
      chainIds: ['0x7a69'],
      includeNativeTxs: true,
    });
    expect(created.status).toBe(200);
    const streamId = created.body.id as string;

    // Three webhooks as the matcher writes and enqueues them; each is held at its first attempt.
    const ids: string[] = [];
    for (let n = 1; n <= DELIVERIES; n++) {
      const jobId = `rotation_${n}`;
      const body = serializeWebhook({
        confirmed: false,
        chainId: '0x7a69',
        abi: [],
        streamId,
        tag: 'rotation',
        retries: 0,
        block: { number: String(n), hash: h(n), timestamp: String(1_700_000_000 + n) },
        logs: [],
        txs: [],
        txsInternal: [],
        erc20Transfers: [],
        erc20Approvals: [],
        nftTransfers: [],
        nftApprovals: { ERC721: [], ERC1155: [] },
        nftTokenApprovals: [],
        nativeBalances: [],
      });
      const d = await insertDelivery(pipeline.pool, {
        id: randomUUID(),
        streamId,
        chainId: 31337,
        blockNumber: n,
        blockHash: h(n),
        blockTimestamp: 1_700_000_000 + n,
        confirmed: false,
        body,
        status: 'pending',
        logsCount: 0,
        txsCount: 0,
        jobId,
      });
      ids.push(d.id);
      await enqueueDelivery(queue, d.id, jobId);
    }
    await heldAttempts(0);

    // The owner rotates while the first attempts are in flight; they fail, and their retries are
    // signed after the rotation. The receiver has not heard of the new secret yet.
    const rotated = await gw.request('POST', '/settings', { secretKey: NEW_SECRET });
    expect(rotated.status).toBe(200);
    answerHeld(503);
    await heldAttempts(1);

    // Mid-window, the receiver takes the new secret and keeps accepting the old one.
    known = [old, rotated.body as Settings];
    answerHeld(503);
    await heldAttempts(2);

    // The window ends (as an hour passing would: the database clock judges it); the receiver drops
    // the old secret. The next attempts are signed with the new secret alone and delivered.
    await pipeline.pool.query(
      'UPDATE accounts SET previous_webhook_secret_valid_until = now() WHERE id = $1',
      [pipeline.apiKey.accountId],
    );
    known = [rotated.body as Settings];
    holding = false;
    answerHeld(503);
    await waitFor('every delivery delivered', async () => {
      const { rows } = await pipeline.pool.query<{ status: string }>(
        'SELECT status FROM deliveries WHERE id = ANY($1::uuid[])',
        [ids],
      );
      return rows.every((r) => r.status === 'delivered');
    });

    expect(attempts.filter((a) => a.refused !== undefined)).toEqual([]);
    const xSignatureOf = (a: Attempt, secret: string) => keccak256(stringToBytes(a.raw + secret));
    for (const id of ids) {
      const mine = attempts.filter((a) => a.deliveryId === id);
      expect(mine.map((a) => a.retries)).toEqual([0, 1, 2, 3]);
      // Before the rotation one signature; in the window both (new first) and x-signature with the
      // old secret; after it the new secret alone, which the old key no longer verifies.
      expect(mine.map((a) => String(a.headers['webhook-signature']).split(' ').length)).toEqual([1, 2, 2, 1]);
      expect(mine.map((a) => a.headers['x-signature'])).toEqual([
        xSignatureOf(mine[0]!, old.secretKey),
        xSignatureOf(mine[1]!, old.secretKey),
        xSignatureOf(mine[2]!, old.secretKey),
        xSignatureOf(mine[3]!, NEW_SECRET),
      ]);
      const last = mine[3]!;
      expect(
        accepts(() =>
          new StandardWebhook(old.standardWebhooksKey).verify(
            last.raw,
            last.headers as Record<string, string>,
          ),
        ),
      ).toBe(false);
    }
    const stream = await gw.get(`/streams/evm/${streamId}`);
    expect(stream.body.status).toBe('active');
    expect((await gw.get('/settings')).body).toEqual({
      secretKey: NEW_SECRET,
      standardWebhooksKey: (rotated.body as Settings).standardWebhooksKey,
    });
  });
});
