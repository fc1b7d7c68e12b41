import type { PoolClient } from 'pg';
import type { ReceiverStatements, WebhookKind } from './receiverTable.ts';
import type { WebhookBody } from './webhookBody.ts';

/** What a handler is given beside the body: the transaction to write in, and what the body alone does not say. */
export interface HandlerContext {
  /** The transaction that records the webhook-id: write through it, and the webhook counts as handled only if it commits. */
  db: PoolClient;
  webhookId: string;
  /** The ordered stream's sequence of a confirmed webhook, when it carries one. */
  sequence: bigint | undefined;
  /** Set in webhooks a backfill sent (`POST /streams/evm/{id}/backfill`): absent in live ones. */
  backfillId: string | undefined;
}

export type WebhookHandler = (webhook: WebhookBody, ctx: HandlerContext) => Promise<void> | void;

export interface Handlers {
  /** Each unconfirmed and confirmed webhook, once. */
  onWebhook: WebhookHandler;
  /**
   * A removal notice whose unconfirmed webhook was handled: undo what it carried (the notice
   * holds the same items, for the same block hash). Called once, and only then.
   */
  onRemoved?: WebhookHandler;
}

/** What became of one delivery; each outcome is acknowledged (2xx), so the sender stops retrying. */
export type Outcome =
  | { outcome: 'handled'; released: number }
  | { outcome: 'duplicate' }
  | { outcome: 'buffered'; expected: string }
  | { outcome: 'removed' }
  | { outcome: 'retraction-noted' }
  | { outcome: 'retracted' };

export function kindOf(body: WebhookBody): WebhookKind {
  return body.removed === true ? 'removal' : body.confirmed ? 'confirmed' : 'unconfirmed';
}

function contextOf(db: PoolClient, webhookId: string, body: WebhookBody): HandlerContext {
  return {
    db,
    webhookId,
    sequence: body.sequence === undefined ? undefined : BigInt(body.sequence),
    backfillId: body.backfillId,
  };
}

/**
 * One webhook inside the caller's transaction, after its webhook-id was claimed. An unconfirmed
 * webhook and the removal notice of its block lock that block, so whichever comes second sees the
 * first: a notice undoes a handled webhook, or is noted so the webhook, when it comes, is not
 * applied. An ordered stream's confirmed webhooks lock the stream: one out of order is kept, and
 * the one that fills the gap releases those after it, in order, in the same transaction.
 */
export async function processWebhook(opts: {
  db: PoolClient;
  sql: ReceiverStatements;
  handlers: Handlers;
  ordered: boolean;
  webhookId: string;
  body: WebhookBody;
  rawBody: string;
}): Promise<Outcome> {
  const { db, sql, handlers, webhookId, body } = opts;
  const { streamId } = body;
  const blockHash = body.block.hash;
  const kind = kindOf(body);
  switch (kind) {
    case 'unconfirmed': {
      await sql.lock(`${streamId}:${blockHash}`);
      if (await sql.has(streamId, blockHash, 'removal')) {
        await sql.settle(webhookId, 'retracted');
        return { outcome: 'retracted' };
      }
      await handlers.onWebhook(body, contextOf(db, webhookId, body));
      await sql.settle(webhookId, 'handled');
      return { outcome: 'handled', released: 0 };
    }
    case 'removal': {
      await sql.lock(`${streamId}:${blockHash}`);
      if (!(await sql.has(streamId, blockHash, 'unconfirmed', 'handled'))) {
        await sql.settle(webhookId, 'noted');
        return { outcome: 'retraction-noted' };
      }
      if (!handlers.onRemoved)
        throw new Error('a removal notice came, and the receiver has no onRemoved handler');
      await handlers.onRemoved(body, contextOf(db, webhookId, body));
      await sql.settle(webhookId, 'handled');
      return { outcome: 'removed' };
    }
    case 'confirmed': {
      if (!opts.ordered || body.sequence === undefined) {
        await handlers.onWebhook(body, contextOf(db, webhookId, body));
        await sql.settle(webhookId, 'handled');
        return { outcome: 'handled', released: 0 };
      }
      return processInOrder({ ...opts, sequence: BigInt(body.sequence) });
    }
  }
}

async function processInOrder(opts: {
  db: PoolClient;
  sql: ReceiverStatements;
  handlers: Handlers;
  webhookId: string;
  body: WebhookBody;
  rawBody: string;
  sequence: bigint;
}): Promise<Outcome> {
  const { db, sql, handlers, webhookId, body, sequence } = opts;
  const { streamId } = body;
  await sql.lock(streamId);
  const expected = (await sql.lastSequence(streamId)) + 1n;
  if (sequence < expected) {
    // Handled before under another webhook-id (a backfill resending a range): not twice.
    await sql.settle(webhookId, 'skipped');
    return { outcome: 'duplicate' };
  }
  if (sequence > expected) {
    await sql.settle(webhookId, 'buffered', opts.rawBody);
    return { outcome: 'buffered', expected: expected.toString() };
  }
  await handlers.onWebhook(body, contextOf(db, webhookId, body));
  await sql.settle(webhookId, 'handled');
  await sql.skipBuffered(streamId, sequence);
  let released = 0;
  for (let next = sequence + 1n; ; next++) {
    const kept = await sql.buffered(streamId, next);
    if (!kept) break;
    const keptBody = JSON.parse(kept.body) as WebhookBody;
    await handlers.onWebhook(keptBody, contextOf(db, kept.webhookId, keptBody));
    await sql.settle(kept.webhookId, 'handled');
    await sql.skipBuffered(streamId, next);
    released++;
  }
  return { outcome: 'handled', released };
}
