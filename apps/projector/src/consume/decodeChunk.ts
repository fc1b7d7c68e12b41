import { setImmediate as nextTurn } from 'node:timers/promises';
import { blockEventCodec } from '@tributary/bus';
import type { KafkaMessage } from 'kafkajs';
import type { Chunk } from './createChunkPipeline.ts';

/**
 * Decodes (JSON + schema) one message per turn of the event loop, so that a running COPY keeps
 * being fed. A message that does not decode (bad JSON, a schema failure), or that failed for good
 * before (`setAsideReason`), becomes a dead letter with the reason: the chunk goes on past it.
 * Never rejects.
 */
export async function decodeChunk(
  topic: string,
  partition: number,
  messages: KafkaMessage[],
  setAsideReason: (partition: number, offset: string) => string | undefined = () => undefined,
): Promise<Chunk> {
  const chunk: Chunk = {
    topic,
    partition,
    firstOffset: messages[0]!.offset,
    lastOffset: messages[messages.length - 1]!.offset,
    events: [],
    deadLetters: [],
  };
  for (const m of messages) {
    await nextTurn();
    const setAside = setAsideReason(partition, m.offset);
    if (setAside !== undefined) {
      chunk.deadLetters.push({
        topic,
        partition,
        offset: m.offset,
        key: m.key,
        value: m.value,
        reason: setAside,
      });
      continue;
    }
    try {
      chunk.events.push(blockEventCodec.decode(m.value));
    } catch (err) {
      const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      chunk.deadLetters.push({ topic, partition, offset: m.offset, key: m.key, value: m.value, reason });
    }
  }
  return chunk;
}
