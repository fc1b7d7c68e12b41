import type { Pool } from '@tributary/db';
import { advanceBackfill, nextBackfillRequest } from '@tributary/db/chain';
import type { Logger, Registry } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import type { BlockPublisher } from '../publish/createBlockPublisher.ts';
import type { BlockEnricher } from '../fetch/createBlockEnricher.ts';
import { createRequestedBackfillMetrics } from './createRequestedBackfillMetrics.ts';
import type { FetchedBlock } from '../fetch/fetchBlockRange.ts';

export interface RequestedBackfill {
  /**
   * Re-publishes the next chunk of the oldest open request (`pnpm admin backfill`), blocks up to
   * `finalUpTo` only (published and final: a `confirmed` event, as the follower's own backfill
   * sends); false when there was nothing to do. Blocks past `finalUpTo` wait until they are final.
   */
  step(finalUpTo: number): Promise<boolean>;
}

/**
 * An operator's request, durable in backfill_requests, that the pipeline process a block range
 * again. Downstream writes are keyed (projector rows, delivery rows), so blocks already processed
 * change nothing and blocks that were lost are processed now. The request moves on only after
 * Kafka acknowledged a chunk: a crash repeats at most that chunk. A request an operator cancels
 * is left alone, even when the cancel lands while one of its chunks is re-published.
 */
export function createRequestedBackfill(deps: {
  pool: Pool;
  chainId: number;
  chunkBlocks: number;
  fetchRange: (from: number, to: number) => Promise<FetchedBlock[]>;
  enricher: BlockEnricher;
  /** The hash the follower published for a block it still keeps (a differing one: a reorg it handles first). */
  canonicalHash: (number: number) => string | undefined;
  publisher: BlockPublisher;
  logger: Logger;
  metrics: Registry;
}): RequestedBackfill {
  const metrics = createRequestedBackfillMetrics({
    metrics: deps.metrics,
    pool: deps.pool,
    chainId: deps.chainId,
  });
  return {
    async step(finalUpTo) {
      const request = await nextBackfillRequest(deps.pool, deps.chainId);
      if (!request || request.nextBlock > finalUpTo) return false;
      const from = request.nextBlock;
      const to = Math.min(request.toBlock, finalUpTo, from + deps.chunkBlocks - 1);
      const blocks = await deps.fetchRange(from, to);
      if (blocks.length === 0) return false;
      const stale = blocks.find((b) => {
        const ours = deps.canonicalHash(b.header.number);
        return ours !== undefined && ours !== b.header.hash;
      });
      if (stale) return false; // the follower's reorg check runs first, then this chunk again
      const enriched = await deps.enricher.enrich(blocks);
      const events: BlockEvent[] = enriched.bodies.map((b) => ({ type: 'confirmed', ...b }));
      await deps.publisher.publish(events);
      enriched.commit();
      metrics.republished(blocks.length);
      const last = from + blocks.length - 1;
      // False: cancelled meanwhile; the next step goes on to the next open request.
      const advanced = await advanceBackfill(deps.pool, request.id, last + 1);
      deps.logger.info(
        {
          request: request.id,
          from,
          to: last,
          done: advanced && last >= request.toBlock,
          cancelled: !advanced,
        },
        'backfill request: re-published blocks',
      );
      return true;
    },
  };
}
