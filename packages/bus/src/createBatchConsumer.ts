import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { Codec } from './codec.ts';
import { createGroupConsumer } from './createGroupConsumer.ts';

export interface DecodedMessage<T> {
  value: T;
  offset: string;
  partition: number;
}

export interface BatchConsumer {
  start(): Promise<void>;
  /** Stops fetching, lets the in-flight batch finish and commit, then leaves the group. */
  stop(): Promise<void>;
  isConnected(): boolean;
  consumer: Consumer;
}

/**
 * Consumes a topic in batches with autoCommit off: each batch is handled as a whole (one DB
 * transaction in the projector), and its offsets are committed only after handle() resolved.
 * A failing handle() is not committed: the consumer restarts and the batch is redelivered.
 */
export function createBatchConsumer<T>(opts: {
  kafka: Kafka;
  groupId: string;
  topic: string;
  codec: Codec<T>;
  fromBeginning?: boolean;
  maxBytesPerPartition?: number;
  /** Upper bound of the message bytes (uncompressed) handed to one handle() call; one message always fits. */
  maxHandleBytes?: number;
  handle: (messages: DecodedMessage<T>[], partition: number) => Promise<void>;
}): BatchConsumer {
  const maxHandleBytes = opts.maxHandleBytes ?? 16 * 1024 * 1024;
  const { consumer, isConnected, setConnected } = createGroupConsumer(opts.kafka, {
    groupId: opts.groupId,
    maxBytesPerPartition: opts.maxBytesPerPartition,
  });
  return {
    consumer,
    isConnected,
    async start() {
      await consumer.connect();
      setConnected(true);
      await consumer.subscribe({ topic: opts.topic, fromBeginning: opts.fromBeginning ?? true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
          // A fetch can hold far more than one transaction should (compressed batches expand a
          // lot): handle it in chunks of at most maxHandleBytes of message values, each decoded
          // just before it is handled and committed once handled.
          let start = 0;
          while (start < batch.messages.length) {
            if (!isRunning() || isStale()) return;
            let end = start;
            let bytes = 0;
            while (end < batch.messages.length && (end === start || bytes < maxHandleBytes)) {
              bytes += batch.messages[end]!.value?.length ?? 0;
              end++;
            }
            const chunk = batch.messages.slice(start, end);
            const decoded = chunk.map((m: KafkaMessage) => ({
              value: opts.codec.decode(m.value),
              offset: m.offset,
              partition: batch.partition,
            }));
            await opts.handle(decoded, batch.partition);
            const last = chunk[chunk.length - 1]!;
            resolveOffset(last.offset);
            await consumer.commitOffsets([
              {
                topic: batch.topic,
                partition: batch.partition,
                offset: (BigInt(last.offset) + 1n).toString(),
              },
            ]);
            await heartbeat();
            start = end;
          }
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
