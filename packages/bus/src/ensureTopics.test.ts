import { createKafkaTopic, getTestSettings, uniqueName } from '@tributary/testkit';
import { createLogger } from '@tributary/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createKafka } from './createKafka.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, ensureTopics, hoursToMs } from './ensureTopics.ts';

// Each topic keeps its messages as long as the operator set (KAFKA_*_RETENTION_HOURS), whether
// the service made it or found it made (an upgrade, a changed setting, a broker's auto-creation).
const kafka = createKafka({
  clientId: 'ensure-topics-test',
  brokers: getTestSettings().kafkaBrokers,
  logger: createLogger('ensure-topics-test', 'silent'),
});
const made: string[] = [];

afterAll(async () => {
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: made }).catch(() => undefined);
  await admin.disconnect();
});

/** The values set on the topic itself (not the broker's defaults). */
async function topicConfig(topic: string): Promise<Record<string, string>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2, name: topic }],
    });
    return Object.fromEntries(
      (resources[0]?.configEntries ?? [])
        .filter((e) => e.configSource === 1)
        .map((e) => [e.configName, e.configValue]),
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * The topic's settings once they are `expected`: a broker applies a config change through its
 * metadata log, so a describe right after the change may still answer with the one before.
 */
async function settledConfig(
  topic: string,
  expected: Record<string, string>,
): Promise<Record<string, string>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const config = await topicConfig(topic);
    const same =
      Object.keys(config).length === Object.keys(expected).length &&
      Object.entries(expected).every(([k, v]) => config[k] === v);
    if (same || Date.now() > deadline) return config;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('ensureTopics', () => {
  it('makes a missing topic with its retention', async () => {
    const topic = uniqueName('retained');
    made.push(topic);
    expect(await ensureTopics(kafka, [{ topic, retentionMs: hoursToMs(168) }])).toEqual([topic]);
    expect(await topicConfig(topic)).toEqual({
      'max.message.bytes': String(DEFAULT_MAX_MESSAGE_BYTES),
      'min.insync.replicas': '1',
      'retention.ms': '604800000',
    });
  });

  it("gives an existing topic its retention, and keeps the topic's other settings", async () => {
    const topic = await createKafkaTopic(uniqueName('existing'), 1, {
      configEntries: { 'max.message.bytes': '2097152' },
    });
    made.push(topic);
    expect(await topicConfig(topic)).toEqual({ 'max.message.bytes': '2097152' });
    expect(await ensureTopics(kafka, [{ topic, retentionMs: hoursToMs(720) }])).toEqual([]);
    const retained = { 'max.message.bytes': '2097152', 'retention.ms': '2592000000' };
    expect(await settledConfig(topic, retained)).toEqual(retained);
    // A changed setting, at the next start.
    await ensureTopics(kafka, [{ topic, retentionMs: hoursToMs(24) }]);
    const changed = { 'max.message.bytes': '2097152', 'retention.ms': '86400000' };
    expect(await settledConfig(topic, changed)).toEqual(changed);
  });

  it('says when an existing topic has fewer copies than asked, and leaves it so', async () => {
    const topic = uniqueName('ensure-old');
    made.push(topic);
    await ensureTopics(kafka, [{ topic }]);
    const warnings: object[] = [];
    const logger = { warn: (obj: object) => warnings.push(obj) };
    // A deployment moved to three brokers: its topics made with one copy stay so, and are named.
    expect(
      await ensureTopics(kafka, [{ topic }], { replication: { factor: 3, minInsync: 2 }, logger }),
    ).toEqual([]);
    expect(warnings).toEqual([{ topic, replicas: 1, replicationFactor: 3 }]);
  });
});
