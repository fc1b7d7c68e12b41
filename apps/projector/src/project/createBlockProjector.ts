import { type Pool, projectChainSegment, removeChainBlock, withTransaction } from '@tributary/db';
import { Counter, type Logger, type Registry } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import { planBatch } from './planBatch.ts';

export interface BatchOutcome {
  blocks: number;
  logs: number;
  transfers: number;
  removedBlocks: number;
}

export interface BlockProjector {
  /** Projects the events in ONE transaction; resolves after COMMIT (then offsets may be committed). */
  projectBatch(events: readonly BlockEvent[]): Promise<BatchOutcome>;
}

export function createBlockProjector(deps: {
  pool: Pool;
  logger: Logger;
  metrics: Registry;
}): BlockProjector {
  const rows = new Counter({
    name: 'projector_rows_inserted_total',
    help: 'rows inserted into the query tables',
    labelNames: ['table'],
    registers: [deps.metrics],
  });
  const removed = new Counter({
    name: 'projector_blocks_removed_total',
    help: 'orphaned blocks removed',
    registers: [deps.metrics],
  });
  return {
    async projectBatch(events) {
      const out: BatchOutcome = { blocks: 0, logs: 0, transfers: 0, removedBlocks: 0 };
      await withTransaction(deps.pool, async (client) => {
        for (const step of planBatch(events)) {
          if (step.kind === 'segment') {
            const r = await projectChainSegment(client, step.segment);
            out.blocks += r.blocks;
            out.logs += r.logs;
            out.transfers += r.transfers;
          } else {
            const r = await removeChainBlock(client, step.block);
            out.removedBlocks += r.blocks;
            deps.logger.warn(
              { chainId: step.block.chainId, block: step.block.number, hash: step.block.hash, ...r },
              'removed orphaned block',
            );
          }
        }
      });
      rows.inc({ table: 'blocks' }, out.blocks);
      rows.inc({ table: 'logs' }, out.logs);
      rows.inc({ table: 'transfers' }, out.transfers);
      removed.inc(out.removedBlocks);
      return out;
    },
  };
}
