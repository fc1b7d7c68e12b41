import type { Pool, PoolClient } from 'pg';
import type { StreamStatus } from './streams.ts';

type Db = Pool | PoolClient;

/** One stream as the operator sees it across accounts: its identity and the deliveries it has waiting. */
export interface StreamOverview {
  id: string;
  accountId: string;
  status: StreamStatus;
  tag: string;
  webhookUrl: string;
  chainIds: number[];
  pending: number;
  held: number;
  failed: number;
}

/**
 * Every stream of every account (or of one account, or in one status), oldest first, with its
 * pending, held and failed deliveries counted by the partial indexes (deliveries_pending,
 * deliveries_failed), never the whole history.
 */
export async function listStreamOverviews(
  db: Db,
  filter: { status?: StreamStatus; accountId?: string } = {},
): Promise<StreamOverview[]> {
  const params: unknown[] = [];
  const conds: string[] = [];
  if (filter.status) {
    params.push(filter.status);
    conds.push(`s.status = $${params.length}`);
  }
  if (filter.accountId) {
    params.push(filter.accountId);
    conds.push(`s.account_id = $${params.length}`);
  }
  const { rows } = await db.query<{
    id: string;
    account_id: string;
    status: StreamStatus;
    tag: string | null;
    webhook_url: string | null;
    chain_ids: string[];
    pending: string;
    held: string;
    failed: string;
  }>(
    `SELECT s.id, s.account_id, s.status, s.config->>'tag' AS tag, s.config->>'webhookUrl' AS webhook_url,
            s.chain_ids, coalesce(w.pending, 0) AS pending, coalesce(w.held, 0) AS held,
            coalesce(f.failed, 0) AS failed
       FROM streams s
       LEFT JOIN (SELECT stream_id, count(*) FILTER (WHERE status = 'pending') AS pending,
                         count(*) FILTER (WHERE status = 'held') AS held
                    FROM deliveries WHERE status IN ('pending', 'held') GROUP BY stream_id) w
              ON w.stream_id = s.id
       LEFT JOIN (SELECT stream_id, count(*) AS failed FROM deliveries WHERE status = 'failed'
                   GROUP BY stream_id) f
              ON f.stream_id = s.id
      ${conds.length > 0 ? `WHERE ${conds.join(' AND ')}` : ''}
      ORDER BY s.created_at, s.id`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    status: r.status,
    tag: r.tag ?? '',
    webhookUrl: r.webhook_url ?? '',
    chainIds: r.chain_ids.map(Number),
    pending: Number(r.pending),
    held: Number(r.held),
    failed: Number(r.failed),
  }));
}

/** The stream and account a delivery belongs to (undefined: no such delivery). */
export async function findDeliveryOwner(
  db: Db,
  deliveryId: string,
): Promise<{ streamId: string; accountId: string } | undefined> {
  const { rows } = await db.query<{ stream_id: string; account_id: string }>(
    `SELECT d.stream_id, s.account_id FROM deliveries d JOIN streams s ON s.id = d.stream_id WHERE d.id = $1`,
    [deliveryId],
  );
  const r = rows[0];
  return r ? { streamId: r.stream_id, accountId: r.account_id } : undefined;
}
