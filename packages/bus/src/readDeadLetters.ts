import { DEAD_LETTER_HEADERS as H } from '@tributary/schema';
import { topicsFor } from './topicsFor.ts';
import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';

/** One message a consumer set aside, as the dead-letter topic holds it. */
export interface StoredDeadLetter {
  /** Its place on the dead-letter topic. */
  partition: number;
  offset: string;
  sourceTopic: string;
  sourcePartition: string;
  sourceOffset: string;
  consumer: string;
  reason: string;
  deadAt: Date;
  /** The original message's bytes, as text (a block event's JSON). */
  value: string;
}

/** Dead letters read of each partition, the newest. */
const LAST_PER_PARTITION = 1_000;

/**
 * The last LAST_PER_PARTITION dead letters of each partition of the deployment's dead-letter topic (oldest
 * first), read with a throwaway consumer group that is deleted afterwards. An absent topic has none.
 */
export async function readDeadLetters(
  kafka: Kafka,
  opts: { topicPrefix: string; timeoutMs: number },
): Promise<StoredDeadLetter[]> {
  const topic = topicsFor(opts.topicPrefix).deadLetters;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(topic)) return [];
    const offsets = await admin.fetchTopicOffsets(topic);
    const wanted = offsets
      .map((p) => {
        const high = BigInt(p.high);
        const low = BigInt(p.low);
        const from = high - BigInt(LAST_PER_PARTITION) > low ? high - BigInt(LAST_PER_PARTITION) : low;
        return { partition: p.partition, from, high };
      })
      .filter((p) => p.high > p.from);
    if (wanted.length === 0) return [];
    const groupId = `dead-letter-reader-${randomUUID()}`;
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 });
    const letters: StoredDeadLetter[] = [];
    const remaining = new Map(wanted.map((p) => [p.partition, p.high - p.from]));
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      let done: () => void = () => undefined;
      const finished = new Promise<void>((resolve) => {
        done = resolve;
      });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          const h = (name: string) => String(message.headers?.[name] ?? '');
          letters.push({
            partition,
            offset: message.offset,
            sourceTopic: h(H.sourceTopic),
            sourcePartition: h(H.sourcePartition),
            sourceOffset: h(H.sourceOffset),
            consumer: h(H.consumer),
            reason: h(H.reason),
            deadAt: new Date(h(H.deadAt)),
            value: message.value?.toString('utf8') ?? '',
          });
          const left = (remaining.get(partition) ?? 0n) - 1n;
          remaining.set(partition, left);
          if ([...remaining.values()].every((n) => n <= 0n)) done();
        },
      });
      for (const p of wanted) consumer.seek({ topic, partition: p.partition, offset: p.from.toString() });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        finished,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`reading ${topic} took over ${opts.timeoutMs} ms`)),
            opts.timeoutMs,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await admin.deleteGroups([groupId]).catch(() => undefined);
    }
    return letters.sort((a, b) => a.deadAt.getTime() - b.deadAt.getTime());
  } finally {
    await admin.disconnect();
  }
}
