import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

/** A stored webhook's place in its stream's list: the time its row was written, then its id. */
export interface StreamWebhookKey {
  createdAt: string;
  id: string;
}

export interface StreamWebhook {
  id: string;
  blockNumber: string;
  confirmed: boolean;
  removal: boolean;
  /** The exact bytes of its first attempt. */
  body: string;
  key: StreamWebhookKey;
}

/**
 * The time before which every delivery row is committed: a row's created_at is its transaction's
 * start (now()), so no transaction still open, the oldest of which started at this time, can
 * commit a row older than it. Reading only older rows, a cursor never steps over a row that was
 * committed after a younger one. (It sees the transactions of the database roles it may see:
 * the services share one role, or the gateway's role needs pg_read_all_stats.)
 */
const SETTLED = `(SELECT coalesce(min(xact_start), now()) FROM pg_stat_activity
                   WHERE datname = current_database() AND xact_start IS NOT NULL)`;

/** Where a listener starts: after every row committed so far, before any still being written. */
export async function streamWebhooksStart(db: Db): Promise<StreamWebhookKey> {
  const { rows } = await db.query<{ at: string }>(`SELECT ${SETTLED}::text AS at`);
  return { createdAt: rows[0]!.at, id: '00000000-0000-0000-0000-000000000000' };
}

/**
 * The stream's webhooks stored after `after`, oldest first, at most `limit`: what a listener has
 * not seen yet (every kind: unconfirmed, confirmed and removal notices, whatever their delivery
 * status).
 */
export async function listStreamWebhooks(
  db: Db,
  streamId: string,
  q: { after: StreamWebhookKey; limit: number },
): Promise<StreamWebhook[]> {
  const { rows } = await db.query<{
    id: string;
    block_number: string;
    confirmed: boolean;
    removal: boolean;
    body: string;
    created_at_key: string;
  }>(
    `SELECT d.id, d.block_number::text AS block_number, d.confirmed, d.removal, d.body,
            d.created_at::text AS created_at_key
       FROM deliveries d
      WHERE d.stream_id = $1 AND (d.created_at, d.id) > ($2::timestamptz, $3::uuid)
        AND d.created_at < ${SETTLED}
      ORDER BY d.created_at, d.id LIMIT $4`,
    [streamId, q.after.createdAt, q.after.id, q.limit],
  );
  return rows.map((r) => ({
    id: r.id,
    blockNumber: r.block_number,
    confirmed: r.confirmed,
    removal: r.removal,
    body: r.body,
    key: { createdAt: r.created_at_key, id: r.id },
  }));
}
