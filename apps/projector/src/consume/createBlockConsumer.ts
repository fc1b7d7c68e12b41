import { setImmediate as nextTurn } from 'node:timers/promises';
import { blockEventCodec, createGroupConsumer } from '@tributary/bus';
import type { Logger } from '@tributary/runtime';
import type { BlockEvent } from '@tributary/schema';
import type { Kafka, KafkaMessage } from 'kafkajs';
import type { BlockProjector, StartedBatch } from '../project/createBlockProjector.ts';

export interface BlockConsumer {
  start(): Promise<void>;
  /** Stops fetching, lets the in-flight transaction finish and commit, then leaves the group. */
  stop(): Promise<void>;
  isConnected(): boolean;
}

/**
 * Feeds `evm.blocks.v1` to the projector in transactions of at most `maxTransactionBytes` of
 * messages. Offsets are committed only after the transaction that projected them committed; a
 * failure is not committed and the messages are delivered again (a replay is a no-op).
 *
 * Pipelined: while one chunk's transaction runs in PostgreSQL, the next chunk is decoded (one
 * message at a time, yielding in between, so that the running COPY keeps being fed), and a chunk
 * without removals writes its new blocks' rows on a second connection while the chunk before
 * finishes (BlockProjector.startBatch). Transactions commit one after the other, in offset order,
 * so readers never see a later block without the earlier ones. The pipeline runs across fetches:
 * the last chunk of a fetch may still be finishing while the next fetch is read and decoded, so
 * PostgreSQL is not left idle at every fetch (with the default fetch of one chunk, that was at
 * every transaction). For that, a chunk's offsets are resolved (the position kafkajs fetches from)
 * once it is started; they are committed only after its transaction commits, and a failure seeks
 * the partition back to the first offset not committed, so nothing is skipped.
 */
export function createBlockConsumer(deps: {
  kafka: Kafka;
  topic: string;
  groupId: string;
  projector: BlockProjector;
  logger: Logger;
  maxBytesPerPartition?: number;
  /** Message bytes projected in one transaction (a fetch is split into such chunks). */
  maxTransactionBytes?: number;
}): BlockConsumer {
  const maxTransactionBytes = deps.maxTransactionBytes ?? 16 * 1024 * 1024;
  const { consumer, isConnected, setConnected } = createGroupConsumer(deps.kafka, {
    groupId: deps.groupId,
    maxBytesPerPartition: deps.maxBytesPerPartition,
  });

  function logBatch(
    partition: number,
    messages: KafkaMessage[],
    events: BlockEvent[],
    started: number,
    out: object,
  ) {
    deps.logger.info(
      {
        partition,
        events: events.length,
        fromBlock: events[0]!.block.number,
        toBlock: events[events.length - 1]!.block.number,
        offset: messages[messages.length - 1]!.offset,
        ms: Date.now() - started,
        ...out,
      },
      'projected batch',
    );
  }

  /**
   * Projects one chunk and commits its offsets once `previous` (the chunk before, with its
   * offsets) is done. A chunk without removals writes its new rows at once, beside the previous
   * chunk's transaction, and finishes after it; a chunk with removals waits for it first.
   */
  function projectChunk(
    partition: number,
    topic: string,
    messages: KafkaMessage[],
    events: BlockEvent[],
    previous: Promise<void>,
  ): { done: Promise<void>; begun: Promise<void> } {
    const started = Date.now();
    const commit = async () => {
      const last = messages[messages.length - 1]!;
      await consumer.commitOffsets([{ topic, partition, offset: (BigInt(last.offset) + 1n).toString() }]);
    };
    if (events.some((e) => e.type === 'removed')) {
      const done = (async () => {
        await previous;
        const out = await deps.projector.projectBatch(events);
        logBatch(partition, messages, events, started, out);
        await commit();
      })();
      return { done, begun: settled(done) };
    }
    // The previous chunk's rows must be written first: this chunk's inserts of the same blocks
    // then wait for its commit. Begun before it, they would make it wait for this chunk, which
    // waits for it to commit: a lock wait PostgreSQL cannot see as a deadlock, a silent stall.
    const begun = previousBegun.then(() => deps.projector.startBatch(events));
    previousBegun = settled(begun);
    const done = (async () => {
      let batch: StartedBatch;
      try {
        batch = await begun;
      } catch (err) {
        await previous.catch(() => {});
        throw err;
      }
      try {
        await previous;
      } catch (err) {
        await batch.abort().catch(() => {});
        throw err;
      }
      const out = await batch.finish();
      logBatch(partition, messages, events, started, out);
      await commit();
    })();
    return { done, begun: previousBegun };
  }

  // The chain of chunk transactions in flight (at most two), across fetches.
  let tail: Promise<void> = Promise.resolve();
  // Settles once the last chunk started has written its new rows (a removal: once it is done).
  let previousBegun: Promise<void> = Promise.resolve();
  let stopping = false;
  // Per partition: the first offset whose chunk has not committed (where a failure seeks back to).
  const uncommitted = new Map<number, string>();
  consumer.on(consumer.events.GROUP_JOIN, () => uncommitted.clear());

  /** Waits for the chunks in flight; a failure is thrown once, and the chain starts afresh. */
  async function settle(): Promise<void> {
    const t = tail;
    try {
      await t;
    } catch (err) {
      if (tail === t) tail = Promise.resolve();
      throw err;
    }
  }

  /** After a chunk failed: fetch the partition again from its first uncommitted offset. */
  function rewind(topic: string, partition: number) {
    const offset = uncommitted.get(partition);
    if (offset === undefined) return;
    try {
      consumer.seek({ topic, partition, offset });
    } catch (err) {
      deps.logger.warn({ partition, offset, err }, 'could not seek back after a failed batch');
    }
  }

  return {
    isConnected,
    async start() {
      await consumer.connect();
      setConnected(true);
      await consumer.subscribe({ topic: deps.topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
          const { topic, partition } = batch;
          const proceed = () => isRunning() && !isStale() && !stopping;
          const chunks = splitByBytes(batch.messages, maxTransactionBytes);
          let decoding: Promise<BlockEvent[]> | undefined = chunks[0] ? decodeChunk(chunks[0]) : undefined;
          for (let i = 0; i < chunks.length; i++) {
            let events: BlockEvent[];
            try {
              events = await decoding!;
            } catch (err) {
              await settle().catch(() => {});
              throw err;
            }
            if (!proceed()) break;
            const chunk = chunks[i]!;
            const first = chunk[0]!.offset;
            const last = chunk[chunk.length - 1]!.offset;
            if (!uncommitted.has(partition)) uncommitted.set(partition, first);
            const previous = tail;
            const projected = projectChunk(partition, topic, chunk, events, previous);
            previousBegun = projected.begun;
            const current = projected.done.then(
              () => {
                uncommitted.set(partition, (BigInt(last) + 1n).toString());
              },
              (err: unknown) => {
                rewind(topic, partition);
                throw err;
              },
            );
            current.catch(() => {});
            tail = current;
            // Decode the next chunk while this one's transaction runs; its errors surface when awaited.
            decoding = chunks[i + 1] ? decodeChunk(chunks[i + 1]!) : undefined;
            decoding?.catch(() => {});
            // At most two chunks in flight: this one, and the one before until it is done.
            try {
              await previous;
            } catch (err) {
              await settle().catch(() => {});
              throw err;
            }
            resolveOffset(last);
            await heartbeat();
          }
          // Stopping, or a seek: nothing may stay in flight. Otherwise the last chunk finishes
          // while kafkajs fetches the next batch.
          if (!proceed()) await settle();
        },
      });
    },
    async stop() {
      stopping = true;
      await settle().catch(() => {});
      await consumer.stop();
      await settle().catch(() => {});
      await consumer.disconnect();
      setConnected(false);
    },
  };
}

/**
 * Runs of messages of at most maxBytes of values each (one message always fits), as even as the
 * messages allow: 16 blocks under a limit of 5 make 4 + 4 + 4 + 4, not 5 + 5 + 5 + 1.
 */
export function splitByBytes(messages: KafkaMessage[], maxBytes: number): KafkaMessage[][] {
  const size = (m: KafkaMessage) => m.value?.length ?? 0;
  const pack = (limit: (bytes: number, next: number, chunk: number) => boolean) => {
    const chunks: KafkaMessage[][] = [];
    let start = 0;
    while (start < messages.length) {
      let end = start + 1;
      let bytes = size(messages[start]!);
      while (end < messages.length && limit(bytes, size(messages[end]!), chunks.length)) {
        bytes += size(messages[end]!);
        end++;
      }
      chunks.push(messages.slice(start, end));
      start = end;
    }
    return chunks;
  };
  // As few chunks as full packing needs, then as even as those allow.
  const full = pack((bytes, next) => bytes + next <= maxBytes);
  let total = 0;
  for (const m of messages) total += size(m);
  const target = total / Math.max(1, full.length);
  const even = pack(
    (bytes, next, chunk) =>
      bytes + next <= maxBytes && (chunk === full.length - 1 || bytes + next / 2 <= target),
  );
  return even.length <= full.length ? even : full;
}

/** Resolves when `p` settles, either way. */
function settled(p: Promise<unknown>): Promise<void> {
  return p.then(
    () => undefined,
    () => undefined,
  );
}

/** Decodes (JSON + schema) one message per turn of the event loop. */
async function decodeChunk(messages: KafkaMessage[]): Promise<BlockEvent[]> {
  const events: BlockEvent[] = [];
  for (const m of messages) {
    await nextTurn();
    events.push(blockEventCodec.decode(m.value));
  }
  return events;
}
