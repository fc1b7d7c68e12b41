import type { Pool, PoolClient } from 'pg';
import { type Handlers, type Outcome, kindOf, processWebhook } from './processWebhook.ts';
import {
  DEFAULT_TABLE,
  ensureReceiverTable,
  pruneReceiverTable,
  quoteTable,
  receiverStatements,
} from './receiverTable.ts';
import { type WebhookHeaders, verifySignatures } from './verifySignatures.ts';
import type { WebhookBody } from './webhookBody.ts';

export interface ReceiverOptions extends Handlers {
  /** The receiver's own database: the kit's table lives there, and handlers write in its transactions. */
  pool: Pool;
  /** The account's webhook secret; during a rotation window the new one and the previous one. */
  secrets: readonly string[];
  /** The kit's table (created if missing); `schema.name` allowed. Default `tributary_received_webhooks`. */
  table?: string;
  /**
   * Hand an ordered stream's confirmed webhooks to `onWebhook` in `sequence` order: one whose
   * lower sequences are not all handled yet is kept and acknowledged, and handled once they are.
   */
  ordered?: boolean;
  /** How far `webhook-timestamp` may be from this machine's clock (default 300 s). */
  toleranceSeconds?: number;
}

/** A request as any framework has it: the headers and the body bytes exactly as received. */
export interface ReceivedRequest {
  headers: WebhookHeaders;
  rawBody: Buffer | Uint8Array | string;
}

/** The answer to send back: a 2xx for every webhook that needs no retry. */
export interface ReceiverAnswer {
  status: number;
  body:
    | (Outcome & { webhookId: string })
    | { outcome: 'test' }
    | { outcome: 'refused'; reason: string }
    | { outcome: 'failed'; reason: string };
}

export interface Receiver {
  /** Creates the table if missing (handle does it first too); call it at start-up to fail early. */
  ready(): Promise<void>;
  handle(request: ReceivedRequest): Promise<ReceiverAnswer>;
  /**
   * A webhook the receiver never got, as the stream interface answers it (`GET
   * /streams/evm/{id}/sequence`: `{ deliveryId, payload }`), handled as if it had come: an ordered
   * stream's number whose webhook failed for good leaves a gap that holds every later one until
   * it is filled. No signatures: the stream interface, behind the API key, vouches for it.
   */
  fill(item: { deliveryId: string; payload: unknown }): Promise<ReceiverAnswer>;
  /**
   * Forgets the webhooks received before `before` (buffered ones and each ordered stream's last
   * sequence excepted); returns how many. Keep more than the sender's retry span and any replay
   * you may ask for: a webhook-id forgotten is handled again if it comes back, and a removal
   * notice forgotten no longer stops its unconfirmed webhook.
   */
  prune(before: Date): Promise<number>;
}

/** The body's shape the kit relies on; the rest goes to the handler as sent. */
function parseBody(raw: Buffer): WebhookBody | undefined {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  const b = body as Partial<WebhookBody> | null;
  const ok =
    typeof b === 'object' &&
    b !== null &&
    typeof b.confirmed === 'boolean' &&
    typeof b.streamId === 'string' &&
    typeof b.block?.hash === 'string' &&
    (b.sequence === undefined || (typeof b.sequence === 'string' && /^[1-9][0-9]*$/.test(b.sequence)));
  return ok ? (b as WebhookBody) : undefined;
}

/**
 * The receiver kit: verifies both signatures, then handles each webhook in one transaction of the
 * receiver's database that also records its webhook-id, so a redelivery (same webhook-id) is
 * answered `duplicate` and never handled twice, across crashes and receiver instances.
 */
export function createReceiver(opts: ReceiverOptions): Receiver {
  const table = opts.table ?? DEFAULT_TABLE;
  quoteTable(table); // a name that cannot be used fails here, not on the first webhook
  let created: Promise<void> | undefined;
  const ready = () => {
    created ??= ensureReceiverTable(opts.pool, table).catch((err: unknown) => {
      created = undefined;
      throw err;
    });
    return created;
  };

  async function handle(request: ReceivedRequest): Promise<ReceiverAnswer> {
    const rawBody = Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.from(request.rawBody);
    const verified = verifySignatures({
      rawBody,
      headers: request.headers,
      secrets: opts.secrets,
      ...(opts.toleranceSeconds === undefined ? {} : { toleranceSeconds: opts.toleranceSeconds }),
    });
    if (!verified.ok) return { status: 401, body: { outcome: 'refused', reason: verified.reason } };
    return receive(verified.webhookId, rawBody);
  }

  /** A webhook whose origin is known (verified, or fetched from the stream interface): handled once. */
  async function receive(webhookId: string, rawBody: Buffer): Promise<ReceiverAnswer> {
    const body = parseBody(rawBody);
    if (!body) return { status: 400, body: { outcome: 'refused', reason: 'the body is not a webhook body' } };
    // The test webhook of a stream create or update: signed, but of no stream and no block.
    if (body.streamId === '') return { status: 200, body: { outcome: 'test' } };
    const failed = (err: unknown): ReceiverAnswer => ({
      status: 500,
      body: { outcome: 'failed', reason: err instanceof Error ? err.message : String(err) },
    });
    let client: PoolClient;
    try {
      await ready();
      client = await opts.pool.connect();
    } catch (err) {
      // The database is away: a 500, so the sender retries later.
      return failed(err);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const sql = receiverStatements(client, table);
      const claimed = await sql.claim({
        webhookId,
        streamId: body.streamId,
        blockHash: body.block.hash,
        kind: kindOf(body),
        sequence: body.sequence === undefined ? undefined : BigInt(body.sequence),
        backfillId: body.backfillId,
      });
      const outcome: Outcome = claimed
        ? await processWebhook({
            db: client,
            sql,
            handlers: opts,
            ordered: opts.ordered ?? false,
            webhookId,
            body,
            rawBody: rawBody.toString('utf8'),
          })
        : { outcome: 'duplicate' };
      await client.query('COMMIT');
      return { status: 200, body: { ...outcome, webhookId } };
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
        // A connection that cannot roll back is not given back to the pool.
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      });
      // Nothing was recorded: the sender's retry gets another go.
      return failed(err);
    } finally {
      client.release(broken);
    }
  }

  const prune = async (before: Date) => {
    await ready();
    return pruneReceiverTable(opts.pool, table, before);
  };

  const fill = (item: { deliveryId: string; payload: unknown }) =>
    receive(item.deliveryId, Buffer.from(JSON.stringify(item.payload), 'utf8'));

  return { ready, handle, fill, prune };
}
