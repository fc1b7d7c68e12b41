import type { HandlerContext, WebhookBody } from '@tributary/receiver';
import type { Pool } from 'pg';

// A balance ledger kept from a stream's erc20Transfers. Each transfer is two entries (the sender's
// minus, the receiver's plus; the zero address of mints and burns is left out, as balanceOf does):
// pending ones from unconfirmed webhooks, undone by removal notices, replaced by the confirmed
// ones when the block is confirmed. Every write goes through ctx.db, the kit's transaction, so a
// webhook's entries are written exactly once.

const ZERO = '0x0000000000000000000000000000000000000000';

export async function ensureLedger(pool: Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS ledger_entries (
    stream_id        text          NOT NULL,
    block_hash       text          NOT NULL,
    block_number     numeric(78,0) NOT NULL,
    confirmed        boolean       NOT NULL,
    transaction_hash text          NOT NULL,
    log_index        integer       NOT NULL,
    token            text          NOT NULL,
    side             text          NOT NULL CHECK (side IN ('from', 'to')),
    account          text          NOT NULL,
    delta            numeric(78,0) NOT NULL,
    -- A self-transfer is two entries of one account: the side tells them apart.
    PRIMARY KEY (stream_id, block_hash, confirmed, transaction_hash, log_index, side)
  )`);
}

function entriesOf(webhook: WebhookBody) {
  return webhook.erc20Transfers.flatMap((t) =>
    [
      { side: 'from', account: t.from.toLowerCase(), delta: `-${t.value}` },
      { side: 'to', account: t.to.toLowerCase(), delta: t.value },
    ]
      .filter((e) => e.account !== ZERO && t.value !== '0')
      .map((e) => ({
        ...e,
        tx: t.transactionHash,
        logIndex: Number(t.logIndex),
        token: t.contract.toLowerCase(),
      })),
  );
}

async function insertEntries(ctx: HandlerContext, webhook: WebhookBody): Promise<void> {
  for (const e of entriesOf(webhook)) {
    await ctx.db.query(
      `INSERT INTO ledger_entries (stream_id, block_hash, block_number, confirmed, transaction_hash, log_index,
                                   token, side, account, delta)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        webhook.streamId,
        webhook.block.hash,
        webhook.block.number,
        webhook.confirmed,
        e.tx,
        e.logIndex,
        e.token,
        e.side,
        e.account,
        e.delta,
      ],
    );
  }
}

/** The kit's handlers of the ledger. */
export const ledgerHandlers = {
  async onWebhook(webhook: WebhookBody, ctx: HandlerContext): Promise<void> {
    const { streamId } = webhook;
    const hash = webhook.block.hash;
    if (webhook.confirmed) {
      // Final now: the block's pending entries give way to the confirmed ones.
      await ctx.db.query(
        `DELETE FROM ledger_entries WHERE stream_id = $1 AND block_hash = $2 AND NOT confirmed`,
        [streamId, hash],
      );
      await insertEntries(ctx, webhook);
      return;
    }
    // An unconfirmed webhook that comes after its block's confirmed one adds nothing.
    const { rowCount } = await ctx.db.query(
      `SELECT 1 FROM ledger_entries WHERE stream_id = $1 AND block_hash = $2 AND confirmed LIMIT 1`,
      [streamId, hash],
    );
    if (rowCount === 0) await insertEntries(ctx, webhook);
  },
  /** A reorg orphaned the block: its pending entries never happened. */
  async onRemoved(notice: WebhookBody, ctx: HandlerContext): Promise<void> {
    await ctx.db.query(
      `DELETE FROM ledger_entries WHERE stream_id = $1 AND block_hash = $2 AND NOT confirmed`,
      [notice.streamId, notice.block.hash],
    );
  },
};

export interface Balance {
  account: string;
  /** What confirmed blocks add up to. */
  confirmed: string;
  /** What unconfirmed blocks add on top (undone if a reorg removes them). */
  pending: string;
}

/** Every account's balance of one token, as the ledger has it. */
export async function readBalances(pool: Pool, token: string): Promise<Balance[]> {
  const { rows } = await pool.query<Balance>(
    `SELECT account,
            coalesce(sum(delta) FILTER (WHERE confirmed), 0)::text AS confirmed,
            coalesce(sum(delta) FILTER (WHERE NOT confirmed), 0)::text AS pending
       FROM ledger_entries WHERE token = $1 GROUP BY account ORDER BY account`,
    [token.toLowerCase()],
  );
  return rows;
}
