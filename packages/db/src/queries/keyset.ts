/** Shared shapes of the paged read queries (keyset pagination: never OFFSET). */
export type SortOrder = 'ASC' | 'DESC';

/** A position in a chain's event order: (block number, log index). */
export interface LogPosition {
  blockNumber: number;
  logIndex: number;
}

/** Collects positional parameters while a query is assembled. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Block range and "after this position" conditions on (block_number, log_index), written so that
 * the block bound is an index range condition and only rows of the boundary block are filtered.
 */
export function positionConditions(
  p: Params,
  q: { fromBlock?: number; toBlock?: number; order: SortOrder; after?: LogPosition },
): string[] {
  const conds: string[] = [];
  if (q.fromBlock !== undefined) conds.push(`block_number >= ${p.add(q.fromBlock)}`);
  if (q.toBlock !== undefined) conds.push(`block_number <= ${p.add(q.toBlock)}`);
  if (q.after) {
    const b = p.add(q.after.blockNumber);
    const l = p.add(q.after.logIndex);
    conds.push(
      q.order === 'DESC'
        ? `block_number <= ${b} AND (block_number < ${b} OR log_index < ${l})`
        : `block_number >= ${b} AND (block_number > ${b} OR log_index > ${l})`,
    );
  }
  return conds;
}

export function orderBy(order: SortOrder): string {
  return order === 'DESC' ? 'block_number DESC, log_index DESC' : 'block_number ASC, log_index ASC';
}

/**
 * A transfer's keyset position as `transfers.pos` stores it: (block_number << 24) | log_index, one
 * bigint ordered as (block_number, log_index) (migration 080).
 */
const POSITION_SHIFT = 24;

/**
 * positionConditions for `transfers`, on `pos`: each bound one range condition of the wallet
 * indexes, (wallet id, pos) or (wallet id, token id, pos).
 */
export function transferPositionConditions(
  p: Params,
  q: { fromBlock?: number; toBlock?: number; order: SortOrder; after?: LogPosition },
): string[] {
  const conds: string[] = [];
  if (q.fromBlock !== undefined) conds.push(`pos >= ${transferBlockStartSql(p.add(q.fromBlock))}`);
  if (q.toBlock !== undefined) conds.push(`pos < ${transferBlockEndSql(p.add(q.toBlock))}`);
  if (q.after) {
    const at = `((${p.add(q.after.blockNumber)}::bigint << ${POSITION_SHIFT}) | ${p.add(q.after.logIndex)}::bigint)`;
    conds.push(q.order === 'DESC' ? `pos < ${at}` : `pos > ${at}`);
  }
  return conds;
}

/** The first position past block `block` (an SQL bigint expression): `pos < this` keeps the block. */
export const transferBlockEndSql = (block: string): string => `((${block}::bigint + 1) << ${POSITION_SHIFT})`;

/** The first position of block `block` (an SQL bigint expression): `pos >= this` keeps the block. */
export const transferBlockStartSql = (block: string): string => `(${block}::bigint << ${POSITION_SHIFT})`;

/** Keyset order of `transfers` on its stored position. */
export const transferOrderBy = (order: SortOrder): string => (order === 'DESC' ? 'pos DESC' : 'pos ASC');
