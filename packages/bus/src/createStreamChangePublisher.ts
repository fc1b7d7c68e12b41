import { type StreamChange, TOPICS, streamChange } from '@tributary/schema';
import type { Producer } from 'kafkajs';

/** A stream change of now: what the gateway (config, addresses) and the sender (status) announce. */
export function streamChangeOf(streamId: string, kind: StreamChange['kind']): StreamChange {
  return { v: 1, streamId, kind, at: Date.now() };
}

/**
 * Publishes stream changes to `streams.changes.v1`, keyed by stream id, checked against the
 * contract the matchers read them with; `topicPrefix` isolates deployments and tests.
 */
export function createStreamChangePublisher(
  producer: Producer,
  topicPrefix: string,
): (change: StreamChange) => Promise<void> {
  const topic = `${topicPrefix}${TOPICS.streamChanges}`;
  return async (change) => {
    const value = JSON.stringify(streamChange.parse(change));
    await producer.send({ topic, messages: [{ key: change.streamId, value }] });
  };
}
