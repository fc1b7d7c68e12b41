import type { Pool } from '@tributary/db';
import { findFirstBlockAtOrAfter, findLastBlockAtOrBefore } from '@tributary/db/queries';

/** Inclusive block bounds; `empty` when a date lies past every stored block (or before all). */
export type BlockRange = { empty: true } | { empty: false; fromBlock?: number; toBlock?: number };

export interface RangeInput {
  fromBlock?: number;
  toBlock?: number;
  fromDate?: Date;
  toDate?: Date;
}

/**
 * Turns block and date parameters, already reduced to the ones that win under the endpoint's
 * precedence rules, into block bounds; dates resolve through the stored block timestamps.
 */
export async function resolveBlockRange(pool: Pool, chainId: number, input: RangeInput): Promise<BlockRange> {
  let { fromBlock, toBlock } = input;
  if (fromBlock === undefined && input.fromDate) {
    const n = await findFirstBlockAtOrAfter(pool, chainId, input.fromDate);
    if (n === null) return { empty: true };
    fromBlock = n;
  }
  if (toBlock === undefined && input.toDate) {
    const n = await findLastBlockAtOrBefore(pool, chainId, input.toDate);
    if (n === null) return { empty: true };
    toBlock = n;
  }
  if (fromBlock !== undefined && toBlock !== undefined && fromBlock > toBlock) return { empty: true };
  return { empty: false, fromBlock, toBlock };
}

/** The upper bound of a paging session: the caller's to_block, lowered to the pinned head. */
export function capToBlock(toBlock: number | undefined, pin: number | null | undefined): number | undefined {
  if (pin === null || pin === undefined) return toBlock;
  return toBlock === undefined ? pin : Math.min(toBlock, pin);
}
