import { type BatchConsumer, blockEventCodec, createBatchConsumer } from '@tributary/bus';
import type { Logger } from '@tributary/runtime';
import type { Kafka } from 'kafkajs';
import type { BlockProjector } from '../project/createBlockProjector.ts';

/** Feeds `evm.blocks.v1` batches to the projector; offsets are committed after its transaction committed. */
export function createBlockConsumer(deps: {
  kafka: Kafka;
  topic: string;
  groupId: string;
  projector: BlockProjector;
  logger: Logger;
  maxBytesPerPartition?: number;
  /** Message bytes projected in one transaction (a fetch is split into such chunks). */
  maxTransactionBytes?: number;
}): BatchConsumer {
  return createBatchConsumer({
    kafka: deps.kafka,
    groupId: deps.groupId,
    topic: deps.topic,
    codec: blockEventCodec,
    fromBeginning: true,
    ...(deps.maxBytesPerPartition ? { maxBytesPerPartition: deps.maxBytesPerPartition } : {}),
    ...(deps.maxTransactionBytes ? { maxHandleBytes: deps.maxTransactionBytes } : {}),
    handle: async (messages, partition) => {
      const started = Date.now();
      const events = messages.map((m) => m.value);
      const out = await deps.projector.projectBatch(events);
      const first = events[0]!;
      const last = events[events.length - 1]!;
      deps.logger.info(
        {
          partition,
          events: events.length,
          fromBlock: first.block.number,
          toBlock: last.block.number,
          offset: messages[messages.length - 1]!.offset,
          ms: Date.now() - started,
          ...out,
        },
        'projected batch',
      );
    },
  });
}
