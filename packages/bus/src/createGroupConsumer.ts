import type { Consumer, Kafka } from 'kafkajs';

export interface GroupConsumer {
  consumer: Consumer;
  /** Whether the consumer is connected (kept from its CONNECT, DISCONNECT and CRASH events). */
  isConnected(): boolean;
  /** For callers that connect or disconnect it themselves. */
  setConnected(value: boolean): void;
}

/**
 * A kafkajs group consumer with the project's fetch and session settings and a connection flag
 * for readiness: the one place both the generic batch consumer and the projector's pipelined
 * consumer get theirs.
 */
export function createGroupConsumer(
  kafka: Kafka,
  opts: { groupId: string; maxBytesPerPartition?: number },
): GroupConsumer {
  const maxBytesPerPartition = opts.maxBytesPerPartition ?? 16 * 1024 * 1024;
  const consumer = kafka.consumer({
    groupId: opts.groupId,
    maxBytesPerPartition,
    maxBytes: Math.max(64 * 1024 * 1024, maxBytesPerPartition),
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
    setConnected: (value) => {
      connected = value;
    },
  };
}
