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
 * A row's keyset position as `transfers.pos` and `logs.pos` store it: (block_number << 24) |
 * log_index, one bigint ordered as (block_number, log_index) (migrations 080, 081).
 */
const POSITION_SHIFT = 24;

/**
 * Block range and "after this position" conditions on `pos` (transfers, logs): each one range
 * condition of the indexes that end in pos.
 */
export function rowPositionConditions(
  p: Params,
  q: { fromBlock?: number; toBlock?: number; order: SortOrder; after?: LogPosition },
): string[] {
  const conds: string[] = [];
  if (q.fromBlock !== undefined) conds.push(`pos >= ${blockStartPosSql(p.add(q.fromBlock))}`);
  if (q.toBlock !== undefined) conds.push(`pos < ${blockEndPosSql(p.add(q.toBlock))}`);
  if (q.after) {
    const at = `((${p.add(q.after.blockNumber)}::bigint << ${POSITION_SHIFT}) | ${p.add(q.after.logIndex)}::bigint)`;
    conds.push(q.order === 'DESC' ? `pos < ${at}` : `pos > ${at}`);
  }
  return conds;
}

/** The first position past block `block` (an SQL bigint expression): `pos < this` keeps the block. */
export const blockEndPosSql = (block: string): string => `((${block}::bigint + 1) << ${POSITION_SHIFT})`;

/** The first position of block `block` (an SQL bigint expression): `pos >= this` keeps the block. */
export const blockStartPosSql = (block: string): string => `(${block}::bigint << ${POSITION_SHIFT})`;

/**
 * The newest block of the rows a `WHERE chain_id = …` selects (transfers, logs): one probe of the
 * primary key (chain_id, pos); null when there is none.
 */
export const latestBlockSql = `(max(pos) >> ${POSITION_SHIFT})`;

/** Keyset order on the stored position (transfers, logs). */
export const posOrderBy = (order: SortOrder): string => (order === 'DESC' ? 'pos DESC' : 'pos ASC');
