import type { Admin, ConfigResourceTypes, ConfigSource, Kafka } from 'kafkajs';

// kafkajs' enums, by value: its CommonJS entry does not expose them to an ES module import.
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;
const SET_ON_TOPIC = 1 as ConfigSource;

export interface TopicSpec {
  topic: string;
  numPartitions?: number;
  /** Large blocks must fit in one message: the broker default (1 MB) is too small. */
  maxMessageBytes?: number;
  /**
   * How long the topic keeps messages (`retention.ms`), set on a new topic and applied to an
   * existing one; unset: the topic's own (the broker's default for a topic made without it).
   */
  retentionMs?: number;
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

/** The hours of a retention setting (`KAFKA_*_RETENTION_HOURS`) as `retention.ms`. */
export const hoursToMs = (hours: number) => hours * 3_600_000;

/**
 * Creates missing topics with our settings (`replication.factor` copies, `min.insync.replicas`),
 * and gives existing topics the retention their spec names (a deployment upgrading, or an operator
 * changing the setting). An existing topic with fewer copies than `replication.factor` (made before
 * a move to more brokers) is said as a warning: `kafka-reassign-partitions` adds copies, Tributary
 * does not. Returns the topics created.
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
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.numPartitions ?? 1,
          replicationFactor: replication.factor,
          configEntries: [
            { name: 'max.message.bytes', value: String(s.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) },
            { name: 'min.insync.replicas', value: String(replication.minInsync) },
            ...(s.retentionMs === undefined ? [] : [{ name: 'retention.ms', value: String(s.retentionMs) }]),
          ],
        })),
      });
    }
    await applyRetention(
      admin,
      specs.filter((s) => existing.has(s.topic) && s.retentionMs !== undefined),
    );
    return missing.map((s) => s.topic);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Sets `retention.ms` where it differs. kafkajs speaks only the AlterConfigs request that replaces
 * every value set on the topic, so the others set there (max.message.bytes) are sent again as
 * they are.
 */
async function applyRetention(admin: Admin, specs: TopicSpec[]): Promise<void> {
  if (specs.length === 0) return;
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: specs.map((s) => ({ type: TOPIC_RESOURCE, name: s.topic })),
  });
  const resources = specs.flatMap((s) => {
    const entries = described.resources.find((r) => r.resourceName === s.topic)?.configEntries ?? [];
    const current = entries.find((e) => e.configName === 'retention.ms')?.configValue;
    if (current === String(s.retentionMs)) return [];
    const kept = entries
      .filter((e) => e.configSource === SET_ON_TOPIC && e.configName !== 'retention.ms')
      .map((e) => ({ name: e.configName, value: e.configValue }));
    return [
      {
        type: TOPIC_RESOURCE,
        name: s.topic,
        configEntries: [...kept, { name: 'retention.ms', value: String(s.retentionMs) }],
      },
    ];
  });
  if (resources.length > 0) await admin.alterConfigs({ validateOnly: false, resources });
}
