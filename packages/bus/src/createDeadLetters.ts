import { DEAD_LETTER_HEADERS as H } from '@tributary/schema';
import { topicsFor } from './topicsFor.ts';
import type { Producer } from 'kafkajs';

export interface DeadLetter {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  reason: string;
}

export interface DeadLetters {
  /**
   * Stores one poison message on the dead-letter topic with its origin and the reason in
   * headers; resolves once the broker has it, so the caller may then commit past it. A failure
   * throws: the caller retries, and never skips the message.
   */
  send(letter: DeadLetter): Promise<void>;
}

/**
 * The one dead-letter policy of every consumer: the original bytes unchanged, the origin (topic,
 * partition, offset, consumer group) and the reason as headers, a count for the metrics.
 */
export function createDeadLetters(opts: {
  producer: Producer;
  topicPrefix: string;
  consumer: string;
  onDeadLetter?: (letter: DeadLetter) => void;
}): DeadLetters {
  const topic = topicsFor(opts.topicPrefix).deadLetters;
  return {
    async send(letter) {
      await opts.producer.send({
        topic,
        acks: -1,
        messages: [
          {
            key: letter.key,
            value: letter.value,
            headers: {
              [H.sourceTopic]: letter.topic,
              [H.sourcePartition]: String(letter.partition),
              [H.sourceOffset]: letter.offset,
              [H.consumer]: opts.consumer,
              [H.reason]: letter.reason.slice(0, 2_000),
              [H.deadAt]: new Date().toISOString(),
            },
          },
        ],
      });
      opts.onDeadLetter?.(letter);
    },
  };
}
