import { CompressionTypes, type Kafka, type Message, Partitioners, type Producer } from 'kafkajs';

export type Compression = 'none' | 'gzip';

const COMPRESSION: Record<Compression, CompressionTypes> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
};

/**
 * The two kinds of producer the services use, the one way each is built:
 * - `ordered`: idempotent (no duplicates from producer retries, order kept): one request in flight,
 *   acks from all replicas, topics made beforehand (never by the producer), retries without end:
 *   a broker that stays down stalls the caller (the follower's checkpoint does not move) until
 *   shutdown's deadline. The block topic and the dead letters of a consumer that commits past them.
 * - `plain`: the client's retries, then a failure the caller handles (a best-effort stream change,
 *   a dead letter the caller retries itself); a topic missing is made with the broker's defaults.
 */
export type ProducerKind = 'ordered' | 'plain';

export function createProducer(kafka: Kafka, kind: ProducerKind): Producer {
  // DefaultPartitioner: named explicitly, which also silences kafkajs' start-up warning about it.
  if (kind === 'plain')
    return kafka.producer({
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5_000 },
  });
}

/**
 * Sends messages in order, in requests of at most maxRequestBytes (so that a backfill batch of
 * large blocks never exceeds the broker's request size), and resolves once every one is acked.
 */
export async function sendInOrder(
  producer: Producer,
  opts: { topic: string; messages: Message[]; compression: Compression; maxRequestBytes: number },
): Promise<void> {
  const limit = opts.maxRequestBytes;
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
