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
 * Pipelined: while one chunk's transaction runs in PostgreSQL, the next chunk of the same fetch
 * is decoded (one message at a time, yielding in between, so that the running COPY keeps being
 * fed), and a chunk without removals writes its new blocks' rows on a second connection while
 * the chunk before finishes (BlockProjector.startBatch). Transactions commit one after the other,
 * in offset order, so readers never see a later block without the earlier ones.
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
  ): Promise<void> {
    const started = Date.now();
    const commit = async () => {
      const last = messages[messages.length - 1]!;
      await consumer.commitOffsets([{ topic, partition, offset: (BigInt(last.offset) + 1n).toString() }]);
    };
    if (events.some((e) => e.type === 'removed')) {
      return (async () => {
        await previous;
        const out = await deps.projector.projectBatch(events);
        logBatch(partition, messages, events, started, out);
        await commit();
      })();
    }
    const begun = deps.projector.startBatch(events);
    return (async () => {
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
          const chunks = splitByBytes(batch.messages, maxTransactionBytes);
          let decoding: Promise<BlockEvent[]> | undefined = chunks[0] ? decodeChunk(chunks[0]) : undefined;
          // At most two chunks in flight: the one finishing and the one writing its new rows.
          let previous: Promise<void> = Promise.resolve();
          let previousChunk: KafkaMessage[] | undefined;
          const previousDone = async () => {
            await previous;
            if (previousChunk) resolveOffset(previousChunk[previousChunk.length - 1]!.offset);
            await heartbeat();
          };
          for (let i = 0; i < chunks.length; i++) {
            let events: BlockEvent[];
            try {
              events = await decoding!;
            } catch (err) {
              await previous.catch(() => {});
              throw err;
            }
            if (!isRunning() || isStale()) break;
            const chunk = chunks[i]!;
            const current = projectChunk(batch.partition, batch.topic, chunk, events, previous);
            current.catch(() => {});
            // Decode the next chunk while this one's transaction runs; its errors surface when awaited.
            decoding = chunks[i + 1] ? decodeChunk(chunks[i + 1]!) : undefined;
            decoding?.catch(() => {});
            try {
              await previousDone();
            } catch (err) {
              await current.catch(() => {});
              throw err;
            }
            previous = current;
            previousChunk = chunk;
          }
          await previousDone();
        },
      });
    },
    async stop() {
      await consumer.stop();
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

/** Decodes (JSON + schema) one message per turn of the event loop. */
async function decodeChunk(messages: KafkaMessage[]): Promise<BlockEvent[]> {
  const events: BlockEvent[] = [];
  for (const m of messages) {
    await nextTurn();
    events.push(blockEventCodec.decode(m.value));
  }
  return events;
}
