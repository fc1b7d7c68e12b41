import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { Codec } from './codec.ts';

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
  handle: (messages: DecodedMessage<T>[], partition: number) => Promise<void>;
}): BatchConsumer {
  const consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    maxBytesPerPartition: opts.maxBytesPerPartition ?? 16 * 1024 * 1024,
    maxBytes: 64 * 1024 * 1024,
    sessionTimeout: 30_000,
    heartbeatInterval: 3_000,
  });
  let connected = false;
  consumer.on(consumer.events.CONNECT, () => {
    connected = true;
  });
  consumer.on(consumer.events.DISCONNECT, () => {
    connected = false;
  });
  consumer.on(consumer.events.CRASH, () => {
    connected = false;
  });
  return {
    consumer,
    isConnected: () => connected,
    async start() {
      await consumer.connect();
      connected = true;
      await consumer.subscribe({ topic: opts.topic, fromBeginning: opts.fromBeginning ?? true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
          if (!isRunning() || isStale() || batch.messages.length === 0) return;
          const decoded = batch.messages.map((m: KafkaMessage) => ({
            value: opts.codec.decode(m.value),
            offset: m.offset,
            partition: batch.partition,
          }));
          await opts.handle(decoded, batch.partition);
          const last = batch.messages[batch.messages.length - 1]!;
          resolveOffset(last.offset);
          await consumer.commitOffsets([
            { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
          ]);
          await heartbeat();
        },
      });
    },
    async stop() {
      await consumer.stop();
      await consumer.disconnect();
      connected = false;
    },
  };
}
