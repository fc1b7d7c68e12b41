import type { Pool, PoolClient } from 'pg';

type Db = Pool | PoolClient;

export interface BackfillRequest {
  id: string;
  chainId: number;
  fromBlock: number;
  toBlock: number;
  /** The first block not yet re-published. */
  nextBlock: number;
  createdAt: Date;
  /** Done or cancelled: the follower no longer works on it. */
  finishedAt: Date | null;
  /** When an operator cancelled it (finishedAt is set then too); null when it was not. */
  cancelledAt: Date | null;
}

const COLUMNS = 'id, chain_id, from_block, to_block, next_block, created_at, finished_at, cancelled_at';

interface RawRow {
  id: string;
  chain_id: string;
  from_block: string;
  to_block: string;
  next_block: string;
  created_at: Date;
  finished_at: Date | null;
  cancelled_at: Date | null;
}

const toRequest = (r: RawRow): BackfillRequest => ({
  id: r.id,
  chainId: Number(r.chain_id),
  fromBlock: Number(r.from_block),
  toBlock: Number(r.to_block),
  nextBlock: Number(r.next_block),
  createdAt: r.created_at,
  finishedAt: r.finished_at,
  cancelledAt: r.cancelled_at,
});

/** Asks the chain's follower to re-publish blocks [fromBlock, toBlock]. */
export async function requestBackfill(
  db: Db,
  r: { chainId: number; fromBlock: number; toBlock: number },
): Promise<BackfillRequest> {
  const { rows } = await db.query<RawRow>(
    `INSERT INTO backfill_requests (chain_id, from_block, to_block, next_block)
     VALUES ($1, $2, $3, $2) RETURNING ${COLUMNS}`,
    [r.chainId, r.fromBlock, r.toBlock],
  );
  return toRequest(rows[0]!);
}

/**
 * A request for exactly this range: the open one when there is one (two consumers that find the
 * same gap in the block topic ask once), else a new one.
 */
export async function requestBackfillOnce(
  db: Db,
  r: { chainId: number; fromBlock: number; toBlock: number },
): Promise<BackfillRequest> {
  const { rows } = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM backfill_requests
      WHERE chain_id = $1 AND from_block = $2 AND to_block = $3 AND finished_at IS NULL ORDER BY id LIMIT 1`,
    [r.chainId, r.fromBlock, r.toBlock],
  );
  return rows[0] ? toRequest(rows[0]) : requestBackfill(db, r);
}

export async function getBackfillRequest(db: Db, id: string): Promise<BackfillRequest | undefined> {
  const { rows } = await db.query<RawRow>(`SELECT ${COLUMNS} FROM backfill_requests WHERE id = $1`, [id]);
  return rows[0] ? toRequest(rows[0]) : undefined;
}

/** The oldest unfinished request of a chain (one at a time, in the order they were made). */
export async function nextBackfillRequest(db: Db, chainId: number): Promise<BackfillRequest | undefined> {
  const { rows } = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM backfill_requests WHERE chain_id = $1 AND finished_at IS NULL ORDER BY id LIMIT 1`,
    [chainId],
  );
  return rows[0] ? toRequest(rows[0]) : undefined;
}

/** Every unfinished request, oldest first (the status command shows them). */
export async function listOpenBackfills(db: Db): Promise<BackfillRequest[]> {
  const { rows } = await db.query<RawRow>(
    `SELECT ${COLUMNS} FROM backfill_requests WHERE finished_at IS NULL ORDER BY chain_id, id`,
  );
  return rows.map(toRequest);
}

/**
 * Blocks below `nextBlock` were re-published (Kafka acknowledged them); past to_block the request
 * is done. False when the request was cancelled meanwhile: it stays as the cancel left it (a chunk
 * in flight when the cancel landed must not reopen it).
 */
export async function advanceBackfill(db: Db, id: string, nextBlock: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE backfill_requests SET next_block = $2, updated_at = now(),
       finished_at = CASE WHEN $2 > to_block THEN now() ELSE NULL END
     WHERE id = $1 AND cancelled_at IS NULL`,
    [id, nextBlock],
  );
  return rowCount === 1;
}

/** What a cancel found: the request, unless there is none with that id. */
export type CancelBackfillResult =
  | { outcome: 'cancelled'; request: BackfillRequest }
  | { outcome: 'already-cancelled'; request: BackfillRequest }
  | { outcome: 'already-done'; request: BackfillRequest }
  | { outcome: 'not-found' };

/**
 * Stops a request that is not finished: it is finished and cancelled as of now, and keeps how far
 * it got (next_block). The follower re-publishes at most the chunk it had in flight.
 */
export async function cancelBackfill(db: Db, id: string): Promise<CancelBackfillResult> {
  const { rows } = await db.query<RawRow>(
    `UPDATE backfill_requests SET cancelled_at = now(), finished_at = now(), updated_at = now()
     WHERE id = $1 AND finished_at IS NULL RETURNING ${COLUMNS}`,
    [id],
  );
  if (rows[0]) return { outcome: 'cancelled', request: toRequest(rows[0]) };
  // Not open: done or cancelled, and a finished row stays finished (the follower advances open rows only).
  const request = await getBackfillRequest(db, id);
  if (!request) return { outcome: 'not-found' };
  return { outcome: request.cancelledAt ? 'already-cancelled' : 'already-done', request };
}

/** Blocks still to re-publish over a chain's open requests (the follower's remaining-blocks gauge). */
export async function backfillBlocksRemaining(db: Db, chainId: number): Promise<number> {
  const { rows } = await db.query<{ remaining: string }>(
    `SELECT coalesce(sum(to_block - next_block + 1), 0) AS remaining
     FROM backfill_requests WHERE chain_id = $1 AND finished_at IS NULL`,
    [chainId],
  );
  return Number(rows[0]?.remaining ?? 0);
}

/** Where the follower of a chain is (undefined: it has published nothing yet). */
export async function followerCheckpointOf(db: Db, chainId: number): Promise<number | undefined> {
  const { rows } = await db.query<{ block_number: string }>(
    'SELECT block_number FROM follower_checkpoints WHERE chain_id = $1',
    [chainId],
  );
  return rows[0] ? Number(rows[0].block_number) : undefined;
}
