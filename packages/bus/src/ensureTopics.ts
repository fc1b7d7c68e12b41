import type { Kafka } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  numPartitions?: number;
  /** Large blocks must fit in one message: the broker default (1 MB) is too small. */
  maxMessageBytes?: number;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Creates missing topics with our settings (existing topics are left as they are). */
export async function ensureTopics(kafka: Kafka, specs: TopicSpec[]): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({
        topic: s.topic,
        numPartitions: s.numPartitions ?? 1,
        configEntries: [
          { name: 'max.message.bytes', value: String(s.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) },
        ],
      })),
    });
    return missing.map((s) => s.topic);
  } finally {
    await admin.disconnect();
  }
}
