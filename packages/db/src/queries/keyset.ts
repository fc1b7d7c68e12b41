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
