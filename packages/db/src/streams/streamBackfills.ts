import type { Pool, PoolClient } from 'pg';
import { bytesToHex } from '../bytes.ts';

type Db = Pool | PoolClient;

type StreamBackfillStatus = 'running' | 'done' | 'cancelled' | 'failed';

/** A per-stream backfill (migration 082) as its owner and the status command see it. */
export interface StreamBackfill {
  id: string;
  streamId: string;
  accountId: string;
  chainId: number;
  fromBlock: number;
  toBlock: number;
  /** The first block not yet evaluated. */
  nextBlock: number;
  dryRun: boolean;
  status: StreamBackfillStatus;
  blocksFromTables: number;
  blocksFromNode: number;
  matchedBlocks: number;
  webhooks: number;
  waiting: string | null;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** A backfill as a worker takes it for one turn. */
export interface ClaimedStreamBackfill extends StreamBackfill {
  /** The stream's status now (its webhooks are held while it is in error; a paused stream's backfill waits). */
  streamStatus: 'active' | 'paused' | 'error' | 'terminated';
}

/** The stream's config and addresses as they were when the backfill was asked for. */
export async function readStreamBackfillSnapshot(
  db: Db,
  id: string,
): Promise<{ config: unknown; addresses: string[] } | undefined> {
  const { rows } = await db.query<{ config: unknown; addresses: Buffer[] }>(
    'SELECT config, addresses FROM stream_backfills WHERE id = $1',
    [id],
  );
  const r = rows[0];
  return r ? { config: r.config, addresses: r.addresses.map(bytesToHex) } : undefined;
}

const COLUMNS = `b.id, b.stream_id, b.account_id, b.chain_id, b.from_block, b.to_block, b.next_block, b.dry_run,
  b.status, b.blocks_from_tables, b.blocks_from_node, b.matched_blocks, b.webhooks, b.waiting, b.error,
  b.created_at, b.finished_at`;

interface RawRow {
  id: string;
  stream_id: string;
  account_id: string;
  chain_id: string;
  from_block: string;
  to_block: string;
  next_block: string;
  dry_run: boolean;
  status: StreamBackfillStatus;
  blocks_from_tables: string;
  blocks_from_node: string;
  matched_blocks: string;
  webhooks: string;
  waiting: string | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const toBackfill = (r: RawRow): StreamBackfill => ({
  id: r.id,
  streamId: r.stream_id,
  accountId: r.account_id,
  chainId: Number(r.chain_id),
  fromBlock: Number(r.from_block),
  toBlock: Number(r.to_block),
  nextBlock: Number(r.next_block),
  dryRun: r.dry_run,
  status: r.status,
  blocksFromTables: Number(r.blocks_from_tables),
  blocksFromNode: Number(r.blocks_from_node),
  matchedBlocks: Number(r.matched_blocks),
  webhooks: Number(r.webhooks),
  waiting: r.waiting,
  error: r.error,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

/**
 * Asks for a stream's webhooks of [fromBlock, toBlock] on one chain, with the stream's config and
 * addresses copied as they are now. Undefined when the account has no such stream.
 */
export async function createStreamBackfill(
  db: Db,
  r: {
    accountId: string;
    streamId: string;
    chainId: number;
    fromBlock: number;
    toBlock: number;
    dryRun: boolean;
  },
): Promise<StreamBackfill | undefined> {
  const { rows } = await db.query<RawRow>(
    `WITH b AS (
       INSERT INTO stream_backfills (stream_id, account_id, chain_id, from_block, to_block, next_block, dry_run,
                                     config, addresses)
       SELECT s.id, s.account_id, $3, $4, $5, $4, $6, s.config,
              coalesce((SELECT array_agg(a.address) FROM stream_addresses a WHERE a.stream_id = s.id), '{}')
         FROM streams s WHERE s.id = $1 AND s.account_id = $2
       RETURNING *)
     SELECT ${COLUMNS} FROM b`,
    [r.streamId, r.accountId, r.chainId, r.fromBlock, r.toBlock, r.dryRun],
  );
  return rows[0] ? toBackfill(rows[0]) : undefined;
}

export async function getStreamBackfill(
  db: Db,
  streamId: string,
  id: string,
): Promise<StreamBackfill | undefined> {
  const { rows } = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM stream_backfills b WHERE b.id = $1 AND b.stream_id = $2`,
    [id, streamId],
  );
  return rows[0] ? toBackfill(rows[0]) : undefined;
}

/** A stream's backfills, newest first. */
export async function listStreamBackfills(
  db: Db,
  streamId: string,
  limit: number,
): Promise<StreamBackfill[]> {
  const { rows } = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM stream_backfills b WHERE b.stream_id = $1 ORDER BY b.id DESC LIMIT $2`,
    [streamId, limit],
  );
  return rows.map(toBackfill);
}

/** Every running backfill, oldest first (the status command). */
export async function listRunningStreamBackfills(db: Db): Promise<StreamBackfill[]> {
  const { rows } = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM stream_backfills b WHERE b.status = 'running' ORDER BY b.id`,
  );
  return rows.map(toBackfill);
}

/** The account's running backfills (its quota). */
export async function countRunningStreamBackfills(db: Db, accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM stream_backfills WHERE account_id = $1 AND status = 'running'`,
    [accountId],
  );
  return rows[0]?.n ?? 0;
}

/** A backfill's webhooks that were delivered. */
export async function countBackfillDelivered(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>(ids.map((id) => [id, 0]));
  if (ids.length === 0) return out;
  const { rows } = await db.query<{ backfill_id: string; n: string }>(
    `SELECT backfill_id, count(*) AS n FROM deliveries
      WHERE backfill_id = ANY($1::bigint[]) AND backfill_id <> 0 AND status = 'delivered' GROUP BY backfill_id`,
    [ids],
  );
  for (const r of rows) out.set(r.backfill_id, Number(r.n));
  return out;
}

/**
 * Stops a running backfill: no further chunk is evaluated (one being committed when the cancel
 * lands is refused, see commitStreamBackfillChunk). Webhooks already stored are still sent.
 * Undefined: no such backfill; a finished one is returned as it is.
 */
export async function cancelStreamBackfill(
  db: Db,
  streamId: string,
  id: string,
): Promise<{ backfill: StreamBackfill; cancelled: boolean } | undefined> {
  const { rows } = await db.query<RawRow>(
    `UPDATE stream_backfills b SET status = 'cancelled', finished_at = now(), updated_at = now(), waiting = NULL
      WHERE b.id = $1 AND b.stream_id = $2 AND b.status = 'running' RETURNING ${COLUMNS}`,
    [id, streamId],
  );
  if (rows[0]) return { backfill: toBackfill(rows[0]), cancelled: true };
  const found = await getStreamBackfill(db, streamId, id);
  return found ? { backfill: found, cancelled: false } : undefined;
}

/**
 * Takes the running backfill that moved least recently and that no live worker holds, for
 * `leaseMs`: workers take turns between backfills, a chunk at a time, so a long one never starves
 * the others. A worker that dies leaves its lease to run out; another takes over at next_block.
 */
export async function claimStreamBackfill(
  db: Db,
  owner: string,
  leaseMs: number,
): Promise<ClaimedStreamBackfill | undefined> {
  const { rows } = await db.query<RawRow & { stream_status: ClaimedStreamBackfill['streamStatus'] }>(
    `WITH pick AS (
       SELECT id FROM stream_backfills
        WHERE status = 'running' AND (lease_until IS NULL OR lease_until < now() OR lease_owner = $1)
        ORDER BY updated_at LIMIT 1 FOR UPDATE SKIP LOCKED),
     b AS (
       UPDATE stream_backfills b SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::float8 / 1000)
         FROM pick WHERE b.id = pick.id RETURNING b.*)
     SELECT ${COLUMNS}, s.status AS stream_status
       FROM b JOIN streams s ON s.id = b.stream_id`,
    [owner, leaseMs],
  );
  const r = rows[0];
  if (!r) return undefined;
  return { ...toBackfill(r), streamStatus: r.stream_status };
}

/**
 * One chunk evaluated, in the transaction that stored its deliveries: moves next_block and the
 * counts, and finishes the backfill past to_block. False when it is no longer this worker's to
 * move (cancelled, or its lease taken over): the caller rolls back.
 */
export async function commitStreamBackfillChunk(
  db: Db,
  c: {
    id: string;
    owner: string;
    nextBlock: number;
    fromTables: number;
    fromNode: number;
    matchedBlocks: number;
    webhooks: number;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE stream_backfills SET next_block = $3, blocks_from_tables = blocks_from_tables + $4,
            blocks_from_node = blocks_from_node + $5, matched_blocks = matched_blocks + $6,
            webhooks = webhooks + $7, waiting = NULL, updated_at = now(),
            status = CASE WHEN $3 > to_block THEN 'done' ELSE status END,
            finished_at = CASE WHEN $3 > to_block THEN now() ELSE NULL END
      WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND next_block < $3`,
    [c.id, c.owner, c.nextBlock, c.fromTables, c.fromNode, c.matchedBlocks, c.webhooks],
  );
  return rowCount === 1;
}

/** Why a running backfill does not move now (null: it moves again); its turn goes to the next one. */
export async function setStreamBackfillWaiting(
  db: Db,
  id: string,
  owner: string,
  waiting: string | null,
): Promise<void> {
  await db.query(
    `UPDATE stream_backfills SET waiting = $3, updated_at = now()
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
    [id, owner, waiting],
  );
}

/** A backfill that can never finish (its config no longer compiles, the range is gone from the node): said and stopped. */
export async function failStreamBackfill(db: Db, id: string, owner: string, error: string): Promise<void> {
  await db.query(
    `UPDATE stream_backfills SET status = 'failed', error = $3, waiting = NULL, finished_at = now(), updated_at = now()
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
    [id, owner, error],
  );
}

/** Hands a backfill back before its lease runs out (a worker stopping). */
export async function releaseStreamBackfill(db: Db, id: string, owner: string): Promise<void> {
  await db.query(
    `UPDATE stream_backfills SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2`,
    [id, owner],
  );
}

/** This backfill's webhooks still pending delivery (the worker waits for them above its limit). */
export async function countBackfillPending(db: Db, id: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM deliveries WHERE backfill_id = $1 AND backfill_id <> 0 AND status = 'pending'`,
    [id],
  );
  return rows[0]?.n ?? 0;
}
