import { TOPICS, type StreamChange } from '@tributary/schema';
import type { Producer } from 'kafkajs';

export function createStatusPublisher(
  producer: Producer,
  topicPrefix: string,
): (streamId: string) => Promise<void> {
  const topic = `${topicPrefix}${TOPICS.streamChanges}`;
  return async (streamId) => {
    const change: StreamChange = { v: 1, streamId, kind: 'upsert', at: Date.now() };
    await producer.send({ topic, messages: [{ key: streamId, value: JSON.stringify(change) }] });
  };
}
