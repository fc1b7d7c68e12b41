import type { Pool, PoolClient } from '@tributary/db';
import { AddressIds, type BegunSegment, beginBlockSegment, removeChainBlock } from '@tributary/db/chain';
import { Counter, Histogram, type Logger, type Registry } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import { checkoutClient } from './checkoutClient.ts';
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
   * one is not finished yet. Starts run in call order, each once the one called before has
   * resolved or failed: a later start that ran first could take a row an earlier start needs (a
   * block, the chain's history version), and the earlier start would then wait for a transaction
   * that only commits after it; PostgreSQL cannot see that wait as a deadlock. Batches must be
   * finished in order, each after the previous one committed (or aborted when it failed).
   */
  startBatch(events: readonly BlockEvent[]): Promise<StartedBatch>;
}

export function createBlockProjector(deps: {
  pool: Pool;
  logger: Logger;
  metrics: Registry;
  /**
   * A checked-out connection failed (PostgreSQL went away). The transaction's next query fails
   * too and reports it; by default this is only logged at debug level.
   */
  onConnectionError?: (err: Error) => void;
}): BlockProjector {
  const rows = new Counter({
    name: 'tributary_projector_rows_inserted_total',
    help: 'rows inserted into the query tables',
    labelNames: ['table'],
    registers: [deps.metrics],
  });
  const removed = new Counter({
    name: 'tributary_projector_blocks_removed_total',
    help: 'orphaned blocks removed',
    registers: [deps.metrics],
  });
  const batchSeconds = new Histogram({
    name: 'tributary_projector_batch_duration_seconds',
    help: 'Time of one batch transaction of the query tables, from BEGIN to COMMIT',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [deps.metrics],
  });
  const count = (out: BatchOutcome, startedAt: number) => {
    batchSeconds.observe((performance.now() - startedAt) / 1000);
    rows.inc({ table: 'blocks' }, out.blocks);
    rows.inc({ table: 'logs' }, out.logs);
    rows.inc({ table: 'transfers' }, out.transfers);
    removed.inc(out.removedBlocks);
  };

  // Address ids (the index keys of logs and transfers), resolved (new ones added and committed)
  // before a batch's transaction begins: two batches in flight never wait for each other's ids.
  const ids = new AddressIds();
  const resolveIds = async (steps: BatchStep[]) => {
    for (const step of steps)
      if (step.kind === 'segment') await ids.resolveBlocks(deps.pool, step.segment.blocks);
  };

  const onConnectionError =
    deps.onConnectionError ??
    ((err: Error) => deps.logger.debug({ err }, 'PostgreSQL connection of a transaction failed'));

  /** BEGIN, then `steps`: resolves with the open transaction's client and its `end`. */
  async function begin() {
    const { client, release } = await checkoutClient(deps.pool, onConnectionError);
    let open = true;
    const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
      if (!open) return;
      open = false;
      let failed: Error | undefined;
      try {
        await client.query(sql);
      } catch (err) {
        failed = err as Error;
        throw err;
      } finally {
        // A connection whose COMMIT or ROLLBACK failed is not handed out again.
        release(failed);
      }
    };
    try {
      await client.query('BEGIN');
    } catch (err) {
      release(err as Error);
      throw err;
    }
    return { client, end };
  }

  /** Rolls back after `err`; a rollback that fails too (the connection is gone) changes nothing. */
  async function rollBack(end: (sql: 'ROLLBACK') => Promise<void>, err: unknown) {
    await end('ROLLBACK').catch((rollbackErr: unknown) => {
      deps.logger.debug({ err: rollbackErr, cause: err }, 'rollback after a failed transaction failed');
    });
  }

  /** Runs `work` in the open transaction, then COMMITs; rolls back when either fails. */
  async function commitAfter(end: (sql: 'COMMIT' | 'ROLLBACK') => Promise<void>, work: () => Promise<void>) {
    try {
      await work();
      await end('COMMIT');
    } catch (err) {
      await rollBack(end, err);
      throw err;
    }
  }

  async function runSteps(client: PoolClient, steps: BatchStep[], out: BatchOutcome) {
    for (const step of steps) {
      if (step.kind === 'segment') {
        const r = await (await beginBlockSegment(client, step.segment, ids)).finish();
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

  async function start(events: readonly BlockEvent[]): Promise<StartedBatch> {
    const steps = planBatch(events);
    if (steps.some((s) => s.kind === 'remove')) throw new Error('startBatch: the batch removes blocks');
    const startedAt = performance.now();
    await resolveIds(steps);
    const { client, end } = await begin();
    const begun: BegunSegment[] = [];
    try {
      for (const step of steps)
        if (step.kind === 'segment') begun.push(await beginBlockSegment(client, step.segment, ids));
    } catch (err) {
      await rollBack(end, err);
      throw err;
    }
    return {
      async finish() {
        const out: BatchOutcome = { blocks: 0, logs: 0, transfers: 0, removedBlocks: 0 };
        await commitAfter(end, async () => {
          for (const b of begun) {
            const r = await b.finish();
            out.blocks += r.blocks;
            out.logs += r.logs;
            out.transfers += r.transfers;
          }
        });
        count(out, startedAt);
        return out;
      },
      abort: () => end('ROLLBACK'),
    };
  }

  // The tail of the starts called so far (see BlockProjector.startBatch).
  let startsDone: Promise<void> = Promise.resolve();

  return {
    async projectBatch(events) {
      const out: BatchOutcome = { blocks: 0, logs: 0, transfers: 0, removedBlocks: 0 };
      const steps = planBatch(events);
      const startedAt = performance.now();
      await resolveIds(steps);
      const { client, end } = await begin();
      await commitAfter(end, () => runSteps(client, steps, out));
      count(out, startedAt);
      return out;
    },

    startBatch(events) {
      const started = startsDone.then(() => start(events));
      startsDone = started.then(
        () => undefined,
        () => undefined,
      );
      return started;
    },
  };
}
