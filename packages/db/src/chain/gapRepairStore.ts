import type { Pool } from 'pg';
import { getBackfillRequest, requestBackfillOnce } from './backfillRequests.ts';
import {
  loadConsumerPositions,
  loadFollowerCheckpoints,
  saveConsumerPositions,
} from './consumerPositions.ts';

/**
 * What a consumer group's gap guard (bus createGapGuard) keeps in PostgreSQL: its positions per
 * chain, the followers' checkpoints, and the backfill requests that publish missing blocks again.
 */
export function createGapRepairStore(pool: Pool, groupId: string) {
  return {
    positions: {
      load: () => loadConsumerPositions(pool, groupId),
      save: (positions: Map<number, number>) => saveConsumerPositions(pool, groupId, positions),
    },
    checkpoints: () => loadFollowerCheckpoints(pool),
    requestRepublish: async (chainId: number, fromBlock: number, toBlock: number) =>
      (await requestBackfillOnce(pool, { chainId, fromBlock, toBlock })).id,
    requestProgress: async (id: string) => {
      const r = await getBackfillRequest(pool, id);
      return r && { done: r.finishedAt !== null, nextBlock: r.nextBlock };
    },
  };
}
