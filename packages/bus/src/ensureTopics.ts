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

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The hours of a retention setting (`KAFKA_*_RETENTION_HOURS`) as `retention.ms`. */
export const hoursToMs = (hours: number) => hours * 3_600_000;

/**
 * Creates missing topics with our settings, and gives existing topics the retention their spec
 * names (a deployment upgrading, or an operator changing the setting). Returns the topics created.
 */
export async function ensureTopics(kafka: Kafka, specs: TopicSpec[]): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.numPartitions ?? 1,
          configEntries: [
            { name: 'max.message.bytes', value: String(s.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) },
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
