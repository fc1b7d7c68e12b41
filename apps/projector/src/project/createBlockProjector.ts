import {
  type BegunSegment,
  type Pool,
  type PoolClient,
  beginBlockSegment,
  removeChainBlock,
  withTransaction,
} from '@tributary/db';
import { Counter, type Logger, type Registry } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import { type BatchStep, planBatch } from './planBatch.ts';

export interface BatchOutcome {
  blocks: number;
  logs: number;
  transfers: number;
  removedBlocks: number;
}

/** A batch whose new rows are written in its (open) transaction. */
export interface StartedBatch {
  /** Writes the rest and COMMITs; resolves after COMMIT. Rolls back when it fails. */
  finish(): Promise<BatchOutcome>;
  /** Rolls the transaction back. */
  abort(): Promise<void>;
}

export interface BlockProjector {
  /** Projects the events in ONE transaction; resolves after COMMIT (then offsets may be committed). */
  projectBatch(events: readonly BlockEvent[]): Promise<BatchOutcome>;
  /**
   * Starts projecting a batch without `removed` events in its own transaction: writes the new
   * blocks' rows (beginBlockSegment) and waits. A later batch may be started while an earlier
   * one is not finished yet, but only once the earlier one's startBatch has resolved: otherwise
   * it may insert a block of the earlier batch first, and the earlier batch's insert then waits
   * for a transaction that waits for it. Batches must be finished in order, each after the
   * previous one committed (or aborted when it failed).
   */
  startBatch(events: readonly BlockEvent[]): Promise<StartedBatch>;
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
  const count = (out: BatchOutcome) => {
    rows.inc({ table: 'blocks' }, out.blocks);
    rows.inc({ table: 'logs' }, out.logs);
    rows.inc({ table: 'transfers' }, out.transfers);
    removed.inc(out.removedBlocks);
  };

  async function runSteps(client: PoolClient, steps: BatchStep[], out: BatchOutcome) {
    for (const step of steps) {
      if (step.kind === 'segment') {
        const r = await (await beginBlockSegment(client, step.segment)).finish();
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
  }

  return {
    async projectBatch(events) {
      const out: BatchOutcome = { blocks: 0, logs: 0, transfers: 0, removedBlocks: 0 };
      await withTransaction(deps.pool, (client) => runSteps(client, planBatch(events), out));
      count(out);
      return out;
    },

    async startBatch(events) {
      const steps = planBatch(events);
      if (steps.some((s) => s.kind === 'remove')) throw new Error('startBatch: the batch removes blocks');
      const client = await deps.pool.connect();
      let open = true;
      const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
        if (!open) return;
        open = false;
        try {
          await client.query(sql);
        } finally {
          client.release();
        }
      };
      const begun: BegunSegment[] = [];
      try {
        await client.query('BEGIN');
        for (const step of steps)
          if (step.kind === 'segment') begun.push(await beginBlockSegment(client, step.segment));
      } catch (err) {
        await end('ROLLBACK').catch(() => {});
        throw err;
      }
      return {
        async finish() {
          const out: BatchOutcome = { blocks: 0, logs: 0, transfers: 0, removedBlocks: 0 };
          try {
            for (const b of begun) {
              const r = await b.finish();
              out.blocks += r.blocks;
              out.logs += r.logs;
              out.transfers += r.transfers;
            }
            await end('COMMIT');
          } catch (err) {
            await end('ROLLBACK').catch(() => {});
            throw err;
          }
          count(out);
          return out;
        },
        abort: () => end('ROLLBACK'),
      };
    },
  };
}
