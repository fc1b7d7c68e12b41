/**
 * Every Kafka topic (each behind the deployment's KAFKA_TOPIC_PREFIX), with its key and headers:
 * - `blocks`: block events (blockEvent), key = the chain id in decimal, no headers;
 * - `streamChanges`: stream changes (streamChange), key = the stream id, no headers;
 * - `deadLetters`: what a consumer cannot process, its original key and bytes unchanged, with
 *   the headers of DEAD_LETTER_HEADERS naming its origin and the reason.
 */
export const TOPICS = {
  blocks: 'evm.blocks.v1',
  streamChanges: 'streams.changes.v1',
  deadLetters: 'tributary.dead-letters.v1',
} as const;

/** The headers of a dead letter: where the message came from, who set it aside, why and when. */
export const DEAD_LETTER_HEADERS = {
  /** The topic it was read from (`bullmq:webhooks` for a job of the webhook queue). */
  sourceTopic: 'x-source-topic',
  sourcePartition: 'x-source-partition',
  /** Its offset there (a job's id for a queue job). */
  sourceOffset: 'x-source-offset',
  /** The consumer group (or service) that set it aside. */
  consumer: 'x-consumer',
  /** Why, at most 2,000 characters. */
  reason: 'x-reason',
  /** When, ISO 8601. */
  deadAt: 'x-dead-at',
} as const;
