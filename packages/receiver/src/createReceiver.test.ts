import { type TestDatabase, createTestDatabase, freePort } from '@tributary/testkit';
import { serializeWebhook, webhookHeaders, type WebhookBody as SentBody } from '@tributary/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, type ReceiverOptions, createReceiver } from './createReceiver.ts';
import type { HandlerContext } from './processWebhook.ts';
import type { WebhookBody } from './webhookBody.ts';

// The kit over a real PostgreSQL: what each kind of delivery does to the handlers and the answer,
// including redeliveries, a handler that fails, two receivers racing and out-of-order sequences.
const SECRET = 'receiver-test-secret-0123456789abcd';
let db: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
  pool = new pg.Pool({ connectionString: db.url, max: 8 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

let streams = 0;
const newStream = () => `00000000-0000-4000-8000-${String(++streams).padStart(12, '0')}`;

function body(streamId: string, over: Partial<SentBody> & { hash: string; number?: string }): string {
  const { hash, number, ...rest } = over;
  return serializeWebhook({
    confirmed: false,
    chainId: '0x7a69',
    abi: [],
    streamId,
    tag: 't',
    retries: 0,
    block: { number: number ?? '1', hash, timestamp: '1700000000' },
    logs: [],
    txs: [],
    txsInternal: [],
    erc20Transfers: [],
    erc20Approvals: [],
    nftTransfers: [],
    nftApprovals: { ERC721: [], ERC1155: [] },
    nftTokenApprovals: [],
    nativeBalances: [],
    ...rest,
  });
}

const request = (webhookId: string, raw: string) => ({
  headers: webhookHeaders({ id: webhookId, body: raw, secrets: { current: SECRET }, queueSize: 0 }),
  rawBody: Buffer.from(raw),
});

interface Call {
  handler: 'onWebhook' | 'onRemoved';
  webhookId: string;
  block: string;
  confirmed: boolean;
  sequence: bigint | undefined;
  backfillId: string | undefined;
}

/** A receiver whose handlers record each call in a table of their own, through the kit's transaction. */
function recordingReceiver(opts: Partial<ReceiverOptions> & { table: string }) {
  const calls: Call[] = [];
  const record = (handler: Call['handler']) => async (w: WebhookBody, ctx: HandlerContext) => {
    await ctx.db.query('INSERT INTO handled (table_name, webhook_id, handler) VALUES ($1, $2, $3)', [
      opts.table,
      ctx.webhookId,
      handler,
    ]);
    calls.push({
      handler,
      webhookId: ctx.webhookId,
      block: w.block.hash,
      confirmed: w.confirmed,
      sequence: ctx.sequence,
      backfillId: ctx.backfillId,
    });
  };
  const receiver = createReceiver({
    pool,
    secrets: [SECRET],
    onWebhook: record('onWebhook'),
    onRemoved: record('onRemoved'),
    ...opts,
  });
  return { receiver, calls };
}

/** What the handlers committed: one row per call that was not rolled back. */
async function committed(table: string): Promise<string[]> {
  const { rows } = await pool.query<{ webhook_id: string; handler: string }>(
    'SELECT webhook_id, handler FROM handled WHERE table_name = $1 ORDER BY seq',
    [table],
  );
  return rows.map((r) => `${r.handler}:${r.webhook_id}`);
}

beforeAll(async () => {
  await pool.query(
    'CREATE TABLE handled (seq serial PRIMARY KEY, table_name text NOT NULL, webhook_id text NOT NULL, handler text NOT NULL)',
  );
});

describe('createReceiver', () => {
  it('handles a webhook once: a redelivery of its webhook-id is a duplicate, the handler not called', async () => {
    const { receiver, calls } = recordingReceiver({ table: 'once' });
    const stream = newStream();
    const raw = body(stream, { hash: '0xa1', confirmed: true });
    expect(await receiver.handle(request('w-1', raw))).toEqual({
      status: 200,
      body: { outcome: 'handled', released: 0, webhookId: 'w-1' },
    });
    // A retry is the same webhook-id with `retries` raised: signed anew, same delivery.
    const retry = raw.replace('"retries":0', '"retries":1');
    expect(await receiver.handle(request('w-1', retry))).toEqual({
      status: 200,
      body: { outcome: 'duplicate', webhookId: 'w-1' },
    });
    expect(calls.map((c) => c.webhookId)).toEqual(['w-1']);
    expect(await committed('once')).toEqual(['onWebhook:w-1']);
  });

  it('refuses a bad signature (401) or a body that is no webhook (400), recording nothing', async () => {
    const { receiver, calls } = recordingReceiver({ table: 'refusals' });
    const raw = body(newStream(), { hash: '0xa2' });
    const forged = { ...request('w-2', raw), rawBody: Buffer.from(raw.replace('0xa2', '0xa3')) };
    expect(await receiver.handle(forged)).toEqual({
      status: 401,
      body: { outcome: 'refused', reason: 'webhook-signature does not match the body with any secret' },
    });
    expect(await receiver.handle(request('w-2', '{"confirmed":"yes"}'))).toEqual({
      status: 400,
      body: { outcome: 'refused', reason: 'the body is not a webhook body' },
    });
    expect(calls).toEqual([]);
  });

  it("acknowledges a stream's test webhook without handling it", async () => {
    const { receiver, calls } = recordingReceiver({ table: 'tests' });
    const test =
      '{"abi":[],"block":{"hash":"","number":"","timestamp":""},"txs":[],"txsInternal":[],"tag":"","streamId":"","logs":[],"chainId":"","confirmed":true,"retries":0,"erc20Approvals":[],"erc20Transfers":[],"nftApprovals":{"ERC721":[],"ERC1155":[]},"nftTokenApprovals":[],"nftTransfers":[],"nativeBalances":[]}';
    expect(await receiver.handle(request('w-test', test))).toEqual({
      status: 200,
      body: { outcome: 'test' },
    });
    expect(calls).toEqual([]);
  });

  it('rolls back a handler that fails mid-way: nothing recorded, the retry handles it', async () => {
    let fail = true;
    const { receiver } = recordingReceiver({
      table: 'crash',
      onWebhook: async (_w, ctx) => {
        await ctx.db.query(
          `INSERT INTO handled (table_name, webhook_id, handler) VALUES ('crash', $1, 'onWebhook')`,
          [ctx.webhookId],
        );
        if (fail) throw new Error('the handler died half-way');
      },
    });
    const raw = body(newStream(), { hash: '0xa4', confirmed: true });
    expect(await receiver.handle(request('w-4', raw))).toEqual({
      status: 500,
      body: { outcome: 'failed', reason: 'the handler died half-way' },
    });
    expect(await committed('crash')).toEqual([]);
    fail = false;
    expect((await receiver.handle(request('w-4', raw))).body).toEqual({
      outcome: 'handled',
      released: 0,
      webhookId: 'w-4',
    });
    expect(await committed('crash')).toEqual(['onWebhook:w-4']);
  });

  it('two receivers given the same delivery at once: one handles it, the other answers duplicate', async () => {
    const a = recordingReceiver({ table: 'race' });
    const b = recordingReceiver({ table: 'race' });
    await a.receiver.ready();
    // The first handler holds its transaction open until the second request is in flight.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = createReceiver({
      pool,
      secrets: [SECRET],
      table: 'race',
      onWebhook: async (_w, ctx) => {
        await ctx.db.query(
          `INSERT INTO handled (table_name, webhook_id, handler) VALUES ('race', $1, 'slow')`,
          [ctx.webhookId],
        );
        await held;
      },
    });
    const raw = body(newStream(), { hash: '0xa5', confirmed: true });
    const first = slow.handle(request('w-5', raw));
    await new Promise((r) => setTimeout(r, 200));
    const second = b.receiver.handle(request('w-5', raw));
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect((await first).body).toEqual({ outcome: 'handled', released: 0, webhookId: 'w-5' });
    expect((await second).body).toEqual({ outcome: 'duplicate', webhookId: 'w-5' });
    expect(await committed('race')).toEqual(['slow:w-5']);
  });

  it('a removal notice undoes a handled unconfirmed webhook once, and leaves the confirmed path alone', async () => {
    const { receiver, calls } = recordingReceiver({ table: 'removal' });
    const stream = newStream();
    const unconfirmed = body(stream, { hash: '0xb1' });
    const notice = body(stream, { hash: '0xb1', removed: true });
    expect((await receiver.handle(request('u-1', unconfirmed))).body.outcome).toBe('handled');
    expect((await receiver.handle(request('r-1', notice))).body).toEqual({
      outcome: 'removed',
      webhookId: 'r-1',
    });
    expect((await receiver.handle(request('r-1', notice))).body).toEqual({
      outcome: 'duplicate',
      webhookId: 'r-1',
    });
    // A notice of another stream's block of the same hash undoes nothing there.
    const otherStream = body(newStream(), { hash: '0xb1', removed: true });
    expect((await receiver.handle(request('r-2', otherStream))).body.outcome).toBe('retraction-noted');
    expect(calls.map((c) => `${c.handler}:${c.webhookId}`)).toEqual(['onWebhook:u-1', 'onRemoved:r-1']);
  });

  it('a removal notice before its unconfirmed webhook: the webhook, when it comes, is not applied', async () => {
    const { receiver, calls } = recordingReceiver({ table: 'early_removal' });
    const stream = newStream();
    expect(
      (await receiver.handle(request('r-3', body(stream, { hash: '0xb2', removed: true })))).body,
    ).toEqual({
      outcome: 'retraction-noted',
      webhookId: 'r-3',
    });
    expect((await receiver.handle(request('u-3', body(stream, { hash: '0xb2' })))).body).toEqual({
      outcome: 'retracted',
      webhookId: 'u-3',
    });
    expect(calls).toEqual([]);
    const { rows } = await pool.query(
      'SELECT webhook_id, kind, state FROM early_removal ORDER BY webhook_id',
    );
    expect(rows).toEqual([
      { webhook_id: 'r-3', kind: 'removal', state: 'noted' },
      { webhook_id: 'u-3', kind: 'unconfirmed', state: 'retracted' },
    ]);
  });

  it('an unconfirmed webhook and its removal notice at once, in two receivers: the notice waits, then undoes it', async () => {
    const stream = newStream();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = recordingReceiver({
      table: 'removal_race',
      onWebhook: async (_w, ctx) => {
        await ctx.db.query(
          `INSERT INTO handled (table_name, webhook_id, handler) VALUES ('removal_race', $1, 'slow')`,
          [ctx.webhookId],
        );
        await held;
      },
    });
    const other = recordingReceiver({ table: 'removal_race' });
    await slow.receiver.ready();
    const unconfirmed = slow.receiver.handle(request('u-race', body(stream, { hash: '0xe1' })));
    await new Promise((r) => setTimeout(r, 200));
    const notice = other.receiver.handle(request('r-race', body(stream, { hash: '0xe1', removed: true })));
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect((await unconfirmed).body.outcome).toBe('handled');
    expect((await notice).body.outcome).toBe('removed');
    expect(await committed('removal_race')).toEqual(['slow:u-race', 'onRemoved:r-race']);
  });

  it('ordered, in two receivers at once: the next sequence waits for the one before, then is handled', async () => {
    const stream = newStream();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = recordingReceiver({
      table: 'ordered_race',
      ordered: true,
      onWebhook: async (_w, ctx) => {
        await ctx.db.query(
          `INSERT INTO handled (table_name, webhook_id, handler) VALUES ('ordered_race', $1, 'slow')`,
          [ctx.webhookId],
        );
        await held;
      },
    });
    const other = recordingReceiver({ table: 'ordered_race', ordered: true });
    await slow.receiver.ready();
    const confirmed = (n: number) =>
      body(stream, { hash: `0xf${n}`, number: String(n), confirmed: true, sequence: String(n) });
    const first = slow.receiver.handle(request('o-1', confirmed(1)));
    await new Promise((r) => setTimeout(r, 200));
    const second = other.receiver.handle(request('o-2', confirmed(2)));
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect((await first).body).toEqual({ outcome: 'handled', released: 0, webhookId: 'o-1' });
    // Not left buffered behind a sequence another receiver was handling.
    expect((await second).body).toEqual({ outcome: 'handled', released: 0, webhookId: 'o-2' });
    expect(await committed('ordered_race')).toEqual(['slow:o-1', 'onWebhook:o-2']);
  });

  it('ordered: a confirmed webhook ahead of its turn is kept and acknowledged, then handled in sequence order', async () => {
    const { receiver, calls } = recordingReceiver({ table: 'ordered', ordered: true });
    const stream = newStream();
    const confirmed = (n: number, extra: Partial<SentBody> = {}) =>
      body(stream, { hash: `0xc${n}`, number: String(n), confirmed: true, sequence: String(n), ...extra });
    expect((await receiver.handle(request('c-3', confirmed(3)))).body).toEqual({
      outcome: 'buffered',
      expected: '1',
      webhookId: 'c-3',
    });
    expect((await receiver.handle(request('c-2', confirmed(2, { backfillId: 'bf-1' })))).body).toEqual({
      outcome: 'buffered',
      expected: '1',
      webhookId: 'c-2',
    });
    // A webhook without a sequence (an unconfirmed one) passes straight through.
    expect((await receiver.handle(request('u-9', body(stream, { hash: '0xc9' })))).body.outcome).toBe(
      'handled',
    );
    expect((await receiver.handle(request('c-3', confirmed(3)))).body.outcome).toBe('duplicate');
    expect(calls.map((c) => c.webhookId)).toEqual(['u-9']);
    expect((await receiver.handle(request('c-1', confirmed(1)))).body).toEqual({
      outcome: 'handled',
      released: 2,
      webhookId: 'c-1',
    });
    expect(calls.map((c) => [c.webhookId, c.sequence, c.backfillId])).toEqual([
      ['u-9', undefined, undefined],
      ['c-1', 1n, undefined],
      ['c-2', 2n, 'bf-1'],
      ['c-3', 3n, undefined],
    ]);
    // A sequence handled before, under another webhook-id, is not handled twice.
    expect((await receiver.handle(request('c-2b', confirmed(2)))).body.outcome).toBe('duplicate');
    expect((await receiver.handle(request('c-4', confirmed(4)))).body.outcome).toBe('handled');
    expect(await committed('ordered')).toEqual([
      'onWebhook:u-9',
      'onWebhook:c-1',
      'onWebhook:c-2',
      'onWebhook:c-3',
      'onWebhook:c-4',
    ]);
  });

  it('without `ordered`, sequences pass straight through in arrival order', async () => {
    const { receiver, calls } = recordingReceiver({ table: 'unordered' });
    const stream = newStream();
    for (const n of [2, 1])
      await receiver.handle(
        request(`s-${n}`, body(stream, { hash: `0xd${n}`, confirmed: true, sequence: String(n) })),
      );
    expect(calls.map((c) => [c.webhookId, c.sequence])).toEqual([
      ['s-2', 2n],
      ['s-1', 1n],
    ]);
  });

  it('prune forgets old webhook-ids but keeps what ordering needs: buffered ones and the last sequence', async () => {
    const { receiver, calls } = recordingReceiver({ table: 'pruned', ordered: true });
    const stream = newStream();
    const confirmed = (n: number) =>
      body(stream, { hash: `0x9${n}`, number: String(n), confirmed: true, sequence: String(n) });
    for (const n of [1, 2, 4]) await receiver.handle(request(`p-${n}`, confirmed(n)));
    await receiver.handle(request('p-u', body(stream, { hash: '0x99' })));
    await pool.query(`UPDATE pruned SET received_at = now() - interval '2 days'`);
    expect(await receiver.prune(new Date(Date.now() - 86_400_000))).toBe(2);
    const { rows } = await pool.query('SELECT webhook_id, state FROM pruned ORDER BY webhook_id');
    expect(rows).toEqual([
      { webhook_id: 'p-2', state: 'handled' },
      { webhook_id: 'p-4', state: 'buffered' },
    ]);
    // Ordering goes on from the kept sequence; a forgotten id is handled again if it comes back.
    expect((await receiver.handle(request('p-3', confirmed(3)))).body).toEqual({
      outcome: 'handled',
      released: 1,
      webhookId: 'p-3',
    });
    expect((await receiver.handle(request('p-u', body(stream, { hash: '0x99' })))).body.outcome).toBe(
      'handled',
    );
    expect(calls.map((c) => c.webhookId)).toEqual(['p-1', 'p-2', 'p-u', 'p-3', 'p-4', 'p-u']);
  });

  it('answers 500 when its database cannot be reached, so the sender retries', async () => {
    const away = new pg.Pool({ connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none` });
    const receiver = createReceiver({ pool: away, secrets: [SECRET], onWebhook: () => {} });
    const answer = await receiver.handle(
      request('w-away', body(newStream(), { hash: '0xaa', confirmed: true })),
    );
    expect(answer.status).toBe(500);
    expect(answer.body.outcome).toBe('failed');
    await away.end();
  });

  it('creates its table under the name given, once, even when two receivers start together', async () => {
    const receivers: Receiver[] = [1, 2, 3].map(() =>
      createReceiver({ pool, secrets: [SECRET], table: 'custom_received', onWebhook: () => {} }),
    );
    await Promise.all(receivers.map((r) => r.ready()));
    const { rows } = await pool.query(`SELECT to_regclass('custom_received') IS NOT NULL AS exists`);
    expect(rows).toEqual([{ exists: true }]);
    expect(() => createReceiver({ pool, secrets: [SECRET], table: 'Bad-Name', onWebhook: () => {} })).toThrow(
      'table name "Bad-Name": lower-case letters, digits and _ (schema.name allowed)',
    );
  });
});
