import type { DeadLetter, DeadLetters } from '@tributary/bus';
import type { Logger } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import type { BatchOutcome, BlockProjector, StartedBatch } from '../project/createBlockProjector.ts';

/** A run of consecutive messages of one partition, projected in one transaction. */
export interface Chunk {
  topic: string;
  partition: number;
  firstOffset: string;
  lastOffset: string;
  events: BlockEvent[];
  /** Messages that could not be decoded: stored on the dead-letter topic, then skipped. */
  deadLetters: DeadLetter[];
}

/** Where a chunk failed: its transaction (PostgreSQL), its dead letters or its offset commit (Kafka). */
export type ChunkStage = 'project' | 'dead-letter' | 'commit';

export class ChunkFailedError extends Error {
  override readonly name = 'ChunkFailedError';
  constructor(
    readonly stage: ChunkStage,
    readonly chunk: Chunk,
    cause: unknown,
  ) {
    super(
      `${stage} failed for offsets ${chunk.firstOffset}..${chunk.lastOffset} of partition ${chunk.partition}`,
      {
        cause,
      },
    );
  }
}

/** A chunk not attempted because a chunk before it failed: the rewind covers it. */
class SkippedError extends Error {
  override readonly name = 'SkippedError';
}

export interface ChunkPipeline {
  /**
   * Starts a chunk behind the ones in flight and resolves once the chunk before it is done, so
   * that at most two are in flight. Never rejects: a failure is kept for `recover()`.
   */
  push(chunk: Chunk): Promise<void>;
  /** Whether a chunk failed since the last `recover()`. */
  failed(): boolean;
  /**
   * Waits for every chunk in flight; returns the first failure since the last call (its
   * partition was already sent back to its first uncommitted offset) and starts a fresh chain.
   */
  recover(): Promise<ChunkFailedError | undefined>;
  /** Waits for every chunk in flight (their failures are kept for `recover()`). */
  settle(): Promise<void>;
  /** A new group generation: the positions kept so far no longer apply. */
  reset(): void;
}

/**
 * The projector's in-flight chain. A chunk's transaction starts once the chunk before it has
 * written its rows (so a later transaction only ever waits for an earlier one), and commits after
 * the chunk before it committed; its dead letters are acked and then its offsets committed, in
 * offset order. A failure is never skipped over: the chunks after it abort, every partition
 * involved is sought back to its first offset not committed, and the failure waits for the
 * consumer to log it and back off.
 */
export function createChunkPipeline(deps: {
  projector: BlockProjector;
  deadLetters: DeadLetters;
  /** Commits `offset` (the next one to read) for the partition; resolves once the broker has it. */
  commit: (topic: string, partition: number, offset: string) => Promise<void>;
  /** Makes the consumer fetch the partition again from `offset`. */
  seek: (topic: string, partition: number, offset: string) => void;
  onCommitted?: (chunk: Chunk, outcome: BatchOutcome | undefined, ms: number) => void;
  logger: Logger;
}): ChunkPipeline {
  // Resolves true when the last chunk committed, false when it (or one before it) failed.
  let tail: Promise<boolean> = Promise.resolve(true);
  // Settles once the last chunk has written its rows (a chunk with removals: once it is done).
  let begunTail: Promise<void> = Promise.resolve();
  let failure: ChunkFailedError | undefined;
  let generation = 0;
  // Per partition: the first offset not committed (where a failure sends the consumer back to).
  const uncommitted = new Map<string, { topic: string; partition: number; offset: string }>();
  const key = (c: Chunk) => `${c.topic}:${c.partition}`;

  // Partitions sought back since the last recover(): once each is enough.
  const rewound = new Set<string>();
  function rewind(chunk: Chunk) {
    const at = uncommitted.get(key(chunk));
    if (!at || rewound.has(key(chunk))) return;
    rewound.add(key(chunk));
    try {
      deps.seek(at.topic, at.partition, at.offset);
    } catch (err) {
      // The consumer is not running (stopped, or crashed and restarting): it resumes from the
      // committed offsets, which never pass an uncommitted chunk.
      deps.logger.warn(
        { partition: at.partition, offset: at.offset, err },
        'could not seek back after a failed chunk',
      );
    }
  }

  /** Projects, stores dead letters, commits: each step after the chunk before has committed. */
  function run(
    chunk: Chunk,
    previous: Promise<boolean>,
  ): { done: Promise<BatchOutcome | undefined>; begun: Promise<void> } {
    const { events } = chunk;
    const wrap = (stage: ChunkStage) => (err: unknown) => {
      throw err instanceof SkippedError ? err : new ChunkFailedError(stage, chunk, err);
    };
    const afterProjection = async (outcome: BatchOutcome | undefined) => {
      // Acked before the offset past them is committed: a dead letter is never lost.
      for (const letter of chunk.deadLetters) await deps.deadLetters.send(letter).catch(wrap('dead-letter'));
      await deps
        .commit(chunk.topic, chunk.partition, (BigInt(chunk.lastOffset) + 1n).toString())
        .catch(wrap('commit'));
      return outcome;
    };
    const mustSucceed = async () => {
      if (!(await previous)) throw new SkippedError();
    };

    if (events.length === 0) {
      const done = (async () => {
        await mustSucceed();
        return afterProjection(undefined);
      })();
      return { done, begun: begunTail };
    }
    if (events.some((e) => e.type === 'removed')) {
      const done = (async () => {
        await mustSucceed();
        const outcome = await deps.projector.projectBatch(events).catch(wrap('project'));
        return afterProjection(outcome);
      })();
      return { done, begun: settled(done) };
    }
    // The chunk before must have written its rows first: this chunk's inserts of the same blocks
    // then wait for its commit. Begun before it, they would make it wait for this chunk, which
    // waits for it to commit: a lock wait PostgreSQL cannot see as a deadlock, a silent stall.
    const begun = begunTail.then(() => deps.projector.startBatch(events));
    const done = (async () => {
      let batch: StartedBatch;
      try {
        batch = await begun;
      } catch (err) {
        await previous; // in order: the chunk before reports its own failure first
        throw new ChunkFailedError('project', chunk, err);
      }
      if (!(await previous)) {
        await batch.abort().catch((err: unknown) => {
          // The transaction is gone either way (its connection is released, rolled back by the server).
          deps.logger.debug({ err }, 'rollback of a chunk after a failed one failed');
        });
        throw new SkippedError();
      }
      const outcome = await batch.finish().catch(wrap('project'));
      return afterProjection(outcome);
    })();
    return { done, begun: settled(begun) };
  }

  return {
    push(chunk) {
      const k = key(chunk);
      if (!uncommitted.has(k))
        uncommitted.set(k, { topic: chunk.topic, partition: chunk.partition, offset: chunk.firstOffset });
      const started = Date.now();
      const at = generation;
      const previous = tail;
      const { done, begun } = run(chunk, previous);
      begunTail = begun;
      tail = done.then(
        (outcome) => {
          if (at === generation) {
            uncommitted.set(k, {
              topic: chunk.topic,
              partition: chunk.partition,
              offset: (BigInt(chunk.lastOffset) + 1n).toString(),
            });
          }
          deps.onCommitted?.(chunk, outcome, Date.now() - started);
          return true;
        },
        (err: unknown) => {
          if (!(err instanceof SkippedError)) {
            failure ??= err instanceof ChunkFailedError ? err : new ChunkFailedError('project', chunk, err);
          }
          // After a new generation the consumer reads from the committed offsets anyway.
          if (at === generation) rewind(chunk);
          return false;
        },
      );
      return previous.then(() => undefined);
    },
    failed: () => failure !== undefined,
    async recover() {
      await tail;
      const f = failure;
      failure = undefined;
      rewound.clear();
      tail = Promise.resolve(true);
      return f;
    },
    async settle() {
      await tail;
    },
    reset() {
      generation++;
      uncommitted.clear();
      rewound.clear();
    },
  };
}

/** Settles when `p` settles, either way (its outcome is observed where `p` itself is awaited). */
function settled(p: Promise<unknown>): Promise<void> {
  return p.then(
    () => undefined,
    () => undefined,
  );
}
