import { type Compression, sendInOrder } from '@tributary/bus';
import type { BlockEvent } from '@tributary/schema';
import type { Producer } from 'kafkajs';
import { encodeBlockEvent } from './encodeBlockEvent.ts';

export interface BlockPublisher {
  /** Resolves once Kafka acknowledged every event (in order, key = chain id). */
  publish(events: readonly BlockEvent[]): Promise<void>;
}

export function createBlockPublisher(deps: {
  producer: Producer;
  topic: string;
  compression: Compression;
  /** Upper bound of one produce request (KAFKA_MAX_REQUEST_BYTES). */
  maxRequestBytes: number;
  /** Told of each publish that reached the broker (ends a Kafka outage in the log). */
  onPublished?: () => void;
}): BlockPublisher {
  return {
    async publish(events) {
      if (events.length === 0) return;
      const messages = events.map((e) => ({ key: String(e.chainId), value: encodeBlockEvent(e) }));
      await sendInOrder(deps.producer, {
        topic: deps.topic,
        messages,
        compression: deps.compression,
        maxRequestBytes: deps.maxRequestBytes,
      });
      deps.onPublished?.();
    },
  };
}
