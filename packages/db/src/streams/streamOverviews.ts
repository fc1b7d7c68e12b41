import type { Pool, PoolClient } from 'pg';
import { countStreamDeliveries } from './deliveryCounts.ts';
import type { StreamStatus } from '@tributary/schema';

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
 * pending, held and failed deliveries from the counters (migration 073), never the history.
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
  }>(
    `SELECT s.id, s.account_id, s.status, s.config->>'tag' AS tag, s.config->>'webhookUrl' AS webhook_url, s.chain_ids
       FROM streams s ${conds.length > 0 ? `WHERE ${conds.join(' AND ')}` : ''}
      ORDER BY s.created_at, s.id`,
    params,
  );
  const counts = await countStreamDeliveries(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const c = counts.get(r.id);
    return {
      id: r.id,
      accountId: r.account_id,
      status: r.status,
      tag: r.tag ?? '',
      webhookUrl: r.webhook_url ?? '',
      chainIds: r.chain_ids.map(Number),
      pending: c?.pending ?? 0,
      held: c?.held ?? 0,
      failed: c?.failed ?? 0,
    };
  });
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
