import type { DeadLetter } from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { createLogger } from '@tributary/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlockProjector } from '../project/createBlockProjector.ts';
import { block, expectedState, projectedState, range } from '../testing/blockEvents.ts';
import { migratedDatabase } from '../testing/migratedDatabase.ts';
import { type Chunk, ChunkFailedError, createChunkPipeline } from './createChunkPipeline.ts';

// The pipeline alone, on a real PostgreSQL, with the consumer's side (commit, seek) played by the
// test: a broker that goes away mid-batch is a commit that throws, a dead letter the broker does
// not ack is a send that throws. Offsets are never committed ahead of the rows, and reading again
// from where the pipeline sought back projects every block once.

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function freshDatabase(): Promise<{ pool: Pool; projector: BlockProjector }> {
  const { pool, projector, drop } = await migratedDatabase(3);
  cleanups.push(drop);
  return { pool, projector };
}

const TOPIC = 'blocks';
/** Offset n holds block n, or a poison message where `poison` says so. */
function chunkAt(offset: number, poison: Set<number>): Chunk {
  const letter: DeadLetter = {
    topic: TOPIC,
    partition: 0,
    offset: String(offset),
    key: null,
    value: Buffer.from('not json'),
    reason: 'DecodeError: message is not JSON',
  };
  return {
    topic: TOPIC,
    partition: 0,
    firstOffset: String(offset),
    lastOffset: String(offset),
    events: poison.has(offset) ? [] : [block(offset)],
    deadLetters: poison.has(offset) ? [letter] : [],
  };
}

/**
 * Feeds offsets 0..end-1 one chunk each, the way the consumer does; after a failure, recovers and
 * goes on from the offset the pipeline sought back to. Returns what happened.
 */
async function consume(
  projector: BlockProjector,
  pool: Pool,
  end: number,
  faults: { commitFailsAt?: number; sendFailsAt?: number; poison?: Set<number> },
) {
  const committed: number[] = [];
  const sent: string[] = [];
  const seeks: string[] = [];
  const failures: ChunkFailedError[] = [];
  let commits = 0;
  let sends = 0;
  const pipeline = createChunkPipeline({
    projector,
    deadLetters: {
      async send(letter) {
        if (++sends === faults.sendFailsAt) throw new Error('broker not available');
        sent.push(letter.offset);
      },
    },
    async commit(_topic, _partition, offset) {
      if (++commits === faults.commitFailsAt) throw new Error('connection to the broker closed');
      // The rows of every offset below are committed in PostgreSQL by now.
      const { blocks } = await projectedState(pool);
      const poisoned = [...(faults.poison ?? [])].filter((p) => p < Number(offset)).length;
      expect(blocks + poisoned).toBe(Number(offset));
      // ... and every dead letter below it acked.
      for (const p of faults.poison ?? []) if (p < Number(offset)) expect(sent).toContain(String(p));
      committed.push(Number(offset));
    },
    seek: (_topic, _partition, offset) => seeks.push(offset),
    logger: createLogger('pipeline-test', 'silent'),
  });
  let next = 0;
  while (next < end) {
    await pipeline.push(chunkAt(next, faults.poison ?? new Set()));
    next++;
    if (pipeline.failed()) {
      const failure = await pipeline.recover();
      if (failure) failures.push(failure);
      next = Number(seeks[seeks.length - 1]);
    }
  }
  await pipeline.settle();
  const last = await pipeline.recover();
  if (last) {
    failures.push(last);
    // The very last chunk failed: read again from where it sought back to.
    for (let o = Number(seeks[seeks.length - 1]); o < end; o++) await pipeline.push(chunkAt(o, new Set()));
    await pipeline.settle();
  }
  return { committed, sent, seeks, failures };
}

describe('createChunkPipeline', () => {
  it('goes back to the first uncommitted offset when a commit fails (the broker went away mid-batch)', async () => {
    const { pool, projector } = await freshDatabase();
    const out = await consume(projector, pool, 12, { commitFailsAt: 5 });
    expect(out.failures.map((f) => f.stage)).toEqual(['commit']);
    expect(out.failures[0]).toBeInstanceOf(ChunkFailedError);
    expect(out.seeks).toEqual(['4']); // block 4's rows committed, its offset did not
    // Offset 5 committed once, on the second attempt; none out of order, none skipped.
    expect(out.committed).toEqual(range(12).map((n) => n + 1));
    expect(await projectedState(pool)).toEqual(expectedState(range(12)));
  });

  it('commits past a dead letter only after the broker acked it, and retries when it did not', async () => {
    const { pool, projector } = await freshDatabase();
    const poison = new Set([3, 7]);
    const out = await consume(projector, pool, 10, { sendFailsAt: 1, poison });
    expect(out.failures.map((f) => f.stage)).toEqual(['dead-letter']);
    expect(out.seeks).toEqual(['3']);
    expect(out.sent).toEqual(['3', '7']);
    expect(out.committed).toEqual(range(10).map((n) => n + 1));
    expect(await projectedState(pool)).toEqual(expectedState(range(10).filter((n) => !poison.has(n))));
  });

  it('aborts the chunk after a failed transaction and projects both again, in order', async () => {
    const { pool, projector } = await freshDatabase();
    await pool.query(`
      CREATE SEQUENCE block_inserts;
      CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('block_inserts') = 4 THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER fail_once BEFORE INSERT ON blocks FOR EACH STATEMENT EXECUTE FUNCTION fail_once();`);
    const out = await consume(projector, pool, 8, {});
    expect(out.failures.map((f) => f.stage)).toEqual(['project']);
    expect(String((out.failures[0]!.cause as Error).message)).toContain('injected failure');
    expect(out.seeks).toEqual(['3']);
    expect(out.committed).toEqual(range(8).map((n) => n + 1));
    expect(await projectedState(pool)).toEqual(expectedState(range(8)));
  });
});
