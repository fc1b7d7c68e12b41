import { randomUUID } from 'node:crypto';
import { createAccountWithKey } from '@tributary/db/accounts';
import { insertDelivery } from '@tributary/db/streams';
import { erc20TransferEventAbi } from '@tributary/evm';
import { standardWebhooksKey } from '@tributary/webhooks';
import { Webhook } from 'standardwebhooks';
import { keccak256, stringToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { startTestReceiver } from '../testing/startTestReceiver.ts';

// GET /streams/evm/{id}/listen over a real PostgreSQL: the stored webhooks of a stream, in the
// order their rows were written, signed as the sender signs, a page at a time, waiting for new
// ones, and never stepping over a row whose transaction commits after a younger one.
let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
let streamId: string;
let secret: string;
let block = 0;

interface Page {
  result: {
    id: string;
    blockNumber: string;
    confirmed: boolean;
    removed: boolean;
    headers: Record<string, string>;
    body: string;
  }[];
  cursor: string;
}

async function createStream(key = gw.apiKey.key): Promise<string> {
  const res = await gw.request('/streams/evm', {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      webhookUrl: receiver.url,
      description: 'listen',
      tag: 'listen',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

/** Stores a delivery as the matcher does (through `db`: a transaction of the test's, or the pool). */
async function store(
  opts: { confirmed?: boolean; removal?: boolean; db?: Parameters<typeof insertDelivery>[0] } = {},
) {
  const number = ++block;
  const hash = `0x${number.toString(16).padStart(64, '0')}`;
  const body = JSON.stringify({
    confirmed: opts.confirmed ?? false,
    ...(opts.removal ? { removed: true } : {}),
    chainId: '0x7a69',
    streamId,
    block: { number: String(number), hash, timestamp: '1' },
  });
  const d = await insertDelivery(opts.db ?? gw.db.pool, {
    id: randomUUID(),
    streamId,
    chainId: 31337,
    blockNumber: number,
    blockHash: hash,
    blockTimestamp: 1,
    confirmed: opts.confirmed ?? false,
    removal: opts.removal ?? false,
    body,
    status: 'pending',
    logsCount: 0,
    txsCount: 0,
  });
  return { id: d.id, body, number: String(number) };
}

async function listen(
  query: Record<string, string> = {},
  id = streamId,
): Promise<{ status: number; body: Page }> {
  const res = await gw.request(`/streams/evm/${id}/listen?${new URLSearchParams(query)}`);
  return { status: res.status, body: (await res.json()) as Page };
}

beforeAll(async () => {
  receiver = await startTestReceiver();
  gw = await startTestGateway({ streams: true });
  streamId = await createStream();
  secret = ((await (await gw.request('/settings')).json()) as { secretKey: string }).secretKey;
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

describe('GET /streams/evm/{id}/listen', () => {
  it('starts after the webhooks stored so far, then hands each new one over once, in order, a page at a time', async () => {
    await store();
    const start = await listen();
    expect(start).toEqual({ status: 200, body: { result: [], cursor: expect.any(String) } });
    const stored = [await store(), await store({ confirmed: true }), await store({ removal: true })];

    const first = await listen({ cursor: start.body.cursor, limit: '2' });
    expect(first.status).toBe(200);
    expect(first.body.result.map((w) => [w.id, w.blockNumber, w.confirmed, w.removed, w.body])).toEqual([
      [stored[0]!.id, stored[0]!.number, false, false, stored[0]!.body],
      [stored[1]!.id, stored[1]!.number, true, false, stored[1]!.body],
    ]);
    const second = await listen({ cursor: first.body.cursor, limit: '2' });
    expect(second.body.result.map((w) => [w.id, w.removed])).toEqual([[stored[2]!.id, true]]);
    const none = await listen({ cursor: second.body.cursor, waitMs: '0' });
    expect(none.body.result).toEqual([]);
    // Nothing new: the cursor stays where it was.
    expect((await listen({ cursor: none.body.cursor, waitMs: '0' })).body.result).toEqual([]);
  });

  it("signs each webhook as the sender does: both signatures over the exact body, with the account's secret", async () => {
    const start = await listen();
    const stored = await store({ confirmed: true });
    const { body } = await listen({ cursor: start.body.cursor });
    const w = body.result[0]!;
    expect(w.headers['webhook-id']).toBe(stored.id);
    expect(w.headers['x-signature']).toBe(keccak256(stringToBytes(w.body + secret)));
    expect(() => new Webhook(standardWebhooksKey(secret)).verify(w.body, w.headers)).not.toThrow();
    expect(() => new Webhook(standardWebhooksKey('x'.repeat(32))).verify(w.body, w.headers)).toThrow();
  });

  it('waits for the next webhook and answers as soon as it is stored', async () => {
    const start = await listen();
    const waiting = listen({ cursor: start.body.cursor, waitMs: '20000' });
    await new Promise((r) => setTimeout(r, 500));
    const stored = await store();
    const { body } = await waiting;
    expect(body.result.map((w) => w.id)).toEqual([stored.id]);
  });

  it('never steps over a row committed after a younger one: it waits for the older transaction', async () => {
    const start = await listen();
    const client = await gw.db.pool.connect();
    try {
      await client.query('BEGIN');
      // Written first (its created_at is its transaction's start), committed last.
      const older = await store({ db: client });
      await new Promise((r) => setTimeout(r, 20));
      const younger = await store();
      expect((await listen({ cursor: start.body.cursor, waitMs: '0' })).body.result).toEqual([]);
      await client.query('COMMIT');
      const { body } = await listen({ cursor: start.body.cursor, waitMs: '0' });
      expect(body.result.map((w) => w.id)).toEqual([older.id, younger.id]);
    } finally {
      client.release();
    }
  });

  it("answers 404 for another account's stream and 400 for a cursor of another stream or a bad limit", async () => {
    const other = await createAccountWithKey(gw.db.pool, { accountName: 'listen-other' });
    const foreign = await createStream(other.key);
    expect((await listen({}, foreign)).status).toBe(404);
    expect((await listen({}, randomUUID())).status).toBe(404);
    const own = await listen();
    const res = await gw.request(`/streams/evm/${foreign}/listen?cursor=${own.body.cursor}`, {
      headers: { 'x-api-key': other.key },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      message: 'cursor does not match the query parameters it was issued for',
    });
    expect((await listen({ limit: '0' })).status).toBe(400);
    expect((await listen({ waitMs: 'soon' })).status).toBe(400);
  });
});
