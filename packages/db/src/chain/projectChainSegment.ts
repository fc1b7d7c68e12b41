import type { PoolClient } from 'pg';
import type { ChainSegment, SegmentBlock } from './chainRows.ts';
import { type SegmentResult, projectBlockSegment } from './projectBlockSegment.ts';

/**
 * Projects a run of new/confirmed blocks given as flat rows (inside the caller's transaction):
 * the rows are grouped by their block and written by projectBlockSegment, with the same
 * guarantees. A row takes its block's time; rows of a block missing from `seg.blocks` are kept
 * only if `blocks` already holds that number with that hash.
 */
export async function projectChainSegment(client: PoolClient, seg: ChainSegment): Promise<SegmentResult> {
  const byBlock = new Map<
    string,
    SegmentBlock & { logs: SegmentBlock['logs'][number][] } & {
      transfers: SegmentBlock['transfers'][number][];
    }
  >();
  for (const b of seg.blocks)
    byBlock.set(`${b.chainId}:${b.number}:${b.hash}`, { ...b, logs: [], transfers: [] });
  const group = (r: { chainId: number; blockNumber: number; blockHash: string; blockTimestamp: number }) => {
    const key = `${r.chainId}:${r.blockNumber}:${r.blockHash}`;
    let g = byBlock.get(key);
    if (!g) {
      g = {
        chainId: r.chainId,
        number: r.blockNumber,
        hash: r.blockHash,
        parentHash: r.blockHash,
        timestamp: r.blockTimestamp,
        confirmed: false,
        rowsOnly: true,
        logs: [],
        transfers: [],
      };
      byBlock.set(key, g);
    }
    return g;
  };
  for (const l of seg.logs) group(l).logs.push(l);
  for (const t of seg.transfers) group(t).transfers.push(t);
  return projectBlockSegment(client, {
    blocks: [...byBlock.values()],
    tokens: seg.tokens,
    addressKinds: seg.addressKinds,
  });
}
