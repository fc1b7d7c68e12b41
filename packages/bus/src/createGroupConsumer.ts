import type { Consumer, Kafka } from 'kafkajs';

export interface GroupConsumer {
  consumer: Consumer;
  /** Whether the consumer is connected (kept from its CONNECT, DISCONNECT and CRASH events). */
  isConnected(): boolean;
  /** For callers that connect or disconnect it themselves. */
  setConnected(value: boolean): void;
}

/**
 * A member's session settings. The session timeout is how long the group's coordinator waits for
 * a member that stopped heartbeating (a SIGKILLed or frozen process) before it hands the member's
 * partitions to the others: a standby takes over a crashed member's work after about this long.
 * Shorter is a faster takeover, and a member paused longer (a long GC, a starved machine) is
 * dropped and its batch handed over. Heartbeats go every 3 s, or a third of the timeout.
 */
export function groupSession(sessionTimeoutMs = 30_000): {
  sessionTimeout: number;
  heartbeatInterval: number;
} {
  return {
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeoutMs / 3)),
  };
}

/**
 * A kafkajs group consumer with the project's fetch and session settings and a connection flag
 * for readiness: the one place both the generic batch consumer and the projector's pipelined
 * consumer get theirs.
 */
export function createGroupConsumer(
  kafka: Kafka,
  opts: { groupId: string; maxBytesPerPartition: number; sessionTimeoutMs?: number },
): GroupConsumer {
  const { maxBytesPerPartition } = opts;
  const consumer = kafka.consumer({
    groupId: opts.groupId,
    maxBytesPerPartition,
    maxBytes: Math.max(64 * 1024 * 1024, maxBytesPerPartition),
    ...groupSession(opts.sessionTimeoutMs),
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
