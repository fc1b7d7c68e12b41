import { createTestDatabase } from '@tributary/testkit';
import type { WebhookBody as SentBody } from '@tributary/schema';
import { serializeWebhook, webhookHeaders } from '@tributary/webhooks';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type ReceiverOptions, createReceiver } from '../createReceiver.ts';
import type { HandlerContext } from '../processWebhook.ts';
import type { WebhookBody } from '../webhookBody.ts';

// What the kit's tests share: a database of their own, webhooks signed by the sender's code, and
// receivers whose handlers record each call through the kit's transaction.

export const SECRET = 'receiver-test-secret-0123456789abcd';

/** A fresh database for the test file (with a `handled` table the recording handlers write to). */
export function useReceiverDatabase(): { pool: () => pg.Pool } {
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    pool = new pg.Pool({ connectionString: db.url, max: 8 });
    await pool.query(
      'CREATE TABLE handled (seq serial PRIMARY KEY, table_name text NOT NULL, webhook_id text NOT NULL, handler text NOT NULL)',
    );
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });
  return {
    pool: () => {
      if (!pool) throw new Error('the database is made in beforeAll');
      return pool;
    },
  };
}

let streams = 0;
export const newStream = () => `00000000-0000-4000-8000-${String(++streams).padStart(12, '0')}`;

/** A webhook body as the sender serializes it: unconfirmed, empty, unless `over` says otherwise. */
export function body(streamId: string, over: Partial<SentBody> & { hash: string; number?: string }): string {
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

/** The request the sender would make, signed now with SECRET. */
export const request = (webhookId: string, raw: string) => ({
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

/** A receiver whose handlers record each call, in memory and in `handled` through the kit's transaction. */
export function recordingReceiver(pool: pg.Pool, opts: Partial<ReceiverOptions> & { table: string }) {
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

/** What the handlers committed for a table: one `handler:webhookId` per call not rolled back. */
export async function committed(pool: pg.Pool, table: string): Promise<string[]> {
  const { rows } = await pool.query<{ webhook_id: string; handler: string }>(
    'SELECT webhook_id, handler FROM handled WHERE table_name = $1 ORDER BY seq',
    [table],
  );
  return rows.map((r) => `${r.handler}:${r.webhook_id}`);
}
