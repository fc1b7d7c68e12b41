import type { Kafka } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  numPartitions?: number;
  /** Large blocks must fit in one message: the broker default (1 MB) is too small. */
  maxMessageBytes?: number;
}

/**
 * How a topic is replicated: `factor` copies of each partition, and a write acknowledged
 * (producers send with acks=-1) once `minInsync` of them have it. 1 and 1 fit a single broker;
 * three brokers take 3 and 2: one may be lost without losing an acknowledged write or stopping
 * the writes.
 */
export interface TopicReplication {
  factor: number;
  minInsync: number;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const SINGLE_BROKER: TopicReplication = { factor: 1, minInsync: 1 };

/**
 * Creates missing topics with our settings (existing topics are left as they are). An existing
 * topic with fewer copies than `replication.factor` (made before a move to more brokers) is said
 * as a warning: `kafka-reassign-partitions` adds copies, Tributary does not.
 */
export async function ensureTopics(
  kafka: Kafka,
  specs: TopicSpec[],
  opts: { replication?: TopicReplication; logger?: { warn(obj: object, msg: string): void } } = {},
): Promise<string[]> {
  const replication = opts.replication ?? SINGLE_BROKER;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    const present = specs.filter((s) => existing.has(s.topic)).map((s) => s.topic);
    if (present.length > 0 && replication.factor > 1) {
      const { topics } = await admin.fetchTopicMetadata({ topics: present });
      for (const t of topics) {
        const replicas = Math.min(...t.partitions.map((p) => p.replicas.length));
        if (replicas < replication.factor)
          opts.logger?.warn(
            { topic: t.name, replicas, replicationFactor: replication.factor },
            'topic has fewer copies than KAFKA_REPLICATION_FACTOR (made before; kafka-reassign-partitions adds them)',
          );
      }
    }
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({
        topic: s.topic,
        numPartitions: s.numPartitions ?? 1,
        replicationFactor: replication.factor,
        configEntries: [
          { name: 'max.message.bytes', value: String(s.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) },
          { name: 'min.insync.replicas', value: String(replication.minInsync) },
        ],
      })),
    });
    return missing.map((s) => s.topic);
  } finally {
    await admin.disconnect();
  }
}
