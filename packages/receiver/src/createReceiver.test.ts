import { freePort } from '@tributary/testkit';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Receiver, createReceiver } from './createReceiver.ts';
import {
  SECRET,
  body,
  committed,
  newStream,
  recordingReceiver,
  request,
  useReceiverDatabase,
} from './testing/receiverFixtures.ts';

// The kit over a real PostgreSQL: the answer to each request and what the handler committed, with
// redeliveries, a handler that fails, two receivers racing, its table and its database away.
// (processWebhook.test.ts: removal notices and sequence order.)
const { pool } = useReceiverDatabase();

describe('createReceiver', () => {
  it('handles a webhook once: a redelivery of its webhook-id is a duplicate, the handler not called', async () => {
    const { receiver, calls } = recordingReceiver(pool(), { table: 'once' });
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
    expect(await committed(pool(), 'once')).toEqual(['onWebhook:w-1']);
  });

  it('refuses a bad signature (401) or a body that is no webhook (400), recording nothing', async () => {
    const { receiver, calls } = recordingReceiver(pool(), { table: 'refusals' });
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
    const { receiver, calls } = recordingReceiver(pool(), { table: 'tests' });
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
    const { receiver } = recordingReceiver(pool(), {
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
    expect(await committed(pool(), 'crash')).toEqual([]);
    fail = false;
    expect((await receiver.handle(request('w-4', raw))).body).toEqual({
      outcome: 'handled',
      released: 0,
      webhookId: 'w-4',
    });
    expect(await committed(pool(), 'crash')).toEqual(['onWebhook:w-4']);
  });

  it('two receivers given the same delivery at once: one handles it, the other answers duplicate', async () => {
    const a = recordingReceiver(pool(), { table: 'race' });
    const b = recordingReceiver(pool(), { table: 'race' });
    await a.receiver.ready();
    // The first handler holds its transaction open until the second request is in flight.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = createReceiver({
      pool: pool(),
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
    expect(await committed(pool(), 'race')).toEqual(['slow:w-5']);
  });

  it('prune forgets old webhook-ids but keeps what ordering needs: buffered ones and the last sequence', async () => {
    const { receiver, calls } = recordingReceiver(pool(), { table: 'pruned', ordered: true });
    const stream = newStream();
    const confirmed = (n: number) =>
      body(stream, { hash: `0x9${n}`, number: String(n), confirmed: true, sequence: String(n) });
    for (const n of [1, 2, 4]) await receiver.handle(request(`p-${n}`, confirmed(n)));
    await receiver.handle(request('p-u', body(stream, { hash: '0x99' })));
    await pool().query(`UPDATE pruned SET received_at = now() - interval '2 days'`);
    expect(await receiver.prune(new Date(Date.now() - 86_400_000))).toBe(2);
    const { rows } = await pool().query('SELECT webhook_id, state FROM pruned ORDER BY webhook_id');
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
      createReceiver({ pool: pool(), secrets: [SECRET], table: 'custom_received', onWebhook: () => {} }),
    );
    await Promise.all(receivers.map((r) => r.ready()));
    const { rows } = await pool().query(`SELECT to_regclass('custom_received') IS NOT NULL AS exists`);
    expect(rows).toEqual([{ exists: true }]);
    expect(() =>
      createReceiver({ pool: pool(), secrets: [SECRET], table: 'Bad-Name', onWebhook: () => {} }),
    ).toThrow('table name "Bad-Name": lower-case letters, digits and _ (schema.name allowed)');
  });
});
