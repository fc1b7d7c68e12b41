import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';
import { addressIdSql } from './addressIdSql.ts';
import { Params, blockStartPosSql } from './keyset.ts';
import { statementName } from './statementName.ts';
import { walletCountSql } from './walletCountSql.ts';
import { walletTotalSql } from './walletTotalSql.ts';

type Queryable = Pick<pg.Pool, 'query'>;

export interface WalletRangeTotalQuery {
  chainId: number;
  /** Lower-case hex; transfers where it is the sender or the receiver (all tokens). */
  wallet: string;
  /** Inclusive; absent: from the chain's first block. */
  fromBlock?: number;
  /** Inclusive, at or below `pin`. */
  toBlock: number;
  /** The paging session's pinned head (highest transfer block when its first page was read). */
  pin: number;
  /** Blocks at or below `pin - confirmations` are final: their transfers no longer change. */
  confirmations: number;
  /** Spacing of the stored checkpoints, in blocks (checkpoints sit at multiples of it). */
  checkpointBlocks: number;
}

/**
 * The number of a wallet's transfers in [fromBlock, toBlock] (the `total` of a transfers page
 * with block bounds and no token filter): before(toBlock + 1) - before(fromBlock), where
 * before(x), the wallet's transfers in blocks below x, is a stored checkpoint at the nearest
 * multiple of `checkpointBlocks` at or below x (in final history) plus an index count of the few
 * blocks between it and x. A checkpoint asked for the first time is computed exactly, from the
 * nearest stored one or the wallet's stored total, and stored (wallet_transfer_checkpoints):
 * a busy wallet's range total costs two short counts instead of one over the whole range.
 */
export async function walletRangeTotal(db: Queryable, q: WalletRangeTotalQuery): Promise<number> {
  const from = Math.max(0, q.fromBlock ?? 0);
  const end = q.toBlock + 1;
  if (from >= end) return 0;
  const wallet = hexToBytes(q.wallet);
  const lo = checkpointFor(from, q);
  const hi = checkpointFor(end, q);
  // Both bounds past the same checkpoint: it cancels out, the two edge counts are the total.
  const shared = lo === hi;

  const p = new Params();
  const chainP = p.add(q.chainId);
  const walletP = p.add(wallet);
  const stored = (at: number) =>
    at === 0 || shared
      ? '0'
      : `(SELECT transfers FROM wallet_transfer_checkpoints
           WHERE chain_id = ${chainP} AND wallet = ${walletP} AND before_block = ${p.add(at)})`;
  const between = (a: number, b: number) =>
    a >= b ? '0' : walletCountSql(addressIdSql(chainP, walletP), blocksFrom(p.add(a), p.add(b)));
  const sql = `SELECT ${stored(lo)} AS lo, ${between(lo, from)} AS lo_edge,
            ${stored(hi)} AS hi, ${between(hi, end)} AS hi_edge`;
  // Named: a handful of shapes (which terms are empty), each planned once per pooled session.
  const { rows } = await db.query<{ lo: string | null; lo_edge: string; hi: string | null; hi_edge: string }>(
    {
      name: statementName('wallet_range_total', sql),
      text: sql,
      values: p.values,
    },
  );
  const r = rows[0];
  if (!r) throw new Error('walletRangeTotal: no row');
  // A missing checkpoint reads as null: computed and stored now (`stored` wrote 0 where none is needed).
  const below = async (at: number, value: string | null, edge: string) =>
    (value === null ? await storeCheckpoint(db, q, wallet, at) : Number(value)) + Number(edge);
  return (await below(hi, r.hi, r.hi_edge)) - (await below(lo, r.lo, r.lo_edge));
}

/** The checkpoint a bound counts from: the highest multiple of the spacing at or below x in final history (0: none). */
function checkpointFor(x: number, q: WalletRangeTotalQuery): number {
  const step = q.checkpointBlocks;
  // A checkpoint at c covers blocks below c: usable when c - 1 is final.
  const lastFinal = Math.floor((q.pin - q.confirmations + 1) / step) * step;
  return Math.max(0, Math.min(Math.floor(x / step) * step, lastFinal));
}

/**
 * Computes the wallet's transfers below block `at` in one snapshot, from whichever is nearest to
 * it: a stored checkpoint below or above, the chain's first block, or the head (the wallet's
 * stored transfer count minus the transfers from `at` on), and stores it. Two gateways doing
 * it at once store the same number once. It is stored only if the chain's history version
 * (chain_history_versions, see markHistoryChanged) read with the snapshot is still the newest one
 * when it is stored: a reorg or a late older block that committed after the snapshot was taken
 * would make it stale, and one still running waits for this share lock and then forgets the row.
 */
async function storeCheckpoint(
  db: Queryable,
  q: WalletRangeTotalQuery,
  wallet: Buffer,
  at: number,
  useStored = true,
): Promise<number> {
  // The version row must exist before the snapshot: a row created after it could not be locked.
  await db.query(
    'INSERT INTO chain_history_versions (chain_id, version) VALUES ($1, 0) ON CONFLICT DO NOTHING',
    [q.chainId],
  );
  const near = useStored
    ? await db.query<{ lower: string | null; upper: string | null }>(
        `SELECT (SELECT before_block FROM wallet_transfer_checkpoints
                  WHERE chain_id = $1 AND wallet = $2 AND before_block < $3
                  ORDER BY before_block DESC LIMIT 1) AS lower,
                (SELECT before_block FROM wallet_transfer_checkpoints
                  WHERE chain_id = $1 AND wallet = $2 AND before_block > $3
                  ORDER BY before_block ASC LIMIT 1) AS upper`,
        [q.chainId, wallet, at],
      )
    : undefined;
  const lower = near?.rows[0]?.lower == null ? null : Number(near.rows[0].lower);
  const upper = near?.rows[0]?.upper == null ? null : Number(near.rows[0].upper);

  const p = new Params();
  const chainP = p.add(q.chainId);
  const walletP = p.add(wallet);
  const atP = p.add(at);
  const count = (conds: string) => walletCountSql(addressIdSql(chainP, walletP), conds);
  // A stored checkpoint's number is read in the same snapshot (null if it was forgotten since).
  const stored = (block: number) =>
    `(SELECT transfers FROM wallet_transfer_checkpoints
       WHERE chain_id = ${chainP} AND wallet = ${walletP} AND before_block = ${p.add(block)})`;
  // Candidates by the number of blocks they count (the cost follows the wallet's transfers there).
  const ways: { blocks: number; sql: () => string }[] = [
    { blocks: at, sql: () => count(blocksFrom(undefined, atP)) },
    {
      blocks: Math.max(0, q.pin - at + 1),
      sql: () => `${walletTotalSql(chainP, walletP)} - ${count(blocksFrom(atP, undefined))}`,
    },
  ];
  if (lower !== null) {
    ways.push({
      blocks: at - lower,
      sql: () => `${stored(lower)} + ${count(blocksFrom(p.add(lower), atP))}`,
    });
  }
  if (upper !== null) {
    ways.push({
      blocks: upper - at,
      sql: () => `${stored(upper)} - ${count(blocksFrom(atP, p.add(upper)))}`,
    });
  }
  const way = ways.reduce((a, b) => (b.blocks < a.blocks ? b : a));
  // `seen` is the version in this statement's snapshot; `latest` locks the row (FOR SHARE reads its
  // newest committed version, waiting for a writer that holds it).
  const { rows } = await db.query<{ n: string | null }>(
    `WITH v AS (
       SELECT (${way.sql()})::bigint AS n,
              (SELECT version FROM chain_history_versions WHERE chain_id = ${chainP}) AS seen
     ), latest AS (
       SELECT version FROM chain_history_versions WHERE chain_id = ${chainP} FOR SHARE
     ), ins AS (
       INSERT INTO wallet_transfer_checkpoints (chain_id, wallet, before_block, transfers)
       SELECT ${chainP}, ${walletP}, ${atP}, n FROM v
        WHERE n IS NOT NULL AND seen = (SELECT version FROM latest)
       ON CONFLICT DO NOTHING
     )
     SELECT n FROM v`,
    p.values,
  );
  const n = rows[0]?.n;
  // The stored checkpoint it started from was forgotten in between: count without one.
  if (n == null) return storeCheckpoint(db, q, wallet, at, false);
  return Number(n);
}

/** Conditions for blocks in [from, to) (placeholders; either may be absent), on transfers.pos. */
function blocksFrom(from: string | undefined, to: string | undefined): string {
  return (
    (from === undefined ? '' : ` AND pos >= ${blockStartPosSql(from)}`) +
    (to === undefined ? '' : ` AND pos < ${blockStartPosSql(to)}`)
  );
}
