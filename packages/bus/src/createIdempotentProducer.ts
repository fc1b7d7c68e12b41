import { CompressionTypes, type Kafka, type Message, Partitioners, type Producer } from 'kafkajs';

export type Compression = 'none' | 'gzip';

const COMPRESSION: Record<Compression, CompressionTypes> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
};

/** Idempotent (no duplicates from producer retries, order kept): one request in flight, acks from all replicas. */
export function createIdempotentProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    // Unbounded retries keep the idempotence guarantees; a broker that stays down stalls the
    // follower (its checkpoint does not move) until shutdown's deadline.
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5_000 },
  });
}

/**
 * Sends messages in order, in requests of at most maxRequestBytes (so that a backfill batch of
 * large blocks never exceeds the broker's request size), and resolves once every one is acked.
 */
export async function sendInOrder(
  producer: Producer,
  opts: { topic: string; messages: Message[]; compression: Compression; maxRequestBytes?: number },
): Promise<void> {
  const limit = opts.maxRequestBytes ?? 8 * 1024 * 1024;
  let chunk: Message[] = [];
  let size = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    await producer.send({
      topic: opts.topic,
      messages: chunk,
      acks: -1,
      compression: COMPRESSION[opts.compression],
    });
    chunk = [];
    size = 0;
  };
  for (const m of opts.messages) {
    const bytes = m.value ? (typeof m.value === 'string' ? Buffer.byteLength(m.value) : m.value.length) : 0;
    if (size + bytes > limit) await flush();
    chunk.push(m);
    size += bytes;
  }
  await flush();
}
