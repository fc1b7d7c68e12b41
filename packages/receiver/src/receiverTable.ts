import type { Pool, PoolClient } from 'pg';

/** The kit's table unless told otherwise. */
export const DEFAULT_TABLE = 'tributary_received_webhooks';

/** What became of one webhook-id. */
export type ReceivedState =
  /** The handler ran (an unconfirmed or confirmed webhook, or a removal notice that undid one). */
  | 'handled'
  /** An ordered stream's confirmed webhook that came before a lower sequence: kept, not yet handled. */
  | 'buffered'
  /** An unconfirmed webhook whose removal notice came first: never applied. */
  | 'retracted'
  /** A removal notice with nothing to undo (yet): it retracts its unconfirmed webhook should that come. */
  | 'noted'
  /** A sequence already handled under another webhook-id: not applied twice. */
  | 'skipped';

export type WebhookKind = 'unconfirmed' | 'confirmed' | 'removal';

/** A table name as given (`name` or `schema.name`), each part quoted for SQL. */
export function quoteTable(table: string): { sql: string; base: string } {
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((p) => /^[a-z_][a-z0-9_]{0,62}$/.test(p)))
    throw new Error(
      `table name ${JSON.stringify(table)}: lower-case letters, digits and _ (schema.name allowed)`,
    );
  return { sql: parts.map((p) => `"${p}"`).join('.'), base: parts[parts.length - 1]! };
}

/**
 * Creates the table if it is missing. One row per webhook-id: the row is inserted in the same
 * transaction as the handler's own writes, so a webhook is handled once whatever crashes or runs
 * beside it. The block hash and kind tell a removal notice whether its unconfirmed webhook was
 * handled; the sequence orders an ordered stream; the body is kept while a webhook is buffered.
 */
export async function ensureReceiverTable(pool: Pool, table: string): Promise<void> {
  const { sql, base } = quoteTable(table);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Two receivers starting at once would both try to create it: the second waits, then finds it.
    await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`tributary-receiver:${table}`]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${sql} (
      webhook_id   text PRIMARY KEY,
      stream_id    text NOT NULL,
      block_hash   text NOT NULL,
      kind         text NOT NULL CHECK (kind IN ('unconfirmed', 'confirmed', 'removal')),
      sequence     numeric(78, 0),
      backfill_id  text,
      state        text NOT NULL
                   CHECK (state IN ('pending', 'handled', 'buffered', 'retracted', 'noted', 'skipped')),
      body         text,
      received_at  timestamptz NOT NULL DEFAULT now(),
      handled_at   timestamptz
    )`);
    await client.query(
      `CREATE INDEX IF NOT EXISTS "${base}_by_block" ON ${sql} (stream_id, block_hash, kind)`,
    );
    await client.query(
      `CREATE INDEX IF NOT EXISTS "${base}_by_sequence" ON ${sql} (stream_id, sequence) WHERE sequence IS NOT NULL`,
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Deletes the rows received before `before` that the kit no longer needs: every one but the
 * buffered webhooks (not handled yet) and each ordered stream's highest handled sequence (the next
 * one is counted from it). A webhook-id deleted is no longer known: a redelivery of it (a retry, a
 * replay from the history) after that would be handled again, and a removal notice deleted no
 * longer retracts an unconfirmed webhook that comes after it.
 */
export async function pruneReceiverTable(pool: Pool, table: string, before: Date): Promise<number> {
  const t = quoteTable(table).sql;
  const { rowCount } = await pool.query(
    `DELETE FROM ${t} r
      WHERE r.received_at < $1 AND r.state <> 'buffered'
        AND NOT (r.state = 'handled' AND r.sequence IS NOT NULL AND r.sequence =
                 (SELECT max(l.sequence) FROM ${t} l WHERE l.stream_id = r.stream_id AND l.state = 'handled'))`,
    [before],
  );
  return rowCount ?? 0;
}

/** The statements of one webhook's transaction, on the table. */
export function receiverStatements(db: PoolClient, table: string) {
  const t = quoteTable(table).sql;
  return {
    /** Claims the webhook-id; false when a committed row already has it (a redelivery). */
    async claim(row: {
      webhookId: string;
      streamId: string;
      blockHash: string;
      kind: WebhookKind;
      sequence: bigint | undefined;
      backfillId: string | undefined;
    }): Promise<boolean> {
      const { rowCount } = await db.query(
        `INSERT INTO ${t} (webhook_id, stream_id, block_hash, kind, sequence, backfill_id, state)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (webhook_id) DO NOTHING`,
        [
          row.webhookId,
          row.streamId,
          row.blockHash,
          row.kind,
          row.sequence?.toString() ?? null,
          row.backfillId ?? null,
        ],
      );
      return rowCount === 1;
    },
    /** Serializes the transactions of one key (a block of a stream, or an ordered stream) until commit. */
    async lock(key: string): Promise<void> {
      await db.query(`SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))`, [table, key]);
    },
    async has(
      streamId: string,
      blockHash: string,
      kind: WebhookKind,
      state?: ReceivedState,
    ): Promise<boolean> {
      const { rowCount } = await db.query(
        `SELECT 1 FROM ${t} WHERE stream_id = $1 AND block_hash = $2 AND kind = $3
            AND ($4::text IS NULL OR state = $4) LIMIT 1`,
        [streamId, blockHash, kind, state ?? null],
      );
      return rowCount === 1;
    },
    async settle(webhookId: string, state: ReceivedState, body?: string): Promise<void> {
      await db.query(
        `UPDATE ${t} SET state = $2, body = $3,
                handled_at = CASE WHEN $2 = 'handled' THEN now() END WHERE webhook_id = $1`,
        [webhookId, state, body ?? null],
      );
    },
    /** The highest sequence of the stream handled so far (0 before the first). */
    async lastSequence(streamId: string): Promise<bigint> {
      const { rows } = await db.query<{ last: string | null }>(
        `SELECT max(sequence)::text AS last FROM ${t} WHERE stream_id = $1 AND state IN ('handled', 'skipped')`,
        [streamId],
      );
      return BigInt(rows[0]?.last ?? '0');
    },
    /** Other buffered webhooks of a sequence just handled (a backfill's and a live one): never handled. */
    async skipBuffered(streamId: string, sequence: bigint): Promise<void> {
      await db.query(
        `UPDATE ${t} SET state = 'skipped', body = NULL WHERE stream_id = $1 AND sequence = $2 AND state = 'buffered'`,
        [streamId, sequence.toString()],
      );
    },
    async buffered(
      streamId: string,
      sequence: bigint,
    ): Promise<{ webhookId: string; body: string } | undefined> {
      const { rows } = await db.query<{ webhook_id: string; body: string }>(
        `SELECT webhook_id, body FROM ${t} WHERE stream_id = $1 AND sequence = $2 AND state = 'buffered'
          ORDER BY received_at LIMIT 1`,
        [streamId, sequence.toString()],
      );
      return rows[0] && { webhookId: rows[0].webhook_id, body: rows[0].body };
    },
  };
}

export type ReceiverStatements = ReturnType<typeof receiverStatements>;
