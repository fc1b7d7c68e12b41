export { createKafka } from './createKafka.ts';
export { topicsFor } from './topicsFor.ts';
export {
  type TopicReplication,
  ensureTopics,
  hoursToMs,
} from './ensureTopics.ts';
export { DecodeError, blockEventCodec, jsonCodec } from './codec.ts';
export { type Compression, createProducer, sendInOrder } from './createProducer.ts';
export { createGroupConsumer, groupSession } from './createGroupConsumer.ts';
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
