export { createKafka } from './createKafka.ts';
export { type Topics, topicsFor } from './topicsFor.ts';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  type TopicReplication,
  type TopicSpec,
  ensureTopics,
  hoursToMs,
} from './ensureTopics.ts';
export { type Codec, DecodeError, blockEventCodec, jsonCodec } from './codec.ts';
export { type Compression, type ProducerKind, createProducer, sendInOrder } from './createProducer.ts';
export { type GroupConsumer, createGroupConsumer, groupSession } from './createGroupConsumer.ts';
export {
  type DeadLetter,
  type DeadLetters,
  createDeadLetters,
} from './createDeadLetters.ts';
export { createLagProbe } from './createLagProbe.ts';
export { kafkaClientLogger } from './kafkaClientLogger.ts';
export { createStreamChangeAnnouncer, streamChangeOf } from './createStreamChangeAnnouncer.ts';
export { type StoredDeadLetter, readDeadLetters } from './readDeadLetters.ts';
export { type Gap, type GapGuard, createGapGuard } from './createGapGuard.ts';
