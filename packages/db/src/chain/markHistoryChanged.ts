import type { PoolClient } from 'pg';
import { latestBlockSql } from '../queries/keyset.ts';

// One row per chain whose earliest changed block is at or below the chain's newest transfer block.
const MARK_HISTORY_CHANGED = `
INSERT INTO chain_history_versions AS v (chain_id, version)
SELECT c.chain_id, 1 FROM unnest($1::bigint[], $2::bigint[]) AS c(chain_id, from_block)
WHERE c.from_block <= (SELECT ${latestBlockSql} FROM transfers t WHERE t.chain_id = c.chain_id)
ON CONFLICT (chain_id) DO UPDATE SET version = v.version + 1`;

/**
 * Called in the writer's transaction before it inserts or removes the transfers of some blocks
 * (`earliest`: chain id -> lowest block number written). When a chain's change reaches at or below
 * its newest transfer block (a reorg, older blocks projected late; not new blocks above the head),
 * bumps the chain's history version (chain_history_versions). The row lock this takes until commit
 * orders the write against the gateway's checkpoint computations (walletRangeTotal): one that read
 * the history before this write sees the version move and does not store its result; one that
 * already holds its share lock commits first, so this write's later statements see its row and
 * forget it (forgetCheckpointsSql) when it is stale.
 */
export async function markHistoryChanged(client: PoolClient, earliest: ReadonlyMap<number, number>) {
  if (earliest.size === 0) return;
  await client.query(MARK_HISTORY_CHANGED, [[...earliest.keys()], [...earliest.values()]]);
}

/** The lowest block number per chain of some blocks. */
export function earliestBlocks(blocks: Iterable<{ chainId: number; number: number }>): Map<number, number> {
  const earliest = new Map<number, number>();
  for (const b of blocks) {
    const seen = earliest.get(b.chainId);
    if (seen === undefined || b.number < seen) earliest.set(b.chainId, b.number);
  }
  return earliest;
}
