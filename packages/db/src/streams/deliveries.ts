import type { Pool, PoolClient } from 'pg';
import { type WebhookSecrets, webhookSecretColumns, webhookSecretsOf } from '../accounts/webhookSecrets.ts';
import { hexToBytes } from '../bytes.ts';

type Db = Pool | PoolClient;

import type { DeliveryStatus } from '@tributary/schema';

export interface NewDelivery {
  id: string;
  streamId: string;
  chainId: number;
  blockNumber: number;
  blockHash: string;
  /**
   * The block's timestamp (Unix seconds), as its header and the webhook body carry it: the
   * partition key, so that every insert of one block's delivery meets the row already there.
   */
  blockTimestamp: number;
  confirmed: boolean;
  /** A removal notice (unconfirmed data of an orphaned block retracted); confirmed is then false. */
  removal?: boolean;
  body: string;
  status: 'pending' | 'held';
  logsCount: number;
  txsCount: number;
  /**
   * The BullMQ job that is to deliver it (the relay re-enqueues a pending delivery whose job is
   * gone; only that job may attempt it). Unnamed: any job may, and the relay names one.
   */
  jobId?: string;
  /** The per-stream backfill that sends it (stream_backfills.id); absent: a live delivery. */
  backfillId?: string;
  /**
   * An ordered stream's confirmed webhook: stored to be numbered (sequence 0), never sent before
   * it has its number (assignSequence).
   */
  numbered?: boolean;
}

/**
 * Inserts the delivery of one (stream, chain, block, confirmed, removal), or finds the one already there
 * (a replayed block). Returns its id and status so the caller enqueues only pending ones.
 */
export async function insertDelivery(db: Db, d: NewDelivery): Promise<StoredDelivery> {
  const ins = await db.query<{ id: string; status: DeliveryStatus; job_id: string | null }>(
    `INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, confirmed, body, status, logs_count, txs_count, job_id, removal, block_time, backfill_id, sequence)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, to_timestamp($13::bigint), $14, $15)
     ON CONFLICT (stream_id, chain_id, block_hash, confirmed, removal, backfill_id, block_time) DO NOTHING RETURNING id, status, job_id`,
    [
      d.id,
      d.streamId,
      d.chainId,
      d.blockNumber,
      hexToBytes(d.blockHash),
      d.confirmed,
      d.body,
      d.status,
      d.logsCount,
      d.txsCount,
      d.jobId ?? null,
      d.removal ?? false,
      d.blockTimestamp,
      d.backfillId ?? '0',
      d.numbered ? 0 : null,
    ],
  );
  const stored = (r: { id: string; status: DeliveryStatus; job_id: string | null }, created: boolean) => ({
    id: r.id,
    status: r.status,
    created,
    jobId: r.job_id ?? undefined,
  });
  if (ins.rows[0]) return stored(ins.rows[0], true);
  const { rows } = await db.query<{ id: string; status: DeliveryStatus; job_id: string | null }>(
    `SELECT id, status, job_id FROM deliveries
      WHERE stream_id = $1 AND chain_id = $2 AND block_hash = $3 AND confirmed = $4 AND removal = $5
        AND block_time = to_timestamp($6::bigint) AND backfill_id = $7`,
    [
      d.streamId,
      d.chainId,
      hexToBytes(d.blockHash),
      d.confirmed,
      d.removal ?? false,
      d.blockTimestamp,
      d.backfillId ?? '0',
    ],
  );
  return stored(rows[0]!, false);
}

/** A delivery row as the matcher finds it after its insert: new, or the one a replay left. */
export interface StoredDelivery {
  id: string;
  status: DeliveryStatus;
  created: boolean;
  /** The job named in the row (undefined for rows from before jobs were named). */
  jobId: string | undefined;
}

/** The key of insertDeliveries' answer: one delivery per stream and kind (unconfirmed, confirmed, removal) of a block. */
export const deliveryKey = (streamId: string, confirmed: boolean, removal = false) =>
  `${streamId}:${removal ? 'r' : confirmed ? 'c' : 'u'}`;

/**
 * The deliveries of one block in one round trip: inserts the new ones and returns, per stream and
 * confirmation (deliveryKey), the id and status of its row (the existing one for a replayed block).
 */
export async function insertDeliveries(
  db: Db,
  list: readonly NewDelivery[],
): Promise<Map<string, StoredDelivery>> {
  const out = new Map<string, StoredDelivery>();
  if (list.length === 0) return out;
  const { rows } = await db.query<{
    stream_id: string;
    confirmed: boolean;
    removal: boolean;
    id: string;
    status: DeliveryStatus;
    job_id: string | null;
    created: boolean;
  }>(
    `WITH input AS (
       SELECT id, stream_id, chain_id, block_number, block_hash, confirmed, body, status, logs_count, txs_count,
              job_id, removal, to_timestamp(block_timestamp) AS block_time, backfill_id, sequence
         FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::bigint[], $5::bytea[], $6::boolean[],
                     $7::text[], $8::text[], $9::int[], $10::int[], $11::text[], $12::boolean[], $13::bigint[],
                     $14::bigint[], $15::bigint[])
           AS t(id, stream_id, chain_id, block_number, block_hash, confirmed, body, status, logs_count, txs_count,
                job_id, removal, block_timestamp, backfill_id, sequence)),
     ins AS (
       INSERT INTO deliveries (id, stream_id, chain_id, block_number, block_hash, confirmed, body, status, logs_count,
                               txs_count, job_id, removal, block_time, backfill_id, sequence)
       SELECT * FROM input
       ON CONFLICT (stream_id, chain_id, block_hash, confirmed, removal, backfill_id, block_time) DO NOTHING
       RETURNING stream_id, confirmed, removal, id, status, job_id)
     SELECT stream_id, confirmed, removal, id, status, job_id, true AS created FROM ins
     UNION ALL
     SELECT d.stream_id, d.confirmed, d.removal, d.id, d.status, d.job_id, false FROM deliveries d JOIN input i
       ON d.stream_id = i.stream_id AND d.chain_id = i.chain_id AND d.block_hash = i.block_hash
      AND d.confirmed = i.confirmed AND d.removal = i.removal AND d.block_time = i.block_time
      AND d.backfill_id = i.backfill_id`,
    [
      list.map((d) => d.id),
      list.map((d) => d.streamId),
      list.map((d) => d.chainId),
      list.map((d) => d.blockNumber),
      list.map((d) => hexToBytes(d.blockHash)),
      list.map((d) => d.confirmed),
      list.map((d) => d.body),
      list.map((d) => d.status),
      list.map((d) => d.logsCount),
      list.map((d) => d.txsCount),
      list.map((d) => d.jobId ?? null),
      list.map((d) => d.removal ?? false),
      list.map((d) => d.blockTimestamp),
      list.map((d) => d.backfillId ?? '0'),
      list.map((d) => (d.numbered ? 0 : null)),
    ],
  );
  for (const r of rows)
    out.set(deliveryKey(r.stream_id, r.confirmed, r.removal), {
      id: r.id,
      status: r.status,
      created: r.created,
      jobId: r.job_id ?? undefined,
    });
  return out;
}

/**
 * SQL over a delivery `d`: it is numbered and the one before it in its stream is not settled
 * (pending or held), or it is still to be numbered (0). Its turn comes when that one is delivered
 * or failed for good. An unnumbered delivery (every one of a stream that is not ordered) never
 * reaches the subquery: the send path pays nothing for it.
 */
export const WAITS_FOR_PREVIOUS = `CASE
    WHEN d.sequence IS NULL THEN false
    WHEN d.sequence = 0 THEN true
    ELSE d.sequence > 1 AND EXISTS (
      SELECT 1 FROM deliveries p WHERE p.stream_id = d.stream_id AND p.sequence = d.sequence - 1
         AND p.status IN ('pending', 'held'))
  END`;

/** Everything one attempt needs, read fresh at each attempt (the URL or secret may have changed). */
export interface DeliveryToSend {
  id: string;
  streamId: string;
  status: DeliveryStatus;
  body: string;
  attempts: number;
  streamStatus: 'active' | 'paused' | 'error' | 'terminated';
  /** Delivery health as read with the delivery (100 = nothing to recover). */
  successRate: number;
  webhookUrl: string;
  /** The account's secrets as they sign now (read at each attempt: a rotation applies to retries). */
  secrets: WebhookSecrets;
  /** The job named to deliver it (null: any). */
  jobId: string | null;
  /** The stream's `maxRequestsPerSecond` (null: no limit). */
  maxRequestsPerSecond: number | null;
  /** Its number in an ordered stream (null: not numbered). */
  sequence: number | null;
  /** Numbered, and the delivery before it is not settled yet (pending or held): it must wait its turn. */
  waitsForPrevious: boolean;
}

/**
 * What an attempt needs of each delivery, in one round trip (the sender batches concurrent
 * attempts): primary-key reads joined with their stream and account, as a prepared statement.
 */
export async function getDeliveriesToSend(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, DeliveryToSend>> {
  const { rows } = await db.query<{
    id: string;
    stream_id: string;
    status: DeliveryStatus;
    body: string;
    attempts: number;
    stream_status: DeliveryToSend['streamStatus'];
    success_rate: number;
    webhook_url: string;
    secret: string;
    previous_secret: string | null;
    previous_valid_until: Date | null;
    job_id: string | null;
    max_rps: number | null;
    sequence: string | null;
    waits: boolean;
  }>({
    name: 'deliveries-to-send-v7',
    text: `SELECT d.id, d.stream_id, d.status, d.body, d.attempts, d.job_id, s.status AS stream_status, s.success_rate,
                  d.sequence, ${WAITS_FOR_PREVIOUS} AS waits,
                  s.config->>'webhookUrl' AS webhook_url, (s.config->>'maxRequestsPerSecond')::int AS max_rps,
                  ${webhookSecretColumns('a')}
             FROM deliveries d JOIN streams s ON s.id = d.stream_id JOIN accounts a ON a.id = s.account_id
            WHERE d.id = ANY($1::uuid[])`,
    values: [ids],
  });
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        streamId: r.stream_id,
        status: r.status,
        body: r.body,
        attempts: r.attempts,
        streamStatus: r.stream_status,
        successRate: r.success_rate,
        webhookUrl: r.webhook_url,
        secrets: webhookSecretsOf(r),
        jobId: r.job_id,
        maxRequestsPerSecond: r.max_rps,
        sequence: r.sequence === null || r.sequence === '0' ? null : Number(r.sequence),
        waitsForPrevious: r.waits,
      },
    ]),
  );
}

/** Records one attempt and moves the delivery to its new status; the attempt number is allocated here. */
export async function recordAttempt(
  db: Db,
  a: {
    deliveryId: string;
    statusCode: number | null;
    latencyMs: number;
    error: string | null;
    newStatus: DeliveryStatus;
  },
): Promise<number> {
  const { rows } = await db.query<{ attempts: number }>(
    `WITH d AS (
       UPDATE deliveries SET attempts = attempts + 1, status = $5, last_error = $4,
         delivered_at = CASE WHEN $5 = 'delivered' THEN now() ELSE delivered_at END
       WHERE id = $1 RETURNING attempts, block_time, stream_id)
     INSERT INTO delivery_attempts (delivery_id, block_time, stream_id, attempt, status_code, latency_ms, error)
     SELECT $1, d.block_time, d.stream_id, d.attempts, $2, $3, $4 FROM d RETURNING attempt AS attempts`,
    [a.deliveryId, a.statusCode, a.latencyMs, a.error, a.newStatus],
  );
  return rows[0]?.attempts ?? 0;
}

/**
 * Successful attempts of many deliveries in one round trip: each attempt row and the delivery's
 * new status. The stream's health is the caller's (recordStreamHealth, only for streams below
 * 100), so concurrent batches touch disjoint rows and cannot deadlock.
 */
export async function recordDeliveredMany(
  db: Db,
  list: readonly { deliveryId: string; statusCode: number; latencyMs: number }[],
): Promise<void> {
  if (list.length === 0) return;
  await db.query({
    name: 'delivered-many-v2',
    text: `WITH input AS (SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[]) AS t(id, status_code, latency_ms)),
     d AS (
       UPDATE deliveries SET attempts = deliveries.attempts + 1, status = 'delivered', last_error = NULL, delivered_at = now()
       FROM input WHERE deliveries.id = input.id
       RETURNING deliveries.id, deliveries.attempts, deliveries.block_time, deliveries.stream_id)
     INSERT INTO delivery_attempts (delivery_id, block_time, stream_id, attempt, status_code, latency_ms, error)
     SELECT d.id, d.block_time, d.stream_id, d.attempts, i.status_code, i.latency_ms, NULL FROM d JOIN input i ON i.id = d.id`,
    values: [list.map((a) => a.deliveryId), list.map((a) => a.statusCode), list.map((a) => a.latencyMs)],
  });
}

export async function setDeliveryStatus(db: Db, id: string, status: DeliveryStatus): Promise<void> {
  await db.query('UPDATE deliveries SET status = $2 WHERE id = $1', [id, status]);
}

/**
 * Deliveries that cannot be sent because of a fault of ours that retrying cannot cure (the
 * sender's bookkeeping failed for good): failed, with the reason, in history for a replay once
 * the cause is fixed. Only those still pending: an outcome recorded meanwhile stands.
 */
export async function setDeliveriesAside(db: Db, ids: readonly string[], reason: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE deliveries SET status = 'failed', last_error = $2
      WHERE id = ANY($1::uuid[]) AND status = 'pending' RETURNING id`,
    [ids, reason.slice(0, 2_000)],
  );
  return rows.map((r) => r.id);
}

/**
 * Held deliveries of a stream become pending again (on re-activation), each named to the job
 * `<delivery id><jobSuffix>`; returns their ids to enqueue under those job ids.
 */
export async function releaseHeldDeliveries(db: Db, streamId: string, jobSuffix: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE deliveries d SET status = 'pending', job_id = d.id::text || $2, job_at = now()
       FROM delivery_queue q
      WHERE q.stream_id = $1 AND q.status = 'held' AND d.id = q.id AND d.block_time = q.block_time
        AND d.status = 'held' RETURNING d.id`,
    [streamId, jobSuffix],
  );
  return rows.map((r) => r.id);
}
