import { describe, expect, it } from 'vitest';
import type { WebhookBody as SentBody } from '@tributary/schema';
import {
  body,
  committed,
  newStream,
  recordingReceiver,
  request,
  useReceiverDatabase,
} from './testing/receiverFixtures.ts';

// What the kit does with each kind of webhook once it is verified and claimed, over a real
// PostgreSQL: removal notices (after their webhook, before it, racing it) and sequence order.
const { pool } = useReceiverDatabase();

describe('processWebhook', () => {
  it('a removal notice undoes a handled unconfirmed webhook once, and leaves the confirmed path alone', async () => {
    const { receiver, calls } = recordingReceiver(pool(), { table: 'removal' });
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
    const { receiver, calls } = recordingReceiver(pool(), { table: 'early_removal' });
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
    const { rows } = await pool().query(
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
    const slow = recordingReceiver(pool(), {
      table: 'removal_race',
      onWebhook: async (_w, ctx) => {
        await ctx.db.query(
          `INSERT INTO handled (table_name, webhook_id, handler) VALUES ('removal_race', $1, 'slow')`,
          [ctx.webhookId],
        );
        await held;
      },
    });
    const other = recordingReceiver(pool(), { table: 'removal_race' });
    await slow.receiver.ready();
    const unconfirmed = slow.receiver.handle(request('u-race', body(stream, { hash: '0xe1' })));
    await new Promise((r) => setTimeout(r, 200));
    const notice = other.receiver.handle(request('r-race', body(stream, { hash: '0xe1', removed: true })));
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect((await unconfirmed).body.outcome).toBe('handled');
    expect((await notice).body.outcome).toBe('removed');
    expect(await committed(pool(), 'removal_race')).toEqual(['slow:u-race', 'onRemoved:r-race']);
  });

  it('ordered, in two receivers at once: the next sequence waits for the one before, then is handled', async () => {
    const stream = newStream();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = recordingReceiver(pool(), {
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
    const other = recordingReceiver(pool(), { table: 'ordered_race', ordered: true });
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
    expect(await committed(pool(), 'ordered_race')).toEqual(['slow:o-1', 'onWebhook:o-2']);
  });

  it('ordered: a number whose webhook never came is filled from the stream interface, and the ones after it follow', async () => {
    const { receiver, calls } = recordingReceiver(pool(), { table: 'ordered_fill', ordered: true });
    const stream = newStream();
    const confirmed = (n: number) =>
      body(stream, { hash: `0xd${n}`, number: String(n), confirmed: true, sequence: String(n) });
    expect((await receiver.handle(request('d-1', confirmed(1)))).body.outcome).toBe('handled');
    expect((await receiver.handle(request('d-3', confirmed(3)))).body).toMatchObject({
      outcome: 'buffered',
      expected: '2',
    });
    // GET /streams/evm/{id}/sequence?from=2&to=2 gave it: { deliveryId, payload }.
    const filled = await receiver.fill({ deliveryId: 'd-2', payload: JSON.parse(confirmed(2)) });
    expect(filled.body).toEqual({ outcome: 'handled', released: 1, webhookId: 'd-2' });
    expect((await receiver.fill({ deliveryId: 'd-2', payload: JSON.parse(confirmed(2)) })).body.outcome).toBe(
      'duplicate',
    );
    expect(calls.map((c) => c.webhookId)).toEqual(['d-1', 'd-2', 'd-3']);
  });

  it('ordered: a confirmed webhook ahead of its turn is kept and acknowledged, then handled in sequence order', async () => {
    const { receiver, calls } = recordingReceiver(pool(), { table: 'ordered', ordered: true });
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
    expect(await committed(pool(), 'ordered')).toEqual([
      'onWebhook:u-9',
      'onWebhook:c-1',
      'onWebhook:c-2',
      'onWebhook:c-3',
      'onWebhook:c-4',
    ]);
  });

  it('without `ordered`, sequences pass straight through in arrival order', async () => {
    const { receiver, calls } = recordingReceiver(pool(), { table: 'unordered' });
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
});
