import type { Pool, PoolClient } from 'pg';

import type { StreamStatus } from '@tributary/schema';

export interface StreamRow {
  id: string;
  accountId: string;
  config: Record<string, unknown>;
  chainIds: number[];
  /** Chain id (decimal) -> the last block before the stream's first: only later blocks are delivered. */
  startBlocks: Record<string, number>;
  status: StreamStatus;
  statusMessage: string;
  successRate: number;
  errorSince: Date | null;
  createdAt: Date;
  /** created_at at full (microsecond) precision, for keyset cursors. */
  createdAtKey: string;
  /** Why the matcher no longer evaluates it (over its time budget); null while it does. */
  suspendedReason: string | null;
}

type Db = Pool | PoolClient;

const COLUMNS = `id, account_id, config, chain_ids, start_blocks, status, status_message, success_rate, error_since, created_at, created_at::text AS created_at_key, suspended_reason`;

/** The streams a matcher evaluates: active ones, those in error (webhooks held), none suspended (migration 071). */
export const MATCHABLE = `status IN ('active', 'error') AND suspended_reason IS NULL`;

// The follower checkpoints of the given chains, as a start_blocks map.
const CHECKPOINTS_OF = (chainIds: string, extra = '') =>
  `(SELECT coalesce(jsonb_object_agg(c.chain_id::text, c.block_number), '{}'::jsonb)
      FROM follower_checkpoints c WHERE c.chain_id = ANY(${chainIds}::bigint[])${extra})`;

interface RawRow {
  id: string;
  account_id: string;
  config: Record<string, unknown>;
  chain_ids: string[];
  start_blocks: Record<string, number>;
  status: StreamStatus;
  status_message: string;
  success_rate: number;
  error_since: Date | null;
  created_at: Date;
  created_at_key: string;
  suspended_reason: string | null;
}

const toRow = (r: RawRow): StreamRow => ({
  id: r.id,
  accountId: r.account_id,
  config: r.config,
  chainIds: r.chain_ids.map(Number),
  startBlocks: r.start_blocks,
  status: r.status,
  statusMessage: r.status_message,
  successRate: r.success_rate,
  errorSince: r.error_since,
  createdAt: r.created_at,
  createdAtKey: r.created_at_key,
  suspendedReason: r.suspended_reason,
});

export async function insertStream(
  db: Db,
  s: { id: string; accountId: string; config: Record<string, unknown>; chainIds: number[] },
): Promise<StreamRow> {
  const { rows } = await db.query<RawRow>(
    `INSERT INTO streams (id, account_id, config, chain_ids, start_blocks)
     VALUES ($1, $2, $3, $4, ${CHECKPOINTS_OF('$4')}) RETURNING ${COLUMNS}`,
    [s.id, s.accountId, JSON.stringify(s.config), s.chainIds],
  );
  return toRow(rows[0]!);
}

/** A stream of one account (undefined when it does not exist or belongs to another account). */
export async function getStream(db: Db, accountId: string, id: string): Promise<StreamRow | undefined> {
  const { rows } = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM streams WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function getStreamById(db: Db, id: string): Promise<StreamRow | undefined> {
  const { rows } = await db.query<RawRow>(`SELECT ${COLUMNS} FROM streams WHERE id = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** Keyset page of an account's streams, oldest first; `after` is the last (createdAt, id) of the previous page. */
export async function listStreams(
  db: Db,
  accountId: string,
  limit: number,
  after?: { createdAt: string; id: string },
): Promise<{ rows: StreamRow[]; total: number }> {
  const params: unknown[] = [accountId, limit];
  let where = 'account_id = $1';
  if (after) {
    params.push(after.createdAt, after.id);
    where += ' AND (created_at, id) > ($3::timestamptz, $4::uuid)';
  }
  const [page, count] = await Promise.all([
    db.query<RawRow>(
      `SELECT ${COLUMNS} FROM streams WHERE ${where} ORDER BY created_at, id LIMIT $2`,
      params,
    ),
    db.query<{ n: string }>('SELECT count(*) AS n FROM streams WHERE account_id = $1', [accountId]),
  ]);
  return { rows: page.rows.map(toRow), total: Number(count.rows[0]?.n ?? 0) };
}

export async function updateStreamConfig(
  db: Db,
  accountId: string,
  id: string,
  config: Record<string, unknown>,
  chainIds: number[],
): Promise<StreamRow | undefined> {
  const { rows } = await db.query<RawRow>(
    // A chain added by the update starts at its current checkpoint; the others keep theirs.
    `UPDATE streams
        SET config = $3, chain_ids = $4, updated_at = now(), suspended_reason = NULL,
            start_blocks = start_blocks || ${CHECKPOINTS_OF('$4', ' AND NOT streams.start_blocks ? c.chain_id::text')}
      WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
    [id, accountId, JSON.stringify(config), chainIds],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function deleteStream(db: Db, accountId: string, id: string): Promise<StreamRow | undefined> {
  const { rows } = await db.query<RawRow>(
    `DELETE FROM streams WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
    [id, accountId],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

/**
 * Sets a caller-chosen status. Becoming active again resets the delivery health, so held
 * deliveries get a fair start. A terminated stream stays terminated.
 */
export async function setStreamStatus(
  db: Db,
  accountId: string,
  id: string,
  status: 'active' | 'paused',
  message: string,
): Promise<StreamRow | undefined> {
  const { rows } = await db.query<RawRow>(
    `UPDATE streams SET status = $3, status_message = $4, updated_at = now(),
       success_rate = CASE WHEN $3 = 'active' THEN 100 ELSE success_rate END,
       error_since = CASE WHEN $3 = 'active' THEN NULL ELSE error_since END,
       suspended_reason = CASE WHEN $3 = 'active' THEN NULL ELSE suspended_reason END
     WHERE id = $1 AND account_id = $2 AND status <> 'terminated' RETURNING ${COLUMNS}`,
    [id, accountId, status, message],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

/**
 * Stops evaluating a stream that went over the matcher's time budget: `error`, with the reason as
 * its status message, until its owner updates it or sets it active. Returns whether it was
 * suspended now (false: gone, paused, terminated or suspended already).
 */
export async function suspendStreamEvaluation(db: Db, id: string, reason: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE streams SET status = 'error', status_message = $2, suspended_reason = $2,
            error_since = coalesce(error_since, now()), updated_at = now()
      WHERE id = $1 AND ${MATCHABLE}`,
    [id, reason],
  );
  return (rowCount ?? 0) > 0;
}

/** Every stream the matcher evaluates: active ones, and those in error (their webhooks are held). */
export async function loadMatchableStreams(db: Db): Promise<StreamRow[]> {
  const { rows } = await db.query<RawRow>(`SELECT ${COLUMNS} FROM streams WHERE ${MATCHABLE}`);
  return rows.map(toRow);
}

/**
 * Applies one delivery result to the stream's health: +1 on success (capped at 100), -1 on a
 * failed attempt; below `threshold` an active stream goes to `error`. Returns the new status
 * when it changed.
 */
export async function recordStreamHealth(
  db: Db,
  streamId: string,
  success: boolean,
  threshold: number,
): Promise<{ status: StreamStatus; changed: boolean } | undefined> {
  if (success) {
    // The hot path: a healthy stream (rate 100) is not written, so concurrent deliveries of
    // one stream do not queue on its row lock.
    const { rows } = await db.query<{ status: StreamStatus }>(
      `WITH up AS (UPDATE streams SET success_rate = success_rate + 1 WHERE id = $1 AND success_rate < 100 RETURNING status)
       SELECT status FROM up UNION ALL SELECT status FROM streams WHERE id = $1 LIMIT 1`,
      [streamId],
    );
    return rows[0] ? { status: rows[0].status, changed: false } : undefined;
  }
  const { rows } = await db.query<{ status: StreamStatus; changed: boolean }>(
    `WITH before AS (SELECT status FROM streams WHERE id = $1 FOR UPDATE)
     UPDATE streams s SET
       success_rate = LEAST(100, GREATEST(0, s.success_rate + CASE WHEN $2 THEN 1 ELSE -1 END)),
       status = CASE WHEN s.status = 'active' AND NOT $2 AND GREATEST(0, s.success_rate - 1) < $3 THEN 'error' ELSE s.status END,
       status_message = CASE WHEN s.status = 'active' AND NOT $2 AND GREATEST(0, s.success_rate - 1) < $3
         THEN 'Stream is in error: its webhook delivery success rate fell below ' || $3 || '%' ELSE s.status_message END,
       error_since = CASE WHEN s.status = 'active' AND NOT $2 AND GREATEST(0, s.success_rate - 1) < $3 THEN now() ELSE s.error_since END
     FROM before WHERE s.id = $1
     RETURNING s.status, s.status IS DISTINCT FROM before.status AS changed`,
    [streamId, success, threshold],
  );
  return rows[0];
}

/**
 * `failures` failed attempts of one stream at once (the sender counts them per event-loop turn):
 * -1 each; below `threshold` an active stream goes to `error`. One short row update, so a
 * failing endpoint does not queue every attempt on its stream's row lock.
 */
export async function recordStreamFailures(
  db: Db,
  streamId: string,
  failures: number,
  threshold: number,
): Promise<{ status: StreamStatus; changed: boolean } | undefined> {
  const { rows } = await db.query<{ status: StreamStatus; changed: boolean }>(
    `UPDATE streams s SET
       success_rate = GREATEST(0, s.success_rate - $2),
       status = CASE WHEN s.status = 'active' AND GREATEST(0, s.success_rate - $2) < $3 THEN 'error' ELSE s.status END,
       status_message = CASE WHEN s.status = 'active' AND GREATEST(0, s.success_rate - $2) < $3
         THEN 'Stream is in error: its webhook delivery success rate fell below ' || $3 || '%' ELSE s.status_message END,
       error_since = CASE WHEN s.status = 'active' AND GREATEST(0, s.success_rate - $2) < $3 THEN now() ELSE s.error_since END
     WHERE s.id = $1
     RETURNING s.status, (s.status = 'error' AND s.error_since = now()) AS changed`,
    [streamId, failures, threshold],
  );
  return rows[0];
}

/** Streams in error for longer than `afterMs` become terminated (final). Returns their ids. */
export async function terminateStaleErrorStreams(db: Db, afterMs: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE streams SET status = 'terminated', updated_at = now(),
       status_message = 'Stream was terminated after staying in error for too long'
     WHERE status = 'error' AND error_since < now() - ($1::bigint * interval '1 millisecond') RETURNING id`,
    [afterMs],
  );
  return rows.map((r) => r.id);
}
