import { type StreamChange, TOPICS } from '@tributary/schema';
import type { Producer } from 'kafkajs';

/** Publishes stream changes keyed by stream id; `topicPrefix` isolates deployments and tests. */
export function createStreamChangePublisher(
  producer: Producer,
  topicPrefix: string,
): (change: StreamChange) => Promise<void> {
  const topic = `${topicPrefix}${TOPICS.streamChanges}`;
  return async (change) => {
    await producer.send({ topic, messages: [{ key: change.streamId, value: JSON.stringify(change) }] });
  };
}
